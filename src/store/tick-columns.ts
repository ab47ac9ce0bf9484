import type { Symbol } from '../../schemas/common.ts';
import type { Tick } from '../../schemas/market.ts';

const BYTES_PER_ROW = 4 * 8 + 4;
const MIN_ROWS = 256;

/**
 * Memory of released columns, by row capacity (powers of two), for later batches. Fresh
 * ArrayBuffers at tens of MB a second count as external memory, and V8 answers that with full
 * garbage collections of the whole heap; reused ones cost nothing.
 */
const pool = new Map<number, ArrayBuffer[]>();
const POOL_MAX_BYTES = 64 * 2 ** 20;
let pooledBytes = 0;

/**
 * Ticks of one symbol held as columns (typed arrays), in time order: what the high-rate ingest
 * path decodes into, resamples from and stores, without one object per tick. At a million ticks
 * a second, objects that live until their insert completes are what the garbage collector pays
 * for; columns are one buffer per batch (reused once released), and they go to ClickHouse as
 * they are.
 */
export class TickColumns {
  length = 0;
  ts: Float64Array;
  seq: Uint32Array;
  bid: Float64Array;
  ask: Float64Array;
  volume: Float64Array;

  constructor(
    readonly symbol: Symbol,
    capacity = 1024,
  ) {
    // One buffer for all five columns, its row count a power of two so that buffers recycle.
    const n = 2 ** Math.ceil(Math.log2(Math.max(MIN_ROWS, capacity)));
    const reused = pool.get(n)?.pop();
    if (reused) pooledBytes -= reused.byteLength;
    const buffer = reused ?? new ArrayBuffer(n * BYTES_PER_ROW);
    this.ts = new Float64Array(buffer, 0, n);
    this.bid = new Float64Array(buffer, 8 * n, n);
    this.ask = new Float64Array(buffer, 16 * n, n);
    this.volume = new Float64Array(buffer, 24 * n, n);
    this.seq = new Uint32Array(buffer, 32 * n, n);
  }

  get capacity(): number {
    return this.ts.length;
  }

  /** Makes room for `extra` more rows. */
  reserve(extra: number): void {
    const need = this.length + extra;
    if (need <= this.ts.length) return;
    const rows = this.length;
    const bigger = new TickColumns(this.symbol, Math.max(need, this.ts.length * 2));
    bigger.copyRows(this, 0, rows);
    this.release();
    ({ ts: this.ts, bid: this.bid, ask: this.ask, volume: this.volume, seq: this.seq } = bigger);
    this.length = rows;
  }

  /** Appends rows [from, to) of `other`. */
  copyRows(other: TickColumns, from: number, to: number): void {
    const n = to - from;
    this.reserve(n);
    const at = this.length;
    this.ts.set(other.ts.subarray(from, to), at);
    this.bid.set(other.bid.subarray(from, to), at);
    this.ask.set(other.ask.subarray(from, to), at);
    this.volume.set(other.volume.subarray(from, to), at);
    this.seq.set(other.seq.subarray(from, to), at);
    this.length = at + n;
  }

  /** The rows [from, to) as columns of their own, exactly sized. */
  slice(from: number, to: number): TickColumns {
    const out = new TickColumns(this.symbol, to - from);
    out.copyRows(this, from, to);
    return out;
  }

  /**
   * Gives the memory back for later batches. The last holder calls it (the tick writer, once
   * the batch is stored); the columns are empty afterwards and must not be used again.
   */
  release(): void {
    const buffer = this.ts.buffer as ArrayBuffer;
    this.length = 0;
    this.ts = this.bid = this.ask = this.volume = new Float64Array(0);
    this.seq = new Uint32Array(0);
    if (buffer.byteLength === 0 || pooledBytes + buffer.byteLength > POOL_MAX_BYTES) return;
    const rows = buffer.byteLength / BYTES_PER_ROW;
    let list = pool.get(rows);
    if (!list) pool.set(rows, (list = []));
    list.push(buffer);
    pooledBytes += buffer.byteLength;
  }

  /** Removes the first `n` rows. */
  dropFront(n: number): void {
    for (const column of [this.ts, this.bid, this.ask, this.volume, this.seq]) column.copyWithin(0, n, this.length);
    this.length -= n;
  }

  /** Appends one row (call reserve first for many). */
  push(ts: number, seq: number, bid: number, ask: number, volume: number): void {
    if (this.length === this.ts.length) this.reserve(1);
    const i = this.length++;
    this.ts[i] = ts;
    this.seq[i] = seq;
    this.bid[i] = bid;
    this.ask[i] = ask;
    this.volume[i] = volume;
  }

  /** Moves row `from` to row `to` (to < from), for in-place filtering. */
  move(from: number, to: number): void {
    this.ts[to] = this.ts[from]!;
    this.seq[to] = this.seq[from]!;
    this.bid[to] = this.bid[from]!;
    this.ask[to] = this.ask[from]!;
    this.volume[to] = this.volume[from]!;
  }

  tick(i: number): Tick {
    return { symbol: this.symbol, ts: this.ts[i]!, seq: this.seq[i]!, bid: this.bid[i]!, ask: this.ask[i]!, volume: this.volume[i]! };
  }

  toTicks(): Tick[] {
    const out: Tick[] = new Array(this.length);
    for (let i = 0; i < this.length; i++) out[i] = this.tick(i);
    return out;
  }

  /** Columns from tick objects: one TickColumns per run of the same symbol, order kept. */
  static fromTicks(ticks: readonly Tick[]): TickColumns[] {
    const out: TickColumns[] = [];
    let current: TickColumns | null = null;
    for (let i = 0; i < ticks.length; i++) {
      const t = ticks[i]!;
      if (current?.symbol !== t.symbol) {
        let run = i + 1;
        while (run < ticks.length && ticks[run]!.symbol === t.symbol) run++;
        out.push((current = new TickColumns(t.symbol, run - i)));
      }
      current.push(t.ts, t.seq, t.bid, t.ask, t.volume);
    }
    return out;
  }
}
