/**
 * Synthetic markets with a known truth for the robustness tests: a Gaussian random walk (no
 * edge anywhere), each bar opening at the last close so a trade's P&L is only the moves it held.
 */
import type { BarColumns } from '../../src/backtest/index.ts';
import { seededRandom, type Random } from '../../src/lib/seeded-random.ts';

export const HOUR = 3_600_000;
export const MONDAY = Date.UTC(2024, 0, 8);

/** A standard normal draw (Box–Muller). */
export function gaussian(random: Random): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** `n` hourly bars of a random walk with per-bar sd `vol` (price units), constant `spread`. */
export function randomWalk(n: number, seed: number, { start = 1.1, vol = 0.0008, spread = 0.00008, step = HOUR } = {}): BarColumns {
  const random = seededRandom(seed);
  const bars: BarColumns = {
    ts: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    spread: new Float64Array(n).fill(spread),
  };
  let price = start;
  for (let i = 0; i < n; i++) {
    const open = price;
    price += vol * gaussian(random);
    bars.ts[i] = MONDAY + i * step;
    bars.open[i] = open;
    bars.close[i] = price;
    bars.high[i] = Math.max(open, price) + vol * 0.2 * random();
    bars.low[i] = Math.min(open, price) - vol * 0.2 * random();
  }
  return bars;
}

/** Signals with no information: −1 / 1 on a share `busy` of the bars, 0 elsewhere. */
export function noiseSignals(n: number, seed: number, busy = 0.1): Int8Array {
  const random = seededRandom(seed);
  return Int8Array.from({ length: n }, () => (random() < busy ? (random() < 0.5 ? 1 : -1) : 0));
}

/**
 * Signals with a planted edge: on a share `busy` of the bars, the side of the next bar's move
 * with probability `hit` (the engine enters at the next open, so it holds that move).
 */
export function edgeSignals(bars: BarColumns, seed: number, { busy = 0.5, hit = 0.6 } = {}): Int8Array {
  const random = seededRandom(seed);
  const n = bars.ts.length;
  const out = new Int8Array(n);
  for (let i = 0; i + 1 < n; i++) {
    if (random() >= busy) continue;
    const up = bars.close[i + 1]! > bars.open[i + 1]! ? 1 : -1;
    out[i] = random() < hit ? up : -up;
  }
  return out;
}

/** The Kolmogorov–Smirnov statistic of a sample against the uniform distribution on [0, 1]. */
export function ksUniform(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  let d = 0;
  sorted.forEach((v, i) => {
    d = Math.max(d, (i + 1) / n - v, v - i / n);
  });
  return d;
}
