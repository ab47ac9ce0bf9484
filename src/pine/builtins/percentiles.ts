/**
 * Percentiles and percent ranks, of a rolling window (ta.*) and of an array (array.*), with
 * TradingView's rules: na values sort after every number and count in the length; nearest rank is
 * the ceil(p·n/100)-th value; linear interpolation sits at the 1-based position n·p/100 + 0.5
 * between its two ranks (na once the array holds na, unless the position is a whole rank).
 */
import { arrayArg } from './core.ts';
import { length, num, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { hist } from './ta.ts';
import { NA, type Value } from '../runtime/values.ts';

function percentage(ctx: Ctx, v: Value | undefined, naAs: number): number {
  const p = v === undefined ? NaN : num(v);
  if (p !== p) return naAs;
  if (!(p >= 0 && p <= 100)) ctx.fail(`percentage must be between 0 and 100, got ${p}`);
  return p;
}

/** The ceil(p·n/100)-th smallest of n values (`sorted` holds their numbers; the rest are na). */
function nearestRank(sorted: number[], n: number, p: number): number {
  if (p === 0) return sorted.length > 0 ? sorted[0]! : NA;
  const rank = Math.max(1, Math.min(Math.ceil((p * n) / 100), n));
  return rank <= sorted.length ? sorted[rank - 1]! : NA;
}

function linearInterpolation(sorted: number[], n: number, p: number): number {
  if (p !== p) return NA;
  const m = sorted.length;
  let pos = (n * p) / 100 + 0.5;
  // A position a rounding error short of a whole rank is that rank.
  if (Math.abs(pos - Math.round(pos)) < 1e-9) pos = Math.round(pos);
  if (pos <= 1) return m > 0 ? sorted[0]! : NA;
  if (pos >= n) return m === n ? sorted[m - 1]! : NA;
  const lower = Math.floor(pos);
  const frac = pos - lower;
  if (frac === 0) return lower <= m ? sorted[lower - 1]! : NA;
  if (m < n) return NA;
  return sorted[lower - 1]! * (1 - frac) + sorted[lower]! * frac;
}

const numbersSorted = (xs: number[]): number[] => xs.filter((x) => x === x).sort((x, y) => x - y);

/** The share (in %) of the other values that are at most values[at] (na not counted, but in the length). */
function percentRank(values: number[], at: number): number {
  const v = values[at]!;
  if (values.length < 2 || v !== v) return NA;
  let count = 0;
  for (const x of values) if (x <= v) count++;
  return ((count - 1) * 100) / (values.length - 1);
}

/** ta.percentile_*(source, length, percentage): the window of the newest `length` values. */
function rolling(select: (sorted: number[], n: number, p: number) => number, naAs: number): Builtin {
  return {
    params: ['source', 'length', 'percentage'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const p = percentage(ctx, a[2], naAs);
      const xs = hist(ctx, a[0]);
      if (xs.length < n || xs[xs.length - 1] !== xs[xs.length - 1]) return NA;
      return select(numbersSorted(xs.slice(xs.length - n)), n, p);
    },
  };
}

function ofArray(select: (sorted: number[], n: number, p: number) => number, naAs: number): Builtin {
  return {
    params: ['id', 'percentage'],
    fn: (ctx, a) => {
      const items = arrayArg(ctx, a[0]).items.map((v) => num(v));
      return items.length === 0 ? NA : select(numbersSorted(items), items.length, percentage(ctx, a[1], naAs));
    },
  };
}

export const PERCENTILES: Record<string, Builtin> = {
  // An na percentage is 0 for the nearest rank and na for the interpolation, as TradingView answers.
  'ta.percentile_nearest_rank': rolling(nearestRank, 0),
  'ta.percentile_linear_interpolation': rolling(linearInterpolation, NaN),
  'array.percentile_nearest_rank': ofArray(nearestRank, 0),
  'array.percentile_linear_interpolation': ofArray(linearInterpolation, NaN),
  'ta.percentrank': {
    // The share (in %) of the `length` values before this one that are at most it.
    params: ['source', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0]);
      return xs.length <= n ? NA : percentRank(xs.slice(xs.length - n - 1).reverse(), 0);
    },
  },
  'array.percentrank': {
    params: ['id', 'index'],
    fn: (ctx, a) => {
      const items = arrayArg(ctx, a[0]).items.map((v) => num(v));
      if (items.length === 0) return NA;
      const at = a[1] === undefined || num(a[1]) !== num(a[1]) ? 0 : Math.trunc(num(a[1]));
      if (!(at >= 0 && at < items.length)) ctx.fail(`array index ${at} is out of bounds (size ${items.length})`);
      return percentRank(items, at);
    },
  },
};
