import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Tick } from '../../../schemas/market.ts';
import { BadRequestError } from '../../../src/errors.ts';
import { importTickFile, type TickFileFormat } from '../../../src/market/import/index.ts';
import type { TickSink } from '../../../src/market/tick-sink.ts';
import { MemorySink, oandaTicks, tempDir } from './fixtures.ts';

const tmp = tempDir();
after(() => tmp.remove());

const csvLines = (n: number, from = 0): string[] => [
  'ts_utc,bid,ask',
  ...oandaTicks()
    .slice(from, from + n)
    .map((t) => `${new Date(t.ts).toISOString()},${t.bid},${t.ask}`),
];

describe('importTickFile', () => {
  it('writes batches of batchSize one at a time, waiting for each (back-pressure)', async () => {
    const path = tmp.write('batches.csv', csvLines(2500));
    let inFlight = 0;
    let maxInFlight = 0;
    const batches: (readonly Tick[])[] = [];
    const slowSink: TickSink = {
      async write(ticks) {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        batches.push(ticks);
        await sleep(5);
        inFlight--;
      },
    };
    const report = await importTickFile({ path, format: 'csv', symbol: 'EURUSD', sink: slowSink, batchSize: 1000 });
    assert.equal(maxInFlight, 1);
    assert.deepEqual(
      batches.map((b) => b.length),
      [1000, 1000, 500],
    );
    assert.notEqual(batches[0], batches[1], 'each batch is its own array (a sink may keep it)');
    assert.equal(batches[0]![0]!.ts, report.firstTs);
    assert.equal(report.imported, 2500);
  });

  it('lists at most maxBadListed bad rows but counts them all, and cuts long lines', async () => {
    const good = csvLines(10);
    const lines = [good[0]!, ...Array.from({ length: 250 }, (_, i) => `junk ${i} ${'x'.repeat(i === 0 ? 500 : 0)}`), ...good.slice(1)];
    const path = tmp.write('many-bad.csv', lines);
    const report = await importTickFile({ path, format: 'csv', symbol: 'EURUSD', sink: new MemorySink() });
    assert.equal(report.bad.length, 100);
    assert.equal(report.badCount, 250);
    assert.equal(report.rows, 260);
    assert.equal(report.imported, report.rows - report.badCount);
    assert.deepEqual(
      report.bad.map((b) => b.line),
      Array.from({ length: 100 }, (_, i) => i + 2),
    );
    assert.equal(report.bad[0]!.text.length, 200);
    const few = await importTickFile({ path, format: 'csv', symbol: 'EURUSD', sink: new MemorySink(), maxBadListed: 3 });
    assert.equal(few.bad.length, 3);
    assert.equal(few.badCount, 250);
  });

  it('keeps seq consecutive when a bad row sits between ticks of one millisecond, and refuses future times', async () => {
    const lines = [
      'ts_utc,bid,ask',
      '2014-05-01T00:00:00.292Z,1.38676,1.38686',
      '2014-05-01T00:00:00.292Z,1.38686,0', // ask not positive: dropped
      '2014-05-01T00:00:00.292Z,1.38677,1.38686',
      '2099-01-01T00:00:00.000Z,1.38677,1.38686', // the future: a wrong zone or layout
      '2014-05-01T00:00:00.293Z,1.38677,1.38686',
    ];
    const sink = new MemorySink();
    const report = await importTickFile({ path: tmp.write('seq.csv', lines), format: 'csv', symbol: 'EURUSD', sink });
    assert.deepEqual(
      sink.ticks.map((t) => [t.ts % 1000, t.seq]),
      [
        [292, 0],
        [292, 1],
        [293, 0],
      ],
    );
    assert.deepEqual(
      report.bad.map((b) => b.line),
      [3, 5],
    );
    assert.match(report.bad[0]!.reason, /ask 0 is not a positive finite number/);
    assert.match(report.bad[1]!.reason, /in the future: check the file's time zone/);
  });

  it('imports crossed (ask < bid) and locked (ask = bid) quotes as they are, as vendors publish them', async () => {
    const lines = [
      'ts_utc,bid,ask',
      '2014-05-01T05:00:01.787Z,1.38727,1.38729',
      '2014-05-01T05:00:01.813Z,1.38730,1.38708', // crossed, as in FXCM's feed
      '2014-05-01T05:00:01.813Z,1.38726,1.38726', // locked, same millisecond: seq 1
    ];
    const sink = new MemorySink();
    const report = await importTickFile({ path: tmp.write('crossed.csv', lines), format: 'csv', symbol: 'EURUSD', sink });
    assert.equal(report.badCount, 0);
    assert.deepEqual(
      sink.ticks.map((t) => [t.ts % 1000, t.seq, t.bid, t.ask]),
      [
        [787, 0, 1.38727, 1.38729],
        [813, 0, 1.3873, 1.38708],
        [813, 1, 1.38726, 1.38726],
      ],
    );
  });

  it('reports an empty import with null first/last times', async () => {
    const report = await importTickFile({
      path: tmp.write('header-only.csv', ['ts_utc,bid,ask']),
      format: 'csv',
      symbol: 'EURUSD',
      sink: new MemorySink(),
    });
    assert.deepEqual([report.rows, report.imported, report.firstTs, report.lastTs], [0, 0, null, null]);
  });

  it('rejects bad options with the allowed values', async () => {
    const path = tmp.write('opts.csv', csvLines(1));
    const sink = new MemorySink();
    const cases: [Record<string, unknown>, RegExp][] = [
      [{ format: 'metatrader' }, /unknown tick file format "metatrader": use one of dukascopy, histdata, truefx, csv/],
      [{ symbol: 'EURGBP' }, /unknown symbol "EURGBP": use one of EURUSD/],
      [{ batchSize: 0 }, /batchSize must be a whole number ≥ 1/],
    ];
    for (const [override, message] of cases) {
      const options = { path, format: 'csv' as TickFileFormat, symbol: 'EURUSD' as const, sink, ...override } as Parameters<
        typeof importTickFile
      >[0];
      await assert.rejects(importTickFile(options), (err: unknown) => {
        assert.ok(err instanceof BadRequestError);
        assert.match(err.message, message);
        return true;
      });
    }
  });

  it('stops at the first failing write and passes the error on; earlier batches stay written', async () => {
    const path = tmp.write('sink-fails.csv', csvLines(300));
    let writes = 0;
    const failing: TickSink = {
      async write() {
        if (++writes === 2) throw new Error('store unavailable');
      },
    };
    await assert.rejects(importTickFile({ path, format: 'csv', symbol: 'EURUSD', sink: failing, batchSize: 100 }), /store unavailable/);
    assert.equal(writes, 2);
  });
});
