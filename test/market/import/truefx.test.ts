import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BadRequestError } from '../../../src/errors.ts';
import { importTickFile } from '../../../src/market/import/index.ts';
import {
  MemorySink,
  TRUEFX_MANIFEST,
  TRUEFX_NORMALIZED,
  TRUEFX_ORIGINAL,
  expectedTicks,
  manifestRows,
  oandaTicks,
  onDays,
  readNormalizedTicks,
  tempDir,
  wallClock,
} from './fixtures.ts';

const tmp = tempDir();
after(() => tmp.remove());

/** A tick in TrueFX's own layout: `EUR/USD,20140501 00:00:00.292,bid,ask`. */
const trueFxLine = (ts: number, bid: string, ask: string, pair = 'EUR/USD'): string => {
  const w = wallClock(ts, 'UTC');
  return `${pair},${w.y}${w.mo}${w.d} ${w.h}:${w.mi}:${w.s}.${w.ms},${bid},${ask}`;
};

describe('truefx format', () => {
  it('imports the real TrueFX USDJPY sample (timestamp,bid,ask re-export) like its normalized copy', async () => {
    const sink = new MemorySink();
    const report = await importTickFile({ path: TRUEFX_ORIGINAL, format: 'truefx', symbol: 'USDJPY', sink });
    const rows = manifestRows(TRUEFX_MANIFEST, 'original/truefx-usdjpy-ticks.csv.gz');
    assert.equal(report.rows, rows);
    assert.equal(report.imported, rows);
    assert.equal(report.firstTs, Date.parse('2013-01-01T22:00:00.295Z'));
    assert.equal(report.lastTs, Date.parse('2013-01-01T22:35:13.494Z'));
    // The normalized copy was made by the data's curators, not by us: an independent reference.
    assert.deepEqual(sink.ticks, expectedTicks(readNormalizedTicks(TRUEFX_NORMALIZED), 'USDJPY'));
    assert.equal(sink.ticks.filter((t) => t.seq > 0).length, 7, 'the README counts 7 same-millisecond pairs');
  });

  it("imports TrueFX's own layout (plain and gzip) back to exactly the source ticks", async () => {
    const slice = onDays(oandaTicks(), '2014-05-01');
    const lines = slice.map((t) => trueFxLine(t.ts, t.bid, t.ask));
    for (const gzip of [false, true]) {
      const sink = new MemorySink();
      const path = tmp.write(`EURUSD-2014-05${gzip ? '.csv.gz' : '.csv'}`, lines, { gzip });
      const report = await importTickFile({ path, format: 'truefx', symbol: 'EURUSD', sink, batchSize: 1000 });
      assert.equal(report.imported, slice.length);
      assert.equal(report.badCount, 0);
      assert.deepEqual(sink.ticks, expectedTicks(slice, 'EURUSD'));
    }
  });

  it('reports bad rows, including rows of another pair, with their line numbers', async () => {
    const t0 = Date.parse('2014-05-01T00:00:00.100Z');
    const lines = [
      trueFxLine(t0, '1.38676', '1.38686'), // 1
      trueFxLine(t0 + 1, '1.7', '1.8', 'GBP/USD'), // 2 wrong pair
      'EUR/USD,20140501 00:00:00.200,1.38676', // 3 missing column
      trueFxLine(t0, '1.38690', '1.38680'), // 4 bid > ask: a crossed quote, imported (same ms as line 1: seq 1)
      trueFxLine(t0 + 3, 'NaN', '1.38680'), // 5
      'EUR/USD,2014-05-01 00:00:00.300,1.38676,1.38686', // 6 wrong time layout
      trueFxLine(t0, '1.38676', '1.38686'), // 7 same ms as lines 1 and 4: fine, seq 2
      trueFxLine(t0 - 50, '1.38676', '1.38686'), // 8 backwards
      'ÿgarbage,ü,€,x', // 9
      trueFxLine(t0 + 5, '1.38676', '1.38686', 'EURUSD'), // 10 pair without the slash is accepted
    ];
    const sink = new MemorySink();
    const report = await importTickFile({ path: tmp.write('bad-truefx.csv', lines), format: 'truefx', symbol: 'EURUSD', sink });
    assert.deepEqual(
      report.bad.map((b) => b.line),
      [2, 3, 5, 6, 8, 9],
    );
    assert.match(report.bad[0]!.reason, /pair 'GBP\/USD' is not the imported symbol EURUSD/);
    assert.match(report.bad[1]!.reason, /expected 4 columns .*found 3/);
    assert.match(report.bad[2]!.reason, /bid NaN/);
    assert.match(report.bad[3]!.reason, /is not YYYYMMDD HH:MM:SS\.mmm/);
    assert.match(report.bad[4]!.reason, /goes backwards/);
    assert.deepEqual(
      sink.ticks.map((t) => [t.ts - t0, t.seq]),
      [
        [0, 0],
        [0, 1],
        [0, 2],
        [5, 0],
      ],
    );
    assert.deepEqual([sink.ticks[1]!.bid, sink.ticks[1]!.ask], [1.3869, 1.3868]);
  });

  it('refuses a file whose name names another pair than --symbol', async () => {
    await assert.rejects(
      importTickFile({ path: TRUEFX_ORIGINAL, format: 'truefx', symbol: 'EURUSD', sink: new MemorySink() }),
      (err: unknown) => {
        assert.ok(err instanceof BadRequestError);
        assert.match(err.message, /names USDJPY but --symbol is EURUSD: pass --symbol USDJPY/);
        return true;
      },
    );
  });
});
