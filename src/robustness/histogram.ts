/** Percentiles and histograms of simulated outcomes (random baseline, Monte Carlo). */
import type { Histogram } from '../../schemas/robustness.ts';

/**
 * The q-quantile (0 ≤ q ≤ 1) of values sorted ascending, interpolating linearly between the
 * order statistics at (n − 1)·q (numpy's default, Hyndman & Fan type 7). 0 for no values.
 */
export function quantileSorted(sorted: ArrayLike<number>, q: number): number {
  const n = sorted.length;
  if (n === 0) return 0;
  const h = (n - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, n - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Bins of the report's histograms: ~50 of 1,000 runs a bin shows the distribution's shape without noise, and 20 bars read at a glance. */
export const HISTOGRAM_BINS = 20;

/** Equal-width bins over [min, max] of the values; the last bin also holds the maximum. */
export function histogram(values: ArrayLike<number>, bins = HISTOGRAM_BINS): Histogram {
  const n = values.length;
  if (n === 0) return { edges: [0, 0], counts: [0] };
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = values[i]!;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  // All alike: one bin just wide enough to hold them, so edges stay ascending.
  if (!(max > min)) return { edges: [min, min + Math.max(Math.abs(min), 1) * 1e-9], counts: [n] };
  const width = (max - min) / bins;
  const counts = new Array<number>(bins).fill(0);
  for (let i = 0; i < n; i++) counts[Math.min(bins - 1, Math.floor((values[i]! - min) / width))]!++;
  const edges = Array.from({ length: bins + 1 }, (_, i) => (i === bins ? max : min + i * width));
  return { edges, counts };
}
