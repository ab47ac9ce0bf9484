/**
 * TickLanes: per-symbol queues of undecoded items, shed on arrival when full, decoded only when
 * a lane can write. The codec here counts its decode calls, so the tests see exactly which
 * items were paid for.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Symbol } from '../../../schemas/common.ts';
import { createLogger } from '../../../src/log.ts';
import { TickLanes, type LaneCodec } from '../../../src/market/sources/tick-lanes.ts';
import type { TickColumns } from '../../../src/store/tick-columns.ts';
import { MemorySink } from './memory-sink.ts';

const log = createLogger('silent');

/** An item: `n` ticks from `ts` on, one per ms; it costs `n` units in the queue. */
interface Item {
  ts: number;
  n: number;
}

function countingCodec() {
  const decoded: Array<[Symbol, Item]> = [];
  const codec: LaneCodec<Item> = {
    size: (item) => item.n,
    records: (item) => item.n,
    decode(symbol, item, out: TickColumns) {
      decoded.push([symbol, item]);
      for (let k = 0; k < item.n; k++) out.push(item.ts + k, 0, 1.1, 1.1001, 0);
    },
  };
  return { codec, decoded };
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r));

describe('TickLanes', () => {
  it('writes at most maxBatch ticks per write, after maxDelayMs, in order, per symbol', async () => {
    const sink = new MemorySink();
    const { codec } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log, maxBatch: 3, maxDelayMs: 20 });
    lanes.offer('EURUSD', { ts: 1, n: 4 });
    lanes.offer('USDJPY', { ts: 1, n: 1 });
    await tick();
    assert.equal(sink.batches.length, 0, 'nothing before the delay');
    await lanes.flush();
    assert.deepEqual(
      sink.ticksOf('EURUSD').map((t) => t.ts),
      [1, 2, 3, 4],
    );
    assert.ok(sink.batches.every((b) => b.length <= 3));
    assert.equal(lanes.accepted, 5);
    assert.equal(lanes.pending(), 0);
    assert.equal(lanes.queued(), 0);
  });

  it("sheds items undecoded while a symbol's queue is full, counts them exactly, and keeps what it queued in order", async () => {
    const sink = new MemorySink();
    sink.hold();
    const { codec, decoded } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log, maxBatch: 10, maxDelayMs: 1, maxQueued: 25 });
    // The first item starts the pump: decoded and written (the write is held by the sink).
    lanes.offer('EURUSD', { ts: 1, n: 10 });
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(decoded.length, 1);
    assert.equal(lanes.pending(), 10, 'one batch in flight');
    // Now 100 items of 1 tick arrive while the write is stuck: 25 fit in the queue.
    for (let i = 0; i < 100; i++) lanes.offer('EURUSD', { ts: 100 + i, n: 1 });
    lanes.offer('GBPUSD', { ts: 1, n: 30 }); // bigger than the bound, but its queue is empty: kept
    lanes.offer('GBPUSD', { ts: 40, n: 1 }); // that queue is now over the bound: shed
    assert.equal(lanes.queued(), 26);
    assert.equal(lanes.shed, 76);
    assert.deepEqual(Object.fromEntries(lanes.shedBySymbol), { EURUSD: 75, GBPUSD: 1 });
    // Shed items were never decoded; queued ones are not decoded yet either (EURUSD's lane is busy).
    assert.deepEqual(
      decoded.filter(([s]) => s === 'EURUSD').map(([, item]) => item.ts),
      [1],
    );
    sink.release();
    await lanes.flush();
    assert.deepEqual(decoded.filter(([s]) => s === 'EURUSD').length, 26, 'each queued item decoded once');
    const eur = sink.ticksOf('EURUSD').map((t) => t.ts);
    assert.deepEqual(eur, [...Array.from({ length: 10 }, (_, i) => 1 + i), ...Array.from({ length: 25 }, (_, i) => 100 + i)]);
    assert.equal(lanes.accepted + lanes.shed, 10 + 100 + 30 + 1, 'every record is stored or counted as shed');
    // The lanes recover: a new item is written again.
    lanes.offer('EURUSD', { ts: 500, n: 1 });
    await lanes.flush();
    assert.equal(sink.ticksOf('EURUSD').at(-1)!.ts, 500);
  });

  it('loses nothing below capacity: many items, interleaved symbols, all stored in order with seq numbers', async () => {
    const sink = new MemorySink();
    const { codec, decoded } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log, maxBatch: 64, maxQueued: 1_000_000 });
    const symbols: Symbol[] = ['EURUSD', 'GBPUSD', 'USDJPY'];
    let offered = 0;
    for (let i = 0; i < 3000; i++) {
      const n = 1 + (i % 7);
      lanes.offer(symbols[i % 3]!, { ts: 10 * i, n });
      offered += n;
      if (i % 100 === 0) await tick();
    }
    await lanes.flush();
    assert.equal(lanes.shed, 0);
    assert.equal(decoded.length, 3000);
    assert.equal(lanes.accepted, offered);
    for (const symbol of symbols) {
      const ts = sink.ticksOf(symbol).map((t) => t.ts);
      assert.deepEqual(
        ts,
        [...ts].sort((a, b) => a - b),
        `${symbol} in order`,
      );
    }
  });

  it('skips ticks older than the previous one of their symbol, counting them as late', async () => {
    const sink = new MemorySink();
    const { codec } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log });
    lanes.offer('EURUSD', { ts: 100, n: 2 });
    lanes.offer('EURUSD', { ts: 50, n: 3 });
    lanes.offer('EURUSD', { ts: 101, n: 2 }); // 101 repeats the last ms: seq 1
    await lanes.flush();
    assert.deepEqual(
      sink.ticksOf('EURUSD').map((t) => [t.ts, t.seq]),
      [
        [100, 0],
        [101, 0],
        [101, 1],
        [102, 0],
      ],
    );
    assert.equal(lanes.late, 3);
  });

  it('counts a batch the sink refused as dropped, and carries on', async () => {
    const sink = new MemorySink();
    sink.failNext = 1;
    const { codec } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log, maxBatch: 2 });
    lanes.offer('EURUSD', { ts: 1, n: 4 });
    await lanes.flush();
    assert.equal(lanes.dropped, 2);
    assert.equal(lanes.accepted, 2);
    assert.deepEqual(
      sink.ticksOf('EURUSD').map((t) => t.ts),
      [3, 4],
    );
  });

  it('retries when asked to, for a sink that takes nothing in when it refuses', async () => {
    const sink = new MemorySink();
    sink.failNext = 2;
    const { codec } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log, maxBatch: 2, writeAttempts: 3 });
    lanes.offer('EURUSD', { ts: 1, n: 2 });
    await lanes.flush();
    assert.equal(sink.calls, 3);
    assert.equal(lanes.accepted, 2);
  });

  it('close() writes what is queued, then sheds (counts) what is offered later', async () => {
    const sink = new MemorySink();
    const { codec, decoded } = countingCodec();
    const lanes = new TickLanes(codec, { sink, log, maxDelayMs: 10_000 });
    lanes.offer('USDCAD', { ts: 1, n: 5 });
    await lanes.close();
    assert.equal(sink.count, 5);
    lanes.offer('USDCAD', { ts: 10, n: 3 });
    assert.equal(lanes.shed, 3);
    assert.equal(decoded.length, 1);
  });
});
