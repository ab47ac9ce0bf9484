/**
 * Monte Carlo of the out-of-sample trades: the same number of trades drawn with replacement
 * from the strategy's own P&L (USD, at the request's capital and lot size), `runs` times. It asks
 * what the same trades in another order and mix could have done: the spread of final return and
 * of maximum drawdown, and how often the account would have lost half its capital on the way.
 * Drawdown is tradeStats' (schemas/backtest.ts TradeStats.mdd): closed-trade equity, the peak
 * starting at the capital, measured in capital.
 */
import type { MonteCarlo } from '../../schemas/robustness.ts';
import { quantileSorted } from './histogram.ts';
import { randomInt, seededRandom } from '../lib/seeded-random.ts';

export interface MonteCarloInput {
  /** Net USD P&L of each trade. */
  pnl: ArrayLike<number>;
  capital: number;
  runs?: number;
  seed: number;
  /** Points of the equity fan, at most (default and maximum FAN_POINTS). */
  fanPoints?: number;
}

/** Runs when none are asked for: the "at least 1,000". */
export const MONTE_CARLO_RUNS = 1000;
/** Points of the equity fan at most (the schema's MonteCarlo.fan): a smooth band on the model page, a small report whatever the trade count. */
export const FAN_POINTS = 100;
/** "Losing half the account": equity at or below this share of the capital. */
export const HALF_LOSS = 0.5;

/** Trade numbers (0 = before the first) of at most `points` fan points, evenly spread over 0…n. */
export function fanTrades(n: number, points: number): number[] {
  const p = Math.max(1, Math.min(points, n + 1));
  if (p === 1) return [0];
  const out: number[] = [];
  for (let j = 0; j < p; j++) {
    const k = Math.round((j * n) / (p - 1));
    if (out.length === 0 || out[out.length - 1] !== k) out.push(k);
  }
  return out;
}

export function monteCarlo(input: MonteCarloInput): MonteCarlo {
  const { capital, seed } = input;
  const pnl = Float64Array.from(input.pnl);
  const runs = input.runs ?? MONTE_CARLO_RUNS;
  const points = input.fanPoints ?? FAN_POINTS;
  if (!(Number.isFinite(capital) && capital > 0)) throw new RangeError(`monteCarlo: capital must be > 0, got ${capital}`);
  if (!(Number.isInteger(runs) && runs >= 1)) throw new RangeError(`monteCarlo: runs must be an integer ≥ 1, got ${runs}`);
  if (!(Number.isInteger(points) && points >= 1 && points <= FAN_POINTS))
    throw new RangeError(`monteCarlo: fanPoints must be an integer in 1…${FAN_POINTS}, got ${points}`);
  const n = pnl.length;
  const fan = fanTrades(n, points);
  const p = fan.length;
  const finals = new Float64Array(runs);
  const mdds = new Float64Array(runs);
  const fanEquity = new Float64Array(runs * p);
  const half = capital * HALF_LOSS;
  let halfLosses = 0;
  const random = seededRandom(seed);
  for (let r = 0; r < runs; r++) {
    let equity = capital;
    let peak = capital;
    let mdd = 0;
    let fell = capital <= half;
    let next = 0;
    const row = r * p;
    if (fan[0] === 0) fanEquity[row + next++] = capital;
    for (let k = 1; k <= n; k++) {
      equity += pnl[randomInt(random, n)]!;
      if (equity > peak) peak = equity;
      const dd = (equity - peak) / capital;
      if (dd < mdd) mdd = dd;
      if (equity <= half) fell = true;
      if (next < p && fan[next] === k) fanEquity[row + next++] = equity;
    }
    finals[r] = (equity - capital) / capital;
    mdds[r] = mdd + 0;
    if (fell) halfLosses++;
  }
  finals.sort();
  mdds.sort();
  const column = new Float64Array(runs);
  const fanOut = fan.map((trade, j) => {
    for (let r = 0; r < runs; r++) column[r] = fanEquity[r * p + j]!;
    column.sort();
    return { trade, p5: quantileSorted(column, 0.05), p50: quantileSorted(column, 0.5), p95: quantileSorted(column, 0.95) };
  });
  const pct = (xs: Float64Array) => ({ p5: quantileSorted(xs, 0.05), p50: quantileSorted(xs, 0.5), p95: quantileSorted(xs, 0.95) });
  return {
    runs,
    seed,
    final_return: pct(finals),
    max_drawdown: pct(mdds),
    prob_half_loss: halfLosses / runs,
    fan: fanOut,
  };
}
