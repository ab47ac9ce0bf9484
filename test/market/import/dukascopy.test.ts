import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { UnprocessableError } from '../../../src/errors.ts';
import { importTickFile } from '../../../src/market/import/index.ts';
import { MemorySink, expectedTicks, oandaTicks, onDays, tempDir, wallClock } from './fixtures.ts';

const tmp = tempDir();
after(() => tmp.remove());

const HEADER = 'Gmt time,Ask,Bid,AskVolume,BidVolume';

/** A tick as Dukascopy exports it: `01.05.2014 00:00:00.292,ask,bid,askVolume,bidVolume` (GMT). */
const dukascopyLine = (ts: number, bid: string, ask: string, askVolume: number, bidVolume: number): string => {
  const w = wallClock(ts, 'UTC');
  return `${w.d}.${w.mo}.${w.y} ${w.h}:${w.mi}:${w.s}.${w.ms},${ask},${bid},${askVolume},${bidVolume}`;
};

describe('dukascopy format', () => {
  // Real OANDA ticks written in Dukascopy's layout; the volumes are made up (OANDA has none).
  const slice = onDays(oandaTicks(), '2014-05-01', '2014-05-02');
  const askVolumes = slice.map((_, i) => (i % 5) * 0.75);
  const bidVolumes = slice.map((_, i) => (i % 3) * 1.5 + 0.01);
  const lines = [HEADER, ...slice.map((t, i) => dukascopyLine(t.ts, t.bid, t.ask, askVolumes[i]!, bidVolumes[i]!))];

  it('imports a Dukascopy export (plain with CRLF, and gzip) back to exactly the source ticks, volume = ask + bid volume', async () => {
    const expected = expectedTicks(
      slice,
      'EURUSD',
      slice.map((_, i) => bidVolumes[i]! + askVolumes[i]!),
    );
    for (const gzip of [false, true]) {
      const path = tmp.write(`EURUSD_Ticks_01.05.2014-02.05.2014${gzip ? '.csv.gz' : '.csv'}`, lines, { gzip, eol: gzip ? '\n' : '\r\n' });
      const sink = new MemorySink();
      const report = await importTickFile({ path, format: 'dukascopy', symbol: 'EURUSD', sink });
      assert.equal(report.rows, slice.length);
      assert.equal(report.imported, slice.length);
      assert.equal(report.firstTs, slice[0]!.ts);
      assert.equal(report.lastTs, slice.at(-1)!.ts);
      assert.deepEqual(sink.ticks, expected);
    }
  });

  it('reports bad rows with their line numbers', async () => {
    const t0 = Date.parse('2014-05-01T00:00:00.100Z');
    const bad = [
      HEADER, // 1
      dukascopyLine(t0, '1.38676', '1.38686', 1, 1), // 2
      '01.05.2014 00:00:00.200,1.38686,1.38676,1', // 3 missing column
      dukascopyLine(t0 + 200, '1.38690', '1.38680', 1, 1), // 4 bid > ask: a crossed quote, imported
      dukascopyLine(t0 + 300, '1.38676', 'NaN', 1, 1), // 5
      '2014-05-01 00:00:00.400,1.38686,1.38676,1,1', // 6 ISO time, not Dukascopy's
      '32.05.2014 00:00:00.400,1.38686,1.38676,1,1', // 7 no such day
      dukascopyLine(t0 + 500, '1.38676', '1.38686', -1, 1), // 8 negative volume
      dukascopyLine(t0 - 1, '1.38676', '1.38686', 1, 1), // 9 backwards
      'Gmt time,Ask,Bid,AskVolume,BidVolume', // 10 repeated header: skipped
      'garbage', // 11
      dukascopyLine(t0 + 600, '1.38676', '1.38686', 0.5, 0.25), // 12
    ];
    const sink = new MemorySink();
    const report = await importTickFile({ path: tmp.write('bad.csv', bad, { gzip: true }), format: 'dukascopy', symbol: 'EURUSD', sink });
    assert.deepEqual(
      report.bad.map((b) => b.line),
      [3, 5, 6, 7, 8, 9, 11],
    );
    assert.deepEqual(
      report.bad.map((b) => b.reason.split(' ')[0]),
      ['expected', 'ask', 'time', 'time', 'AskVolume', 'time', 'expected'],
    );
    assert.match(report.bad[5]!.reason, /goes backwards/);
    assert.equal(report.rows, 10);
    assert.deepEqual(
      sink.ticks.map((t) => [t.ts - t0, t.volume]),
      [
        [0, 2],
        [200, 2],
        [600, 0.75],
      ],
    );
    assert.deepEqual([sink.ticks[1]!.bid, sink.ticks[1]!.ask], [1.3869, 1.3868]);
  });

  it('refuses local-time exports and candle exports, saying what to export instead', async () => {
    const local = tmp.write('local.csv', [
      'Local time,Ask,Bid,AskVolume,BidVolume',
      '01.05.2014 02:00:00.292 GMT+0200,1.38686,1.38676,1,1',
    ]);
    await assert.rejects(importTickFile({ path: local, format: 'dukascopy', symbol: 'EURUSD', sink: new MemorySink() }), (err: unknown) => {
      assert.ok(err instanceof UnprocessableError);
      assert.match(err.message, /local time.*export again with the time zone set to GMT/);
      return true;
    });
    const candles = tmp.write('candles.csv', ['Gmt time,Open,High,Low,Close,Volume', '01.05.2014 00:00:00.000,1,1,1,1,0']);
    await assert.rejects(
      importTickFile({ path: candles, format: 'dukascopy', symbol: 'EURUSD', sink: new MemorySink() }),
      /first line must be the Dukascopy tick header "Gmt time,Ask,Bid,AskVolume,BidVolume".*export ticks \(not candles\)/,
    );
  });
});
