import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { UnprocessableError } from '../../../src/errors.ts';
import { importTickFile } from '../../../src/market/import/index.ts';
import { MemorySink, OANDA_EURUSD, OANDA_MANIFEST, expectedTicks, manifestRows, oandaTicks, onDays, tempDir } from './fixtures.ts';

const tmp = tempDir();
after(() => tmp.remove());

describe('csv format: the real OANDA EURUSD tick file', () => {
  it('imports every row of the file, equal to an independent read, with seq for same-millisecond ticks', async () => {
    const sink = new MemorySink();
    const report = await importTickFile({ path: OANDA_EURUSD, format: 'csv', symbol: 'EURUSD', sink });
    const rows = manifestRows(OANDA_MANIFEST, 'normalized/oanda_EURUSD_ticks_2014-05-01_2014-05-09.csv.gz');
    assert.equal(rows, 321_559);
    assert.deepEqual(
      { ...report, bad: report.bad.length },
      {
        file: OANDA_EURUSD,
        format: 'csv',
        symbol: 'EURUSD',
        rows,
        imported: rows,
        badCount: 0,
        bad: 0,
        firstTs: Date.parse('2014-05-01T00:00:00.292Z'),
        lastTs: Date.parse('2014-05-09T20:59:58.835Z'),
      },
    );
    assert.deepEqual(sink.ticks, expectedTicks(oandaTicks(), 'EURUSD'));
    // The shared data's README counts 2 848 ticks sharing the previous tick's millisecond.
    assert.equal(sink.ticks.filter((t) => t.seq > 0).length, 2848);
    assert.ok(
      sink.batchSizes.slice(0, -1).every((n) => n === 5000),
      'full batches of batchSize',
    );
  });

  it('numbers same-millisecond ticks the same way on every import of a file', async () => {
    const keys = async () => {
      const sink = new MemorySink();
      await importTickFile({ path: OANDA_EURUSD, format: 'csv', symbol: 'EURUSD', sink, batchSize: 777 });
      return sink.ticks.map((t) => `${t.ts}:${t.seq}:${t.bid}:${t.ask}`);
    };
    const [a, b] = [await keys(), await keys()];
    assert.deepEqual(a, b);
    assert.equal(new Set(a.map((k) => k.split(':').slice(0, 2).join(':'))).size, a.length, '(ts, seq) is unique');
  });
});

describe('csv format: variants and bad rows', () => {
  const slice = onDays(oandaTicks(), '2014-05-04');

  it('takes epoch-ms timestamps, volume columns in any order, offsets and CRLF', async () => {
    const volumes = slice.map((_, i) => (i % 4) * 0.5 + (i % 3));
    const lines = [
      'bid,ts_utc,ask,ask_volume,bid_volume',
      ...slice.map((t, i) => `${t.bid},${i % 2 ? t.ts : new Date(t.ts).toISOString()},${t.ask},${i % 3},${(i % 4) * 0.5}`),
    ];
    const path = tmp.write('epoch.csv', lines, { eol: '\r\n', gzip: true });
    const sink = new MemorySink();
    const report = await importTickFile({ path, format: 'csv', symbol: 'EURUSD', sink });
    assert.equal(report.badCount, 0);
    assert.deepEqual(sink.ticks, expectedTicks(slice, 'EURUSD', volumes));

    const offset = tmp.write('offset.csv', ['ts_utc,bid,ask', '2014-05-01T02:00:00.5+02:00,1.1,1.2', '2014-05-01T00:00:01Z,1.1,1.2']);
    const s2 = new MemorySink();
    await importTickFile({ path: offset, format: 'csv', symbol: 'EURUSD', sink: s2 });
    assert.deepEqual(
      s2.ticks.map((t) => t.ts),
      [Date.parse('2014-05-01T00:00:00.500Z'), Date.parse('2014-05-01T00:00:01Z')],
    );
  });

  it('reports bad rows with their line numbers and imports the rest', async () => {
    const good = slice.slice(0, 6).map((t) => `${new Date(t.ts).toISOString()},${t.bid},${t.ask}`);
    const lines = [
      'ts_utc,bid,ask', // 1
      good[0]!, // 2
      'garbage', // 3
      '2014-05-04T21:00:01.000Z,1.38', // 4 missing column
      good[1]!, // 5
      '2014-05-04T21:00:03.000Z,1.3875,1.3870', // 6 bid > ask: a crossed quote, imported
      '2014-05-04T21:00:03.000Z,NaN,1.3870', // 7
      '', // 8 blank: skipped, not a row
      good[2]!, // 9
      '2014-05-04T21:00:00.000Z,1.3870,1.3875', // 10 before line 9's tick
      '2014-05-04 21:00:03,1.3870,1.3875', // 11 no zone
      '1399237200,1.3870,1.3875', // 12 epoch seconds
      '2014-05-04T21:00:03.000Z,,1.3875', // 13 empty bid
      '2014-02-30T21:00:03.000Z,1.3870,1.3875', // 14 no such day
      'ts_utc,bid,ask', // 15 repeated header (concatenated files): skipped
      ...good.slice(3), // 16-18
    ];
    const path = tmp.write('bad.csv', lines);
    const sink = new MemorySink();
    const report = await importTickFile({ path, format: 'csv', symbol: 'EURUSD', sink });
    assert.deepEqual(
      report.bad.map((b) => b.line),
      [3, 4, 7, 10, 11, 12, 13, 14],
    );
    const reasons = Object.fromEntries(report.bad.map((b) => [b.line, b.reason]));
    assert.match(reasons[3]!, /expected 3 columns/);
    assert.match(reasons[4]!, /expected 3 columns .*found 2/);
    assert.match(reasons[7]!, /bid NaN is not a positive/);
    assert.match(reasons[10]!, /goes backwards/);
    assert.match(reasons[11]!, /neither ISO-8601 with a zone/);
    assert.match(reasons[12]!, /epoch seconds/);
    assert.match(reasons[13]!, /bid NaN/);
    assert.match(reasons[14]!, /neither ISO/);
    assert.equal(report.bad[0]!.text, 'garbage');
    assert.equal(report.rows, 15);
    assert.equal(report.imported, 7);
    assert.equal(report.badCount, 8);
    const crossed = { ts: Date.parse('2014-05-04T21:00:03.000Z'), bid: '1.3875', ask: '1.3870' };
    assert.deepEqual(sink.ticks, expectedTicks([...slice.slice(0, 2), crossed, ...slice.slice(2, 6)], 'EURUSD'));
  });

  it('refuses a file without the header, or a bar file, saying what to do', async () => {
    const noHeader = tmp.write('noheader.csv', ['2014-05-04T21:00:01.000Z,1.38,1.39']);
    await assert.rejects(importTickFile({ path: noHeader, format: 'csv', symbol: 'EURUSD', sink: new MemorySink() }), (err: unknown) => {
      assert.ok(err instanceof UnprocessableError);
      assert.match(err.message, /needs the header "ts_utc,bid,ask/);
      return true;
    });
    const bars = tmp.write('bars.csv', ['ts_utc,bid_open,bid_high,bid_low,bid_close', '2014-05-04T21:00:00Z,1,1,1,1']);
    await assert.rejects(importTickFile({ path: bars, format: 'csv', symbol: 'EURUSD', sink: new MemorySink() }), /looks like a bar file/);
  });
});
