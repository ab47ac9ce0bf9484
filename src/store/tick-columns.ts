import type { Symbol } from '../../schemas/common.ts';
import type { Tick } from '../../schemas/market.ts';

/**
 * Ticks of one symbol held as columns (typed arrays), in time order: what the high-rate ingest
 * path decodes into, resamples from and stores, without one object per tick. At a million ticks
 * a second, objects that live until their insert completes are what the garbage collector pays
 * for; columns are a handful of allocations per batch, and they go to ClickHouse as they are.
 */
const BYTES_PER_ROW = 4 * 8 + 4;

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
    // One allocation for all five columns: a batch is a handful of objects, not five buffers.
    const n = Math.max(16, capacity);
    const buffer = new ArrayBuffer(n * BYTES_PER_ROW);
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
    const bigger = new TickColumns(this.symbol, Math.max(need, this.ts.length * 2));
    bigger.copyRows(this, 0, this.length);
    this.ts = bigger.ts;
    this.bid = bigger.bid;
    this.ask = bigger.ask;
    this.volume = bigger.volume;
    this.seq = bigger.seq;
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
