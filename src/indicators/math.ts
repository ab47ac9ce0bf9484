/**
 * Numeric building blocks, written to match pandas step for step (same formulas, same order of
 * floating-point operations where it matters), so TS and the pandas snippets agree to ~1e-15.
 */
import { ewmStep, givenAlpha, trueRange } from '../lib/wilder.ts';

/** The seed of a recursive average counts for less than this (relative) once warm-up is over. */
export const SEED_TOLERANCE = 1e-12;

/** pandas turns ewm(span=n) into a centre of mass (n − 1) / 2, then alpha = 1 / (1 + com). */
export const spanAlpha = (span: number): number => 1 / (1 + (span - 1) / 2);

// The recursive-average step and the true range live in src/lib: the position engine's ATR trail uses them too.
export { ewmStep, givenAlpha, trueRange };

/**
 * RSI divides two small averages and scales to 0–100, so a seed weight of 1e-12 still moved it by up
 * to 2e-8 on real 1-minute bars; 1e-15 keeps it within ~2e-11 (EMA, MACD and ATR errors are 1e-12 of
 * a price difference, far below 1e-9).
 */
export const RSI_SEED_TOLERANCE = 1e-15;

/** Bars after which the seed's weight (1 − alpha)^k is at most `tolerance`. */
export function seedBars(alpha: number, tolerance = SEED_TOLERANCE): number {
  if (alpha >= 1) return 0;
  return Math.ceil(Math.log(tolerance) / Math.log(1 - alpha));
}

/**
 * Series.ewm(alpha, adjust=False).mean() from x[start] on (NaN before): seeded with x[start], then
 * y = ((1 − a)·y + a·x) / ((1 − a) + a), skipping the update when x equals y, as pandas' Cython does.
 */
export function ewm(x: Float64Array, alpha: number, start = 0): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  if (start >= x.length) return out;
  let y = x[start]!;
  out[start] = y;
  for (let i = start + 1; i < x.length; i++) out[i] = y = ewmStep(y, x[i]!, alpha);
  return out;
}

/** Applies `fn` to every full window of `n` values ending at i (NaN before the first). */
function rolling(x: Float64Array, n: number, fn: (from: number, to: number) => number): Float64Array {
  const out = new Float64Array(x.length).fill(NaN);
  for (let i = n - 1; i < x.length; i++) out[i] = fn(i - n + 1, i + 1);
  return out;
}

/** Window sums are recomputed per window, so a value never depends on bars before its window. */
function sum(x: ArrayLike<number>, from: number, to: number): number {
  let s = 0;
  for (let j = from; j < to; j++) s += x[j]!;
  return s;
}

/** Mean of x[from, to). */
export const windowMean = (x: ArrayLike<number>, from: number, to: number): number => sum(x, from, to) / (to - from);

/** Population standard deviation (ddof=0) of x[from, to), two-pass. */
export function windowStd(x: ArrayLike<number>, from: number, to: number): number {
  const mean = windowMean(x, from, to);
  let ss = 0;
  for (let j = from; j < to; j++) ss += (x[j]! - mean) ** 2;
  return Math.sqrt(ss / (to - from));
}

/** Largest of x[from, to) (NaN when one is NaN, as pandas' rolling max). */
export function windowMax(x: ArrayLike<number>, from: number, to: number): number {
  let m = -Infinity;
  for (let j = from; j < to; j++) {
    if (Number.isNaN(x[j]!)) return NaN;
    if (x[j]! > m) m = x[j]!;
  }
  return m;
}

/** Smallest of x[from, to) (NaN when one is NaN). */
export function windowMin(x: ArrayLike<number>, from: number, to: number): number {
  let m = Infinity;
  for (let j = from; j < to; j++) {
    if (Number.isNaN(x[j]!)) return NaN;
    if (x[j]! < m) m = x[j]!;
  }
  return m;
}

/**
 * windowMax (`higher`) or windowMin of the newest `n` values of a series that grows by one value
 * at a time, kept as values arrive: a value beaten by a newer one can never again be the extreme
 * of a window ending at the newest value, so only the others are queued and a step costs O(1) on
 * average instead of O(n). The same value the scan gives (NaN in the window: NaN; of equal values
 * the oldest, as the scan keeps the first), whatever `n` each step asks for.
 */
export class RunningExtreme {
  private readonly xs: number[] = [];
  /** Indices of the values that may still be an extreme, oldest first; their values in order, ties kept. */
  private readonly queue: number[] = [];
  /** Where the last window started in the queue (it moves back when a window grows). */
  private head = 0;
  private lastNaN = -1;
  constructor(private readonly higher: boolean) {}

  /** Appends `x`; the extreme of the newest `n` values, NaN while there are fewer. */
  push(x: number, n: number): number {
    const { xs, queue } = this;
    const t = xs.length;
    xs.push(x);
    if (x !== x) this.lastNaN = t;
    else {
      while (queue.length > 0 && (this.higher ? xs[queue[queue.length - 1]!]! < x : xs[queue[queue.length - 1]!]! > x)) queue.pop();
      queue.push(t);
    }
    if (t + 1 < n) return NaN;
    const from = t + 1 - n;
    if (this.lastNaN >= from) return NaN;
    // No NaN in the window: the newest value is queued, so a queued index from `from` on exists.
    let h = Math.min(this.head, queue.length - 1);
    while (h > 0 && queue[h - 1]! >= from) h--;
    while (queue[h]! < from) h++;
    this.head = h;
    return xs[queue[h]!]!;
  }
}

/** Linearly weighted mean of the `n` values ending at index t, the newest weighted n. */
export function windowWma(x: ArrayLike<number>, t: number, n: number): number {
  let acc = 0;
  for (let j = 0; j < n; j++) acc += x[t - j]! * (n - j);
  return acc / ((n * (n + 1)) / 2);
}

/** RSI from the averaged gain and loss: 50 when both are 0. */
export const rsiValue = (gain: number, loss: number): number => (gain + loss === 0 ? 50 : (100 * gain) / (gain + loss));

/** Stochastic %K from the close and the window's highest high and lowest low: 50 when the range is 0. */
export const stochK = (close: number, hh: number, ll: number): number => (hh === ll ? 50 : (100 * (close - ll)) / (hh - ll));

/** rolling(n).mean() */
export const rollingMean = (x: Float64Array, n: number): Float64Array => rolling(x, n, (a, b) => windowMean(x, a, b));

/** rolling(n).std(ddof=0): population standard deviation, two-pass per window. */
export const rollingStd = (x: Float64Array, n: number): Float64Array => rolling(x, n, (a, b) => windowStd(x, a, b));

/** rolling(n).max() */
export const rollingMax = (x: Float64Array, n: number): Float64Array => rolling(x, n, (a, b) => windowMax(x, a, b));

/** rolling(n).min() */
export const rollingMin = (x: Float64Array, n: number): Float64Array => rolling(x, n, (a, b) => windowMin(x, a, b));

/** Element-wise map over equal-length columns. */
export function map(n: number, fn: (i: number) => number): Float64Array {
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = fn(i);
  return out;
}
