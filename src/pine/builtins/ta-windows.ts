/**
 * ta.* built-ins over a window of the call site's own history: regression, correlation, ranks,
 * median/mode, centre of gravity and the weighted averages (alma, swma, hma), all-time extremes.
 * As in ta.ts, na in a window gives na. Formulas and their order of operations follow what the
 * Pine reference and measured TradingView parity (PyneCore's probes) describe.
 */
import { windowWma } from '../../indicators/index.ts';
import { length, num, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { hist, windowOf } from './ta.ts';
import type { Value } from '../runtime/values.ts';

/** Pine's absolute comparison tolerance, where TradingView is measured to use it (a zero covariance). */
const EPSILON = 1e-10;

const hasNaN = (xs: number[], from: number, to: number): boolean => {
  for (let j = from; j < to; j++) if (xs[j] !== xs[j]) return true;
  return false;
};

/**
 * Least squares over the window with x = 1…n from the oldest value, evaluated `offset` bars back
 * from the newest: TradingView's own order of operations (intercept carrying one slope).
 */
function linreg(xs: number[], from: number, to: number, offset: number): number {
  const n = to - from;
  if (n === 1) return xs[from]!;
  let sx = 0;
  let sx2 = 0;
  for (let i = 1; i <= n; i++) {
    sx += i;
    sx2 += i * i;
  }
  let sy = 0;
  let sxy = 0;
  let per = 0;
  for (let j = from; j < to; j++) {
    per += 1;
    sy += xs[j]!;
    sxy += xs[j]! * per;
  }
  const slope = (n * sxy - sx * sy) / (n * sx2 - sx * sx);
  const intercept = sy / n - (slope * sx) / n + slope;
  return intercept + slope * (n - 1 - offset);
}

/** Pearson correlation from window sums, as TradingView computes it (one square root of the product). */
function correlation(xs: number[], ys: number[], from: number, to: number): number {
  const n = to - from;
  let sx = 0;
  let sy = 0;
  let sxy = 0;
  let sx2 = 0;
  let sy2 = 0;
  for (let j = from; j < to; j++) {
    const x = xs[j]!;
    const y = ys[j]!;
    sx += x;
    sy += y;
    sxy += x * y;
    sx2 += x * x;
    sy2 += y * y;
  }
  const mx = sx / n;
  const my = sy / n;
  const cov = sxy / n - mx * my;
  if (cov !== cov) return NaN;
  if (Math.abs(cov) <= EPSILON) return 0;
  const v = Math.max(0, sx2 / n - mx * mx) * Math.max(0, sy2 / n - my * my);
  return v === 0 ? NaN : cov / Math.sqrt(v);
}

function median(xs: number[], from: number, to: number): number {
  if (hasNaN(xs, from, to)) return NaN;
  const w = xs.slice(from, to).sort((a, b) => a - b);
  const mid = w.length >> 1;
  return w.length % 2 === 1 ? w[mid]! : (w[mid - 1]! + w[mid]!) / 2;
}

/** The most frequent value of the window (na left out); of equally frequent ones the smallest. */
function mode(xs: number[], from: number, to: number): number {
  const w = xs
    .slice(from, to)
    .filter((x) => x === x)
    .sort((a, b) => a - b);
  if (w.length === 0) return NaN;
  let best = w[0]!;
  let bestCount = 1;
  let count = 1;
  for (let j = 1; j < w.length; j++) {
    count = w[j] === w[j - 1] ? count + 1 : 1;
    if (count > bestCount) {
      bestCount = count;
      best = w[j]!;
    }
  }
  return best;
}

/** ALMA weights, oldest first: a Gaussian centred at offset·(n−1) (floored if asked) of width n/sigma. */
function almaWeights(n: number, offset: number, sigma: number, floor: boolean): number[] {
  const m = floor ? Math.floor(offset * (n - 1)) : offset * (n - 1);
  const s = n / sigma;
  return Array.from({ length: n }, (_, i) => Math.exp(-((i - m) * (i - m)) / (2 * s * s)));
}

function extremeEver(ctx: Ctx, v: Value | undefined, higher: boolean): number {
  const st = ctx.state(newLast);
  const x = num(v);
  if (x === x && (st.last !== st.last || (higher ? x > st.last : x < st.last))) st.last = x;
  return st.last;
}
const newLast = () => ({ last: NaN });
const newAlma = () => ({ xs: [] as number[], weights: [] as number[], key: '' });

export const TA_WINDOWS: Record<string, Builtin> = {
  'ta.linreg': {
    params: ['source', 'length', 'offset'],
    fn: (ctx, a) => {
      const offset = Math.trunc(num(a[2] ?? 0));
      if (offset !== offset) ctx.fail('offset of ta.linreg must be a number of bars');
      return windowOf(ctx, a[0]!, a[1]!, (xs, f, t) => linreg(xs, f, t, offset));
    },
  },
  'ta.correlation': {
    params: ['source1', 'source2', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[2], 'length');
      const xs = hist(ctx, a[0], 'x');
      const ys = hist(ctx, a[1], 'y');
      return xs.length < n ? NaN : correlation(xs, ys, xs.length - n, xs.length);
    },
  },
  'ta.median': { params: ['source', 'length'], fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, median) },
  'ta.mode': { params: ['source', 'length'], fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, mode) },
  'ta.range': {
    params: ['source', 'length'],
    fn: (ctx, a) =>
      windowOf(ctx, a[0]!, a[1]!, (xs, f, t) => (hasNaN(xs, f, t) ? NaN : Math.max(...xs.slice(f, t)) - Math.min(...xs.slice(f, t)))),
  },
  'ta.cog': {
    // Centre of gravity: −Σ x[i]·(i + 1) / Σ x[i], i = 0 the newest.
    params: ['source', 'length'],
    fn: (ctx, a) =>
      windowOf(ctx, a[0]!, a[1]!, (xs, f, t) => {
        let num_ = 0;
        let sum = 0;
        for (let j = t - 1, i = 0; j >= f; j--, i++) {
          num_ += xs[j]! * (i + 1);
          sum += xs[j]!;
        }
        return sum === 0 ? NaN : -num_ / sum;
      }),
  },
  'ta.swma': {
    // Symmetrically weighted over 4 bars: 1/6, 2/6, 2/6, 1/6.
    params: ['source'],
    fn: (ctx, a) => {
      const xs = hist(ctx, a[0]);
      const k = xs.length - 1;
      return k < 3 ? NaN : (xs[k]! + 2 * xs[k - 1]! + 2 * xs[k - 2]! + xs[k - 3]!) / 6;
    },
  },
  'ta.alma': {
    params: ['series', 'length', 'offset', 'sigma', 'floor'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const offset = num(a[2] ?? 0.85);
      const sigma = num(a[3] ?? 6);
      if (!(sigma > 0) || offset !== offset) ctx.fail('ta.alma needs a number offset and a positive sigma');
      const st = ctx.state(newAlma);
      const key = `${n} ${offset} ${sigma} ${a[4] === true}`;
      if (st.key !== key) {
        st.weights = almaWeights(n, offset, sigma, a[4] === true);
        st.key = key;
      }
      st.xs.push(num(a[0]));
      const xs = st.xs;
      if (xs.length < n) return NaN;
      let sum = 0;
      let norm = 0;
      for (let i = 0; i < n; i++) {
        sum += xs[xs.length - n + i]! * st.weights[i]!;
        norm += st.weights[i]!;
      }
      return sum / norm;
    },
  },
  'ta.hma': {
    // wma(2·wma(src, ⌊n/2⌋) − wma(src, n), ⌊√n⌋), with the registry's WMA step.
    params: ['source', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      if (n < 2) ctx.fail(`length of ta.hma must be at least 2, got ${n}`);
      const half = Math.floor(n / 2);
      const root = Math.floor(Math.sqrt(n));
      const xs = hist(ctx, a[0]);
      const t = xs.length - 1;
      const raw = t + 1 < n ? NaN : 2 * windowWma(xs, t, half) - windowWma(xs, t, n);
      const ds = hist(ctx, raw, 'd');
      return ds.length < root ? NaN : windowWma(ds, ds.length - 1, root);
    },
  },
  'ta.max': { params: ['source'], fn: (ctx, a) => extremeEver(ctx, a[0], true) },
  'ta.min': { params: ['source'], fn: (ctx, a) => extremeEver(ctx, a[0], false) },
};
