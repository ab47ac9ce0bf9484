/**
 * Probability of Backtest Overfitting by combinatorially symmetric cross-validation (Bailey,
 * Borwein, López de Prado & Zhu, "The Probability of Backtest Overfitting", Journal of
 * Computational Finance 20(4), 2017; SSRN 2015). The T × N matrix of the trials' returns is cut
 * into S equal slices of consecutive time steps; for every way of choosing S/2 slices as the
 * in-sample set (the rest out of sample), the trial with the best in-sample Sharpe is found and
 * its out-of-sample Sharpe ranked among all trials: ω = rank / (N + 1), logit λ = ln(ω / (1 − ω)).
 * PBO is the share of combinations with λ ≤ 0 — the in-sample winner landing in the bottom half
 * out of sample.
 *
 * Conventions: the T mod S last time steps are left out (equal slices); Sharpe = mean / sample
 * sd of the concatenated slices (±Infinity for a constant non-zero series, 0 for a constant 0);
 * the in-sample winner is the first trial among equal bests; out-of-sample ranks go from 1
 * (worst) to N (best), ties sharing the average of their ranks.
 */
import { runOffThread } from '../lib/off-thread.ts';

export interface Pbo {
  /** Share of combinations whose in-sample best ranks at or below the out-of-sample median. */
  pbo: number;
  /** λ per combination, in the order the combinations are enumerated (ascending bitmasks). */
  logits: number[];
  /** C(S, S/2). */
  combinations: number;
}

/** The slices in-sample, as bitmasks with S/2 bits set, ascending (Gosper's hack). */
export function halfMasks(slices: number): number[] {
  const half = slices / 2;
  const out: number[] = [];
  let mask = (1 << half) - 1;
  const limit = 1 << slices;
  while (mask < limit) {
    out.push(mask);
    const c = mask & -mask;
    const r = mask + c;
    mask = (((r ^ mask) >>> 2) / c) | r;
  }
  return out;
}

/** Sharpe of `count` values from their mean shift c and the sums of d = x − c and d² (the variance does not depend on c). */
const sharpeFrom = (c: number, sum: number, sumSq: number, count: number): number => {
  const mean = c + sum / count;
  const variance = Math.max(0, (sumSq - (sum * sum) / count) / (count - 1));
  if (variance > 0) return mean / Math.sqrt(variance);
  return mean > 0 ? Infinity : mean < 0 ? -Infinity : 0;
};

export function cscvPbo(matrix: readonly Float64Array[], slices = 16): Pbo {
  const trials = matrix.length;
  if (trials < 2) throw new RangeError(`cscvPbo: needs at least 2 trials, got ${trials}`);
  if (!(Number.isInteger(slices) && slices >= 2 && slices % 2 === 0 && slices <= 24)) {
    throw new RangeError(`cscvPbo: slices must be an even integer in 2…24, got ${slices}`);
  }
  const steps = Math.min(...matrix.map((row) => row.length));
  const size = Math.floor(steps / slices);
  if ((size * slices) / 2 < 2)
    throw new RangeError(`cscvPbo: ${steps} time steps are too few for ${slices} slices (each half needs ≥ 2 steps)`);
  // Per trial and slice: Σ(x − c) and Σ(x − c)², c the trial's mean, so the sums do not cancel.
  const sums = new Float64Array(trials * slices);
  const squares = new Float64Array(trials * slices);
  const centre = new Float64Array(trials);
  for (let n = 0; n < trials; n++) {
    const row = matrix[n]!;
    let total = 0;
    for (let t = 0; t < size * slices; t++) total += row[t]!;
    const c = total / (size * slices);
    centre[n] = c;
    for (let s = 0; s < slices; s++) {
      let sum = 0;
      let sq = 0;
      for (let t = s * size; t < (s + 1) * size; t++) {
        const d = row[t]! - c;
        sum += d;
        sq += d * d;
      }
      sums[n * slices + s] = sum;
      squares[n * slices + s] = sq;
    }
  }
  const totalSum = new Float64Array(trials);
  const totalSq = new Float64Array(trials);
  for (let n = 0; n < trials; n++) {
    for (let s = 0; s < slices; s++) {
      totalSum[n]! += sums[n * slices + s]!;
      totalSq[n]! += squares[n * slices + s]!;
    }
  }
  const count = (size * slices) / 2;
  const masks = halfMasks(slices);
  const logits: number[] = new Array(masks.length);
  const first = new Float64Array(trials);
  const second = new Float64Array(trials);
  /** λ of the combination whose in-sample Sharpes are `is` and out-of-sample ones `oos`. */
  const logitOf = (is: Float64Array, oos: Float64Array): number => {
    let best = 0;
    for (let n = 1; n < trials; n++) if (is[n]! > is[best]!) best = n;
    const mine = oos[best]!;
    let below = 0;
    let equal = 0;
    for (let n = 0; n < trials; n++) {
      if (oos[n]! < mine) below++;
      else if (oos[n] === mine) equal++;
    }
    const omega = (below + (equal + 1) / 2) / (trials + 1);
    return Math.log(omega / (1 - omega));
  };
  // The complement of a combination swaps its halves, and complementing reverses the ascending
  // order of the masks: masks[i] and masks[last − i] share one pass over the sums.
  const last = masks.length - 1;
  for (let i = 0; i <= last - i; i++) {
    const mask = masks[i]!;
    for (let n = 0; n < trials; n++) {
      let sum = 0;
      let sq = 0;
      for (let s = 0; s < slices; s++) {
        if (mask & (1 << s)) {
          sum += sums[n * slices + s]!;
          sq += squares[n * slices + s]!;
        }
      }
      const c = centre[n]!;
      first[n] = sharpeFrom(c, sum, sq, count);
      second[n] = sharpeFrom(c, totalSum[n]! - sum, totalSq[n]! - sq, count);
    }
    logits[i] = logitOf(first, second);
    if (last - i !== i) logits[last - i] = logitOf(second, first);
  }
  let overfit = 0;
  for (const l of logits) if (l <= 0) overfit++;
  return { pbo: overfit / masks.length, logits, combinations: masks.length };
}

/**
 * CSCV with the first of `choices` (slice counts, most first) the time steps allow; null when
 * none does. One call for a worker thread (cscvPboOffThread): the whole choice happens there.
 */
export function cscvPboFitting(matrix: readonly Float64Array[], choices: readonly number[]): (Pbo & { slices: number }) | null {
  for (const slices of choices) {
    try {
      return { ...cscvPbo(matrix, slices), slices };
    } catch (err) {
      if (!(err instanceof RangeError)) throw err;
    }
  }
  return null;
}

/**
 * cscvPboFitting on a worker thread (src/lib/off-thread.ts), the event loop free meanwhile: the
 * same result. The rows are copied (structured clone: ~1 ms for 1,000 rows of 260 here; packing
 * them into one buffer to move it cost ten times that).
 */
export function cscvPboOffThread(
  matrix: readonly Float64Array[],
  choices: readonly number[],
  signal?: AbortSignal,
): Promise<(Pbo & { slices: number }) | null> {
  return runOffThread(new URL(import.meta.url), 'cscvPboFitting', [matrix, choices], signal ? { signal } : {});
}
