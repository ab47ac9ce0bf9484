/**
 * How much of the in-sample performance survives out of sample, across trials: the least-squares
 * line oos = intercept + slope · is. A slope near 1 means better in-sample trials stay better out of
 * sample; near 0 or negative, the in-sample ranking was noise (or worse, overfitting rewarded).
 */
export interface Degradation {
  /** Points used (pairs with both values finite). */
  n: number;
  /** null when fewer than two points, or every in-sample value is the same. */
  slope: number | null;
  intercept: number | null;
  /** Share of the out-of-sample variance the line explains, 0…1; null with the slope, 0 when out of sample is constant. */
  r2: number | null;
}

export function degradation(inSample: ArrayLike<number>, outOfSample: ArrayLike<number>): Degradation {
  if (inSample.length !== outOfSample.length)
    throw new RangeError(`degradation: ${inSample.length} in-sample values against ${outOfSample.length} out-of-sample`);
  const xs: number[] = [];
  const ys: number[] = [];
  for (let i = 0; i < inSample.length; i++) {
    const x = inSample[i]!;
    const y = outOfSample[i]!;
    if (Number.isFinite(x) && Number.isFinite(y)) {
      xs.push(x);
      ys.push(y);
    }
  }
  const n = xs.length;
  if (n < 2) return { n, slope: null, intercept: null, r2: null };
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = xs[i]! - mx;
    const dy = ys[i]! - my;
    sxx += dx * dx;
    sxy += dx * dy;
    syy += dy * dy;
  }
  if (!(sxx > 0)) return { n, slope: null, intercept: null, r2: null };
  const slope = sxy / sxx;
  return { n, slope, intercept: my - slope * mx, r2: syy > 0 ? Math.min(1, (sxy * sxy) / (sxx * syy)) : 0 };
}
