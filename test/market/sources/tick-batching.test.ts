import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tick } from '../../../schemas/market.ts';
import { chunk, ColumnSequencer, SymbolSequencers, writeWithRetry } from '../../../src/market/sources/tick-batching.ts';
import { TickColumns } from '../../../src/store/tick-columns.ts';
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
    assert.deepEqual(
      a.ticks.map((t) => [t.ts, t.seq]),
      [
        [10, 0],
        [10, 1],
        [11, 0],
        [11, 1],
        [11, 2],
      ],
    );
    assert.deepEqual(
      a.ticks.map((t) => t.volume),
      [0, 0, 5, 0, 0],
    );
    // The next call continues the same millisecond; another symbol has its own numbering.
    assert.deepEqual(
      s.sequence('EURUSD', [m(11)]).ticks.map((t) => t.seq),
      [3],
    );
    assert.deepEqual(
      s.sequence('GBPUSD', [m(11)]).ticks.map((t) => t.seq),
      [0],
    );
  });

  it('skips ticks that go back in time, across calls', () => {
    const s = new SymbolSequencers();
    const a = s.sequence('EURUSD', [m(10), m(12), m(11), m(12)]);
    assert.deepEqual(
      a.ticks.map((t) => [t.ts, t.seq]),
      [
        [10, 0],
        [12, 0],
        [12, 1],
      ],
    );
    assert.equal(a.late, 1);
    assert.equal(s.sequence('EURUSD', [m(9)]).late, 1);
  });
});

describe('ColumnSequencer', () => {
  const columns = (...ts: number[]) => {
    const c = new TickColumns('EURUSD', 4);
    ts.forEach((t, i) => c.push(t, 99, 1 + i / 100, 2, 0));
    return c;
  };

  it('numbers the rows it is given like SymbolSequencers, and removes late ones in place', () => {
    const s = new ColumnSequencer();
    const c = columns(10, 10, 12, 11, 12);
    assert.equal(s.sequence(c, 0), 1);
    assert.deepEqual([...c.ts.subarray(0, c.length)], [10, 10, 12, 12]);
    assert.deepEqual([...c.seq.subarray(0, c.length)], [0, 1, 0, 1]);
    assert.deepEqual([...c.bid.subarray(0, c.length)], [1, 1.01, 1.02, 1.04], 'the other columns move with the rows');
    // Rows appended later continue the numbering; rows before `from` are left alone.
    c.push(12, 99, 3, 3, 0);
    c.push(9, 99, 3, 3, 0);
    assert.equal(s.sequence(c, 4), 1);
    assert.deepEqual([...c.seq.subarray(0, c.length)], [0, 1, 0, 1, 2]);
    const ref = new SymbolSequencers().sequence(
      'EURUSD',
      [10, 10, 12, 11, 12, 12, 9].map((t) => m(t)),
    );
    assert.deepEqual(
      ref.ticks.map((t) => [t.ts, t.seq]),
      [...c.ts.subarray(0, c.length)].map((t, i) => [t, c.seq[i]]),
    );
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

describe('writeWithRetry with columns', () => {
  it("uses the sink's columnar path when it has one, else writes the rows as ticks", async () => {
    const c = new TickColumns('GBPUSD', 2);
    c.push(5, 0, 1.27, 1.2701, 3);
    const plain = new MemorySink();
    assert.equal(await writeWithRetry(plain, c, { throttle, attempts: 1 }), true);
    assert.deepEqual(plain.ticks, [{ symbol: 'GBPUSD', ts: 5, seq: 0, bid: 1.27, ask: 1.2701, volume: 3 }]);
    const got: TickColumns[] = [];
    const columnar = { write: () => Promise.reject(new Error('not this one')), writeColumns: async (b: TickColumns) => void got.push(b) };
    assert.equal(await writeWithRetry(columnar, c, { throttle, attempts: 1 }), true);
    assert.equal(got[0], c, 'handed over as is');
  });
});
