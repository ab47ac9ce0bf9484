import type { SeriesColumns } from '../store/index.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import { sourceCode } from '../store/index.ts';

const FIELDS = ['ts', 'open', 'high', 'low', 'close', 'volume', 'spread'] as const;
const MAX_CACHED_CANDLES = 50_000;

/**
 * One symbol/timeframe's bars held in memory as growable typed columns, sorted by time.
 * Appending the next bar is O(1) amortised; replacing or inserting an older one is rare.
 */
let seriesCount = 0;

export class BarSeries {
  /** Unique per series object: a reloaded series is another one, whatever its version. */
  readonly id = ++seriesCount;
  private cols: SeriesColumns;
  private n: number;
  /** Changes whenever a bar other than a new last one is written: derived values may be stale. */
  version = 0;
  /** Each served bar's candle JSON, by bar time: bars rarely change once closed, so a
   *  repeated read (the latest bars, by every chart) joins strings instead of printing numbers. */
  private readonly candleJson = new Map<number, string>();
  /** The last columns() handed out, while the bars held and their buffers are the same. */
  private view: Readonly<SeriesColumns> | null = null;

  constructor(initial: SeriesColumns) {
    this.cols = initial;
    this.n = initial.ts.length;
  }

  get length(): number {
    return this.n;
  }

  /** Changes whenever any bar of the series does (identity, version, length): what a cached response is built at. */
  get stamp(): string {
    return `${this.id}:${this.version}:${this.n}`;
  }

  /**
   * Columns trimmed to the bars held (views, not copies), the same object until a bar is added or
   * the columns grow: every deployed model of the series asks for them on every bar (10,000 models
   * made nine typed-array views each, several times a bar, a twentieth of an actor host's CPU).
   */
  columns(): Readonly<SeriesColumns> {
    const c = this.cols;
    const n = this.n;
    const view = this.view;
    if (view !== null && view.ts.length === n && view.ts.buffer === c.ts.buffer) return view;
    return (this.view = Object.freeze({
      ts: c.ts.subarray(0, n),
      open: c.open.subarray(0, n),
      high: c.high.subarray(0, n),
      low: c.low.subarray(0, n),
      close: c.close.subarray(0, n),
      volume: c.volume.subarray(0, n),
      spread: c.spread.subarray(0, n),
      ticks: c.ticks.subarray(0, n),
      source: c.source.subarray(0, n),
    }));
  }

  /** Index of the first bar at or after `ts`. */
  lowerBound(ts: number): number {
    const t = this.cols.ts;
    let lo = 0;
    let hi = this.n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t[mid]! < ts) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Bar `i` as the contract's OHLC candle, in JSON. */
  candle(i: number): string {
    const c = this.cols;
    const ts = c.ts[i]!;
    let json = this.candleJson.get(ts);
    if (json === undefined) {
      json = JSON.stringify({
        timestamp: isoFromMs(ts),
        open: c.open[i],
        high: c.high[i],
        low: c.low[i],
        close: c.close[i],
        volume: c.volume[i],
      });
      // Bounded: paging through a whole history must not keep it all as text.
      if (this.candleJson.size >= MAX_CACHED_CANDLES) this.candleJson.clear();
      this.candleJson.set(ts, json);
    }
    return json;
  }

  upsert(bar: BarMessage): void {
    this.candleJson.delete(bar.ts);
    const i = this.n > 0 && bar.ts > this.cols.ts[this.n - 1]! ? this.n : this.lowerBound(bar.ts);
    if (i < this.n && this.cols.ts[i] === bar.ts) {
      this.write(i, bar);
      this.version++;
      return;
    }
    if (i < this.n) this.version++;
    this.ensureCapacity(this.n + 1);
    if (i < this.n) {
      for (const f of FIELDS) this.cols[f].copyWithin(i + 1, i, this.n);
      this.cols.ticks.copyWithin(i + 1, i, this.n);
      this.cols.source.copyWithin(i + 1, i, this.n);
    }
    this.n++;
    this.write(i, bar);
  }

  private write(i: number, bar: BarMessage): void {
    const c = this.cols;
    c.ts[i] = bar.ts;
    c.open[i] = bar.open;
    c.high[i] = bar.high;
    c.low[i] = bar.low;
    c.close[i] = bar.close;
    c.volume[i] = bar.volume;
    c.spread[i] = bar.spread;
    c.ticks[i] = bar.ticks;
    c.source[i] = sourceCode(bar.source);
  }

  private ensureCapacity(size: number): void {
    if (size <= this.cols.ts.length) return;
    const capacity = Math.max(1024, Math.ceil(size * 1.5));
    const grow = <A extends Float64Array | Uint32Array | Uint8Array>(a: A, make: (n: number) => A): A => {
      const b = make(capacity);
      b.set(a.subarray(0, this.n));
      return b;
    };
    const f64 = (n: number) => new Float64Array(n);
    this.cols = {
      ts: grow(this.cols.ts, f64),
      open: grow(this.cols.open, f64),
      high: grow(this.cols.high, f64),
      low: grow(this.cols.low, f64),
      close: grow(this.cols.close, f64),
      volume: grow(this.cols.volume, f64),
      spread: grow(this.cols.spread, f64),
      ticks: grow(this.cols.ticks, (n) => new Uint32Array(n)),
      source: grow(this.cols.source, (n) => new Uint8Array(n)),
    };
  }
}
