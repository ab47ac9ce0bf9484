import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { UnprocessableError } from '../../../src/errors.ts';
import { importTickFile } from '../../../src/market/import/index.ts';
import { HISTDATA_M1_ORIGINAL, MemorySink, expectedTicks, oandaTicks, onDays, tempDir, wallClock, type SourceTick } from './fixtures.ts';

const tmp = tempDir();
after(() => tmp.remove());

const DAY = 86_400_000;

/** A tick as HistData writes it: New York wall time `20140307 190000292,bid,ask,0`, made with Intl. */
const histdataLine = (ts: number, bid: string, ask: string): string => {
  const w = wallClock(ts, 'America/New_York');
  return `${w.y}${w.mo}${w.d} ${w.h}${w.mi}${w.s}${w.ms},${bid},${ask},0`;
};

/** Real OANDA ticks of Fri 2014-05-02, Sun 05-04 and Mon 05-05, moved by whole days (weekdays kept when days % 7 = 0). */
const shifted = (days: number): SourceTick[] =>
  onDays(oandaTicks(), '2014-05-02', '2014-05-04', '2014-05-05').map((t) => ({ ...t, ts: t.ts + days * DAY }));

describe('histdata format', () => {
  for (const { name, days, change } of [
    // Fri 03-07 (EST) … Sun 03-09 02:00 clocks spring forward … Mon 03-10 (EDT)
    { name: 'spring forward (2014-03-09)', days: -56, change: Date.parse('2014-03-09T07:00:00Z') },
    // Fri 10-31 (EDT) … Sun 11-02 02:00 clocks fall back … Mon 11-03 (EST)
    { name: 'fall back (2014-11-02)', days: 182, change: Date.parse('2014-11-02T06:00:00Z') },
  ]) {
    it(`converts New York time with DST back to the exact UTC ticks across the ${name}`, async () => {
      const ticks = shifted(days);
      assert.ok(ticks.some((t) => t.ts < change) && ticks.some((t) => t.ts > change), 'ticks on both sides of the change');
      const lines = ticks.map((t) => histdataLine(t.ts, t.bid, t.ask));
      for (const gzip of [false, true]) {
        const path = tmp.write(`DAT_ASCII_EURUSD_T_2014${days < 0 ? '03' : '11'}.csv${gzip ? '.gz' : ''}`, lines, { gzip });
        const sink = new MemorySink();
        const report = await importTickFile({ path, format: 'histdata', symbol: 'EURUSD', sink });
        assert.equal(report.badCount, 0, JSON.stringify(report.bad.slice(0, 3)));
        assert.deepEqual(sink.ticks, expectedTicks(ticks, 'EURUSD'));
      }
    });
  }

  it('puts the weekly 17:00 New York open at 22:00Z in winter and 21:00Z in summer', async () => {
    // The Sunday open of the real data (2014-05-04T21:00:00.462Z) moved to one EST and one EDT Sunday.
    const lines = ['20140302 170000462,1.38,1.39,0', '20140309 170000462,1.38,1.39,0', '20141102 170000462,1.38,1.39,0'];
    const sink = new MemorySink();
    await importTickFile({ path: tmp.write('open.csv', lines), format: 'histdata', symbol: 'EURUSD', sink });
    assert.deepEqual(
      sink.ticks.map((t) => new Date(t.ts).toISOString()),
      ['2014-03-02T22:00:00.462Z', '2014-03-09T21:00:00.462Z', '2014-11-02T22:00:00.462Z'],
    );
  });

  it('reports bad rows with their line numbers', async () => {
    const lines = [
      '20140307 120000000,1.38676,1.38686,0', // 1
      '20140307 120000100,1.38676,1.38686', // 2 missing column
      'garbage', // 3
      '20140307 120000200,1.38696,1.38686,0', // 4 bid > ask: a crossed quote, imported
      '20140307 120000300,NaN,1.38686,0', // 5
      '20140307 115959999,1.38676,1.38686,0', // 6 backwards
      '20140309 023000000,1.38676,1.38686,0', // 7 inside the DST gap
      '19860102 120000000,1.38676,1.38686,0', // 8 before the supported rules
      '20140230 120000000,1.38676,1.38686,0', // 9 no such day
      '20140307 12:00:00.400,1.38676,1.38686,0', // 10 wrong time layout
      '20140310 120000,1.38676,1.38686,0', // 11 no milliseconds: accepted
      '20140310 120000500,1.38676,1.38686,-3', // 12 negative volume
    ];
    const sink = new MemorySink();
    const report = await importTickFile({
      path: tmp.write('DAT_ASCII_EURUSD_T_201403.csv', lines),
      format: 'histdata',
      symbol: 'EURUSD',
      sink,
    });
    assert.deepEqual(
      report.bad.map((b) => b.line),
      [2, 3, 5, 6, 7, 8, 9, 10, 12],
    );
    const reason = (line: number): string => report.bad.find((b) => b.line === line)!.reason;
    assert.match(reason(2), /expected 4 columns/);
    assert.match(reason(5), /bid NaN/);
    assert.match(reason(6), /goes backwards/);
    assert.match(reason(7), /does not exist in New York/);
    assert.match(reason(8), /before 1987/);
    assert.match(reason(9), /not YYYYMMDD HHMMSSmmm/);
    assert.match(reason(12), /volume -3/);
    assert.deepEqual(
      sink.ticks.map((t) => new Date(t.ts).toISOString()),
      ['2014-03-07T17:00:00.000Z', '2014-03-07T17:00:00.200Z', '2014-03-10T16:00:00.000Z'],
    );
    assert.deepEqual([sink.ticks[1]!.bid, sink.ticks[1]!.ask], [1.38696, 1.38686]);
  });

  it('refuses a HistData 1-minute bar file (the real one), pointing to the tick files', async () => {
    await assert.rejects(
      importTickFile({ path: HISTDATA_M1_ORIGINAL, format: 'histdata', symbol: 'EURUSD', sink: new MemorySink() }),
      (err: unknown) => {
        assert.ok(err instanceof UnprocessableError);
        assert.match(err.message, /1-minute bar file.*DAT_ASCII_<PAIR>_T_<YYYYMM>\.csv/);
        return true;
      },
    );
  });
});
