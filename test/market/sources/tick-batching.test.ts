import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tick } from '../../../schemas/market.ts';
import { chunk, SymbolSequencers, writeWithRetry } from '../../../src/market/sources/tick-batching.ts';
import { TickLanes } from '../../../src/market/sources/tick-lanes.ts';
import { createLogger } from '../../../src/log.ts';
import { LogThrottle } from '../../../src/market/sources/log-throttle.ts';
import { MemorySink } from './memory-sink.ts';

const log = createLogger('silent');
const throttle = new LogThrottle(log);
const m = (ts: number, bid = 1.1, ask = 1.2) => ({ ts, bid, ask });

describe('SymbolSequencers', () => {
  it('numbers ticks sharing a millisecond per symbol and sums volumes', () => {
    const s = new SymbolSequencers();
    const a = s.sequence('EURUSD', [m(10), m(10), { ...m(11), bid_volume: 2, ask_volume: 3 }, m(11), m(11)]);
    assert.deepEqual(a.ticks.map((t) => [t.ts, t.seq]), [[10, 0], [10, 1], [11, 0], [11, 1], [11, 2]]);
    assert.deepEqual(a.ticks.map((t) => t.volume), [0, 0, 5, 0, 0]);
    // The next call continues the same millisecond; another symbol has its own numbering.
    assert.deepEqual(s.sequence('EURUSD', [m(11)]).ticks.map((t) => t.seq), [3]);
    assert.deepEqual(s.sequence('GBPUSD', [m(11)]).ticks.map((t) => t.seq), [0]);
  });

  it('skips ticks that go back in time, across calls', () => {
    const s = new SymbolSequencers();
    const a = s.sequence('EURUSD', [m(10), m(12), m(11), m(12)]);
    assert.deepEqual(a.ticks.map((t) => [t.ts, t.seq]), [[10, 0], [12, 0], [12, 1]]);
    assert.equal(a.late, 1);
    assert.equal(s.sequence('EURUSD', [m(9)]).late, 1);
  });

  it('stops at the limit without spending seq numbers on the overflow', () => {
    const s = new SymbolSequencers();
    const a = s.sequence('EURUSD', [m(10), m(10), m(10), m(10)], 2);
    assert.equal(a.ticks.length, 2);
    assert.equal(a.overflow, 2);
    assert.deepEqual(s.sequence('EURUSD', [m(10)]).ticks.map((t) => t.seq), [2]);
  });
});

describe('chunk', () => {
  it('cuts into slices of at most n', () => {
    assert.deepEqual(chunk([1, 2, 3, 4, 5], 2), [[1, 2], [3, 4], [5]]);
    assert.deepEqual(chunk([], 3), []);
  });
});

describe('writeWithRetry', () => {
  const batch: Tick[] = [{ symbol: 'EURUSD', ts: 1, seq: 0, bid: 1, ask: 1, volume: 0 }];

  it('retries a failing sink until it accepts', async () => {
    const sink = new MemorySink();
    sink.failNext = 2;
    assert.equal(await writeWithRetry(sink, batch, { throttle, attempts: 5, baseDelayMs: 1 }), true);
    assert.equal(sink.calls, 3);
    assert.equal(sink.ticks.length, 1);
  });

  it('gives up after the attempts, and stops at once when aborted', async () => {
    const sink = new MemorySink();
    sink.failNext = 100;
    assert.equal(await writeWithRetry(sink, batch, { throttle, attempts: 3, baseDelayMs: 1 }), false);
    assert.equal(sink.calls, 3);
    const abort = new AbortController();
    const pending = writeWithRetry(sink, batch, { throttle, attempts: Infinity, baseDelayMs: 10_000, signal: abort.signal });
    setTimeout(() => abort.abort(), 20);
    assert.equal(await pending, false);
  });
});

describe('TickLanes', () => {
  it('flushes at maxBatch and after maxDelayMs, in order, per symbol', async () => {
    const sink = new MemorySink();
    const lanes = new TickLanes({ sink, log, maxBatch: 3, maxDelayMs: 20 });
    lanes.add('EURUSD', [m(1), m(2), m(3), m(4)]);
    lanes.add('USDJPY', [m(1, 150, 150.01)]);
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(sink.batches.map((b) => b.map((t) => t.ts)), [[1, 2, 3]], 'a full batch leaves at once');
    await new Promise((r) => setTimeout(r, 60));
    assert.equal(sink.batches.length, 3, 'the rest leaves after the delay');
    assert.deepEqual(sink.ticksOf('EURUSD').map((t) => t.ts), [1, 2, 3, 4]);
    assert.equal(lanes.accepted, 5);
    assert.equal(lanes.pending(), 0);
  });

  it('holds at most maxPending ticks per symbol while the sink is stuck, then recovers', async () => {
    const sink = new MemorySink();
    sink.hold();
    const lanes = new TickLanes({ sink, log, maxBatch: 10, maxDelayMs: 1, maxPending: 25 });
    for (let i = 1; i <= 100; i++) lanes.add('EURUSD', [m(i)]);
    assert.equal(lanes.pending(), 25);
    assert.equal(lanes.dropped, 75);
    sink.release();
    await lanes.flush();
    assert.equal(lanes.accepted, 25);
    assert.deepEqual(sink.ticksOf('EURUSD').map((t) => t.ts), Array.from({ length: 25 }, (_, i) => i + 1));
    lanes.add('EURUSD', [m(200)]);
    await lanes.close();
    assert.equal(lanes.accepted, 26);
    lanes.add('EURUSD', [m(201)]);
    assert.equal(lanes.dropped, 76, 'ticks after close are counted, not kept');
  });

  it('does not write a refused batch again by default (the sink took it in), and carries on', async () => {
    const sink = new MemorySink();
    sink.failNext = 1;
    const lanes = new TickLanes({ sink, log, maxBatch: 2 });
    lanes.add('EURUSD', [m(1), m(2), m(3), m(4)]);
    await lanes.flush();
    assert.equal(sink.calls, 2);
    assert.equal(lanes.dropped, 2);
    assert.equal(lanes.accepted, 2);
    assert.deepEqual(sink.ticksOf('EURUSD').map((t) => t.ts), [3, 4]);
  });

  it('retries when asked to, for a sink that takes nothing in when it refuses', async () => {
    const sink = new MemorySink();
    sink.failNext = 2;
    const lanes = new TickLanes({ sink, log, maxBatch: 2, writeAttempts: 3 });
    lanes.add('EURUSD', [m(1), m(2)]);
    await lanes.flush();
    assert.equal(sink.calls, 3);
    assert.equal(lanes.accepted, 2);
  });
});
