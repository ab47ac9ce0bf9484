/**
 * The elementary steps of a recursive (Wilder / pandas ewm adjust=False) average and of the true
 * range, shared by the indicator registry's ATR (src/indicators/math.ts) and the position engine's
 * ATR trailing stop (src/backtest), so both compute ATR by one rule, to the last bit.
 */

/** pandas turns ewm(alpha=a) into com = (1 − a) / a, then back: alpha = 1 / (1 + com). */
export const givenAlpha = (a: number): number => 1 / (1 + (1 - a) / a);

/**
 * One step of Series.ewm(alpha, adjust=False).mean(): the average after value `v`,
 * y = ((1 − a)·y + a·v) / ((1 − a) + a), skipping the update when v equals y, as pandas' Cython does.
 */
export function ewmStep(y: number, v: number, alpha: number): number {
  const q = 1 - alpha;
  return y !== v ? (q * y + alpha * v) / (q + alpha) : y;
}

/** True range: high − low on the first bar (no previous close), else the largest of the three ranges. */
export function trueRange(high: number, low: number, prevClose: number | undefined): number {
  const range = high - low;
  if (prevClose === undefined) return range;
  return Math.max(range, Math.abs(high - prevClose), Math.abs(low - prevClose));
}
