import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Tick } from '../../schemas/market.ts';
import { TickColumns } from '../../src/store/tick-columns.ts';

const tick = (symbol: Tick['symbol'], ts: number, seq = 0): Tick => ({
  symbol,
  ts,
  seq,
  bid: ts / 1000,
  ask: ts / 1000 + 0.0002,
  volume: seq,
});
const rows = (c: TickColumns) => c.toTicks();

describe('TickColumns', () => {
  it('round-trips tick objects, one TickColumns per run of a symbol, order kept', () => {
    const ticks = [tick('EURUSD', 1), tick('EURUSD', 1, 1), tick('GBPUSD', 2), tick('EURUSD', 3)];
    const cols = TickColumns.fromTicks(ticks);
    assert.deepEqual(
      cols.map((c) => [c.symbol, c.length]),
      [
        ['EURUSD', 2],
        ['GBPUSD', 1],
        ['EURUSD', 1],
      ],
    );
    assert.deepEqual(cols.flatMap(rows), ticks);
    assert.deepEqual(TickColumns.fromTicks([]), []);
  });

  it('grows past its capacity, keeping the rows it holds', () => {
    const c = new TickColumns('USDJPY', 16);
    for (let i = 0; i < 1000; i++) c.push(i, i % 3, 150 + i, 150.01 + i, i / 2);
    assert.ok(c.capacity >= 1000);
    assert.deepEqual(c.tick(999), { symbol: 'USDJPY', ts: 999, seq: 0, bid: 1149, ask: 1149.01, volume: 499.5 });
    assert.deepEqual(c.tick(0), { symbol: 'USDJPY', ts: 0, seq: 0, bid: 150, ask: 150.01, volume: 0 });
  });

  it('slices, drops a front and moves rows without mixing columns', () => {
    const c = new TickColumns('AUDUSD', 4);
    for (let i = 0; i < 10; i++) c.push(100 + i, i, 0.6 + i, 0.7 + i, i);
    const front = c.slice(0, 4);
    assert.equal(front.capacity, 256, 'sized to its rows: a power of two, 256 at least');
    assert.deepEqual(
      rows(front).map((t) => t.ts),
      [100, 101, 102, 103],
    );
    c.dropFront(4);
    assert.deepEqual(
      rows(c).map((t) => [t.ts, t.seq, t.volume]),
      [
        [104, 4, 4],
        [105, 5, 5],
        [106, 6, 6],
        [107, 7, 7],
        [108, 8, 8],
        [109, 9, 9],
      ],
    );
    c.move(5, 0);
    assert.deepEqual(c.tick(0), { symbol: 'AUDUSD', ts: 109, seq: 9, bid: 0.6 + 9, ask: 0.7 + 9, volume: 9 });
    assert.deepEqual(
      rows(front).map((t) => t.ts),
      [100, 101, 102, 103],
      'a slice is a copy',
    );
  });

  it('gives its memory back on release, for the next batch of the same size', () => {
    const a = new TickColumns('EURUSD', 3000);
    a.push(1, 0, 1.1, 1.2, 0);
    const buffer = a.ts.buffer;
    a.release();
    assert.equal(a.length, 0);
    assert.equal(a.capacity, 0, 'nothing left to write into');
    const b = new TickColumns('GBPUSD', 4096);
    assert.equal(b.ts.buffer, buffer, 'the same memory, reused');
    b.push(2, 0, 1.3, 1.4, 0);
    assert.deepEqual(b.toTicks(), [{ symbol: 'GBPUSD', ts: 2, seq: 0, bid: 1.3, ask: 1.4, volume: 0 }]);
  });
});
