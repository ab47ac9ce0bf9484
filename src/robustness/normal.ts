/**
 * The standard normal distribution and sample moments: what the Sharpe-ratio statistics
 * (sharpe.ts) are made of.
 */

const SQRT_2PI = Math.sqrt(2 * Math.PI);

/**
 * Φ(x), the standard normal CDF, to ~1e-15 absolute: Hart's double-precision rational
 * approximation (1968, algorithm 5666, as given by G. West, "Better approximations to cumulative
 * normal functions", 2005) for |x| < 7.07, Laplace's continued fraction beyond. Written on its own so
 * the far tail (Φ(−8) ≈ 6e-16) keeps its relative accuracy, which 1 − Φ would lose.
 */
export function normalCdf(x: number): number {
  if (Number.isNaN(x)) return NaN;
  const ax = Math.abs(x);
  let tail: number;
  if (ax > 37) tail = 0;
  else {
    const e = Math.exp(-(ax * ax) / 2);
    if (ax < 7.07106781186547) {
      let n = 3.52624965998911e-2 * ax + 0.700383064443688;
      n = n * ax + 6.37396220353165;
      n = n * ax + 33.912866078383;
      n = n * ax + 112.079291497871;
      n = n * ax + 221.213596169931;
      n = n * ax + 220.206867912376;
      let d = 8.83883476483184e-2 * ax + 1.75566716318264;
      d = d * ax + 16.064177579207;
      d = d * ax + 86.7807322029461;
      d = d * ax + 296.564248779674;
      d = d * ax + 637.333633378831;
      d = d * ax + 793.826512519948;
      d = d * ax + 440.413735824752;
      tail = (e * n) / d;
    } else {
      // Φ(−x) = φ(x) / (x + 1/(x + 2/(x + 3/(x + …)))), evaluated from the inside; 24 terms are
      // exact to double precision for x ≥ 7 (West's 4 terms leave ~1e-8 relative).
      let b = ax;
      for (let k = 24; k >= 1; k--) b = ax + k / b;
      tail = e / b / SQRT_2PI;
    }
  }
  return x > 0 ? 1 - tail : tail;
}

// Acklam's rational approximation of Φ⁻¹ (relative error < 1.15e-9), refined below.
const A = [-3.969683028665376e1, 2.209460984245205e2, -2.759285104469687e2, 1.38357751867269e2, -3.066479806614716e1, 2.506628277459239];
const B = [-5.447609879822406e1, 1.615858368580409e2, -1.556989798598866e2, 6.680131188771972e1, -1.328068155288572e1];
const C = [-7.784894002430293e-3, -3.223964580411365e-1, -2.400758277161838, -2.549732539343734, 4.374664141464968, 2.938163982698783];
const D = [7.784695709041462e-3, 3.224671290700398e-1, 2.445134137142996, 3.754408661907416];
const P_LOW = 0.02425;

/**
 * Φ⁻¹(p), the standard normal quantile, for 0 < p < 1 (−∞ at 0, +∞ at 1): Acklam's
 * approximation and one Halley step on normalCdf, which brings it to ~1e-15 where Φ is that exact.
 */
export function normalQuantile(p: number): number {
  if (!(p >= 0 && p <= 1)) throw new RangeError(`normalQuantile: p must be in [0, 1], got ${p}`);
  if (p === 0) return -Infinity;
  if (p === 1) return Infinity;
  let x: number;
  if (p < P_LOW) {
    const q = Math.sqrt(-2 * Math.log(p));
    x =
      (((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) /
      ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  } else if (p <= 1 - P_LOW) {
    const q = p - 0.5;
    const r = q * q;
    x =
      ((((((A[0]! * r + A[1]!) * r + A[2]!) * r + A[3]!) * r + A[4]!) * r + A[5]!) * q) /
      (((((B[0]! * r + B[1]!) * r + B[2]!) * r + B[3]!) * r + B[4]!) * r + 1);
  } else {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    x =
      -(((((C[0]! * q + C[1]!) * q + C[2]!) * q + C[3]!) * q + C[4]!) * q + C[5]!) /
      ((((D[0]! * q + D[1]!) * q + D[2]!) * q + D[3]!) * q + 1);
  }
  // Halley: the error e = Φ(x) − p over the density gives the Newton step u; the factor corrects its curvature.
  const e = normalCdf(x) - p;
  const u = e * SQRT_2PI * Math.exp((x * x) / 2);
  return x - u / (1 + (x * u) / 2);
}

/** Mean, sample standard deviation (n − 1), skewness and Pearson kurtosis of a sample. */
export interface Moments {
  n: number;
  mean: number;
  /** √(Σ(x − mean)² / (n − 1)); 0 for fewer than two values. */
  sd: number;
  /** m₃ / m₂^1.5 with the central moments mᵢ = Σ(x − mean)ⁱ / n (the papers' and scipy's default); 0 when m₂ = 0. */
  skewness: number;
  /** m₄ / m₂² (3 for a normal distribution); 3 when m₂ = 0, i.e. no evidence against normality. */
  kurtosis: number;
}

/** Sample moments in two passes (the mean first, so the central sums do not cancel). */
export function moments(xs: ArrayLike<number>): Moments {
  const n = xs.length;
  if (n === 0) return { n: 0, mean: 0, sd: 0, skewness: 0, kurtosis: 3 };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += xs[i]!;
  const mean = sum / n;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  for (let i = 0; i < n; i++) {
    const d = xs[i]! - mean;
    const d2 = d * d;
    s2 += d2;
    s3 += d2 * d;
    s4 += d2 * d2;
  }
  const m2 = s2 / n;
  const sd = n > 1 ? Math.sqrt(s2 / (n - 1)) : 0;
  if (!(m2 > 0)) return { n, mean, sd: 0, skewness: 0, kurtosis: 3 };
  return { n, mean, sd, skewness: s3 / n / m2 ** 1.5, kurtosis: s4 / n / (m2 * m2) };
}
