/**
 * Which of stop-loss and take-profit came first inside a bar that reached both, told by finer
 * bars (1-min under 15-min or 1-hour). The finer bars in [from, to) are walked in time order;
 * the first that reaches a level decides:
 *   - it opens beyond a level (a gap at its open): that level came first (its open is its first price);
 *   - it reaches only one level: that one;
 *   - it reaches both from an open between them: cannot tell → SL (conservative);
 *   - no finer bar reaches either (missing or inconsistent data): cannot tell → SL.
 * Only the order is decided here; the engine fills at the level (a gap at a finer bar's open
 * still fills at the level — only a gap at the coarse bar's own open fills at that open).
 */
import type { BarColumns, FirstTouch, IntrabarResolver } from './types.ts';

/** Index of the first element ≥ t in a sorted array. */
export function lowerBound(ts: Float64Array, t: number): number {
  let lo = 0;
  let hi = ts.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (ts[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One finer bar (prices already offset) against the two levels: 'SL', 'TP', or null when it reaches neither. */
function touch(open: number, high: number, low: number, long: boolean, stop: number, take: number): FirstTouch | null {
  if (long) {
    if (open <= stop) return 'SL';
    if (open >= take) return 'TP';
    const s = low <= stop;
    const t = high >= take;
    if (s) return 'SL'; // with or without t: both in one finer bar cannot be told apart
    return t ? 'TP' : null;
  }
  if (open >= stop) return 'SL';
  if (open <= take) return 'TP';
  const s = high >= stop;
  const t = low <= take;
  if (s) return 'SL';
  return t ? 'TP' : null;
}

/** A resolver over finer bars (sorted by ts, same bid + spread convention as the coarse bars). */
export function finerBarResolver(finer: BarColumns): IntrabarResolver {
  const { ts, open, high, low } = finer;
  return {
    firstTouch(from, to, long, stop, take, offset) {
      for (let j = lowerBound(ts, from); j < ts.length && ts[j]! < to; j++) {
        const hit = touch(open[j]! + offset, high[j]! + offset, low[j]! + offset, long, stop, take);
        if (hit !== null) return hit;
      }
      return 'SL';
    },
  };
}
