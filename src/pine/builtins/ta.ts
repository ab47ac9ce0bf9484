/**
 * ta.* built-ins, bar by bar. Where the indicator registry has the same rule (SMA, EMA, RMA, WMA,
 * RSI, MACD, Bollinger, stdev, highest/lowest, stochastic, true range, ATR) the step is the
 * registry's own helper from ../../math.ts, so both give the same numbers. Each call site keeps
 * the history of its inputs (as Pine does); na in a window gives na; a recursive average skips na
 * inputs (answering na) and seeds on the first value, as the registry's ewm does.
 */
import {
  ewmStep,
  givenAlpha,
  rsiValue,
  RunningExtreme,
  spanAlpha,
  stochK,
  trueRange,
  windowMax,
  windowMean,
  windowMin,
  windowStd,
  windowWma,
} from '../../indicators/index.ts';
import { length, num, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { truthy, type Value } from '../runtime/values.ts';

interface Hist {
  xs: number[];
}
/** Appends this bar's input to the call site's history; returns the history. */
const newRecord = (): Record<string, number[]> => ({});
export function hist(ctx: Ctx, v: Value | undefined, key = 'xs'): number[] {
  const st = ctx.state(newRecord);
  const xs = (st[key] ??= []);
  xs.push(num(v));
  return xs;
}

/** An exponential average state stepped with the registry's ewm step. */
export class Ewm {
  y = NaN;
  step(v: number, alpha: number): number {
    if (v !== v) return NaN;
    this.y = this.y !== this.y ? v : ewmStep(this.y, v, alpha);
    return this.y;
  }
}
const EWM_INITS = [1, 2, 3].map((count) => () => Array.from({ length: count }, () => new Ewm()));
const ewmStates = (ctx: Ctx, count: 1 | 2 | 3): Ewm[] => ctx.state(EWM_INITS[count - 1]!);

export function windowOf(ctx: Ctx, src: Value, lenArg: Value, f: (xs: number[], from: number, to: number) => number): number {
  const n = length(ctx, lenArg, 'length');
  const xs = hist(ctx, src);
  return xs.length < n ? NaN : f(xs, xs.length - n, xs.length);
}

const prevBar = (ctx: Ctx): number | undefined => (ctx.bar === 0 ? undefined : ctx.bars.close[ctx.bar - 1]!);
export const barTr = (ctx: Ctx): number => trueRange(ctx.bars.high[ctx.bar]!, ctx.bars.low[ctx.bar]!, prevBar(ctx));

/** `ta.highest(length)` form: a single argument is the length, the source is high (low for lowest). */
function sourceAndLength(
  ctx: Ctx,
  a: Value[],
  call: { args: unknown[]; named: Record<string, unknown> },
  dflt: Float64Array,
): [Value, Value] {
  // One pair for every call, filled and read at once (a new pair per bar and call site is garbage).
  if (call.args.length === 1 && !('length' in call.named)) {
    PAIR[0] = dflt[ctx.bar]!;
    PAIR[1] = a[0]!;
  } else {
    PAIR[0] = a[0]!;
    PAIR[1] = a[1]!;
  }
  return PAIR;
}
const PAIR: [Value, Value] = [null, null];

const newHighest = () => new RunningExtreme(true);
const newLowest = () => new RunningExtreme(false);
/** ta.highest / ta.lowest: windowMax / windowMin of the call site's history, kept as it grows. */
function extreme(ctx: Ctx, src: Value, lenArg: Value, higher: boolean): number {
  const n = length(ctx, lenArg, 'length');
  return ctx.state(higher ? newHighest : newLowest).push(num(src), n);
}

function barsOffset(ctx: Ctx, src: Value, lenArg: Value, better: (x: number, best: number) => boolean): number {
  const n = length(ctx, lenArg, 'length');
  const xs = hist(ctx, src);
  if (xs.length < n) return NaN;
  // The newest extreme wins a tie: offsets count back from the current bar (0, -1, …).
  let best = NaN;
  let at = 0;
  for (let j = 0; j < n; j++) {
    const x = xs[xs.length - 1 - j]!;
    if (x !== x) return NaN;
    if (j === 0 || better(x, best)) {
      best = x;
      at = j;
    }
  }
  return -at;
}

function pivot(ctx: Ctx, a: Value[], call: { args: unknown[] }, dflt: Float64Array, higher: boolean): number {
  const [src, l, r] = call.args.length === 2 ? [dflt[ctx.bar]!, a[0]!, a[1]!] : [a[0]!, a[1]!, a[2]!];
  const left = length(ctx, l, 'leftbars');
  const right = length(ctx, r, 'rightbars');
  const xs = hist(ctx, src);
  const k = xs.length;
  if (k < left + right + 1) return NaN;
  const c = xs[k - 1 - right]!;
  if (c !== c) return NaN;
  // A pivot is strictly beyond every other value of its window (left bars before, right bars after).
  for (let j = k - 1 - right - left; j < k; j++) {
    if (j === k - 1 - right) continue;
    const x = xs[j]!;
    if (!(higher ? c > x : c < x)) return NaN;
  }
  return c;
}

const sampleStd = (xs: number[], from: number, to: number): number => {
  const m = windowMean(xs, from, to);
  let ss = 0;
  for (let j = from; j < to; j++) ss += (xs[j]! - m) ** 2;
  return Math.sqrt(ss / (to - from - 1));
};

const meanDev = (xs: number[], from: number, to: number): number => {
  const m = windowMean(xs, from, to);
  let s = 0;
  for (let j = from; j < to; j++) s += Math.abs(xs[j]! - m);
  return s / (to - from);
};

/** ta.rising / ta.falling: the value beats each of the `length` values before it. */
function monotone(ctx: Ctx, a: Value[], beats: (x: number, y: number) => boolean): boolean {
  const n = length(ctx, a[1], 'length');
  const xs = hist(ctx, a[0]);
  if (xs.length <= n) return false;
  for (let j = 1; j <= n; j++) if (!beats(xs[xs.length - 1]!, xs[xs.length - 1 - j]!)) return false;
  return true;
}

// State makers are made once, not per call (a closure per bar and call site is garbage).
const newRsi = () => ({ prev: NaN, seen: false, g: new Ewm(), l: new Ewm() });
const newCross = () => ({ pa: NaN, pb: NaN });
const newSar = () => ({ result: NaN, maxMin: NaN, acc: NaN, below: false });
const newSupertrend = () => ({ atr: new Ewm(), prevAtr: NaN, lower: NaN, upper: NaN, sup: NaN });
const newDmi = () => ({ tr: new Ewm(), p: new Ewm(), m: new Ewm(), adx: new Ewm(), plus: NaN, minus: NaN });
const newBarsSince = () => ({ k: -1, last: -1 });
const newHist = (): Hist => ({ xs: [] });
const newSum = () => ({ s: 0 });
const newLast = () => ({ last: NaN });

function rsiStep(ctx: Ctx, src: number, n: number): number {
  const st = ctx.state(newRsi);
  const d = src - st.prev;
  const first = !st.seen;
  st.seen = true;
  st.prev = src;
  if (first || d !== d) return NaN;
  const alpha = givenAlpha(1 / n);
  return rsiValue(st.g.step(Math.max(d, 0), alpha), st.l.step(Math.max(-d, 0), alpha));
}

/**
 * 1 when `a` crosses over `b` on this bar, -1 when it crosses under, else 0. The bar compared with
 * is the last one where both were defined: an na gap does not hide a cross (as TradingView).
 */
function cross(ctx: Ctx, a: Value, b: Value): number {
  const st = ctx.state(newCross);
  const x = num(a);
  const y = num(b);
  const up = x > y && st.pa <= st.pb;
  const down = x < y && st.pa >= st.pb;
  if (x === x && y === y) {
    st.pa = x;
    st.pb = y;
  }
  return up ? 1 : down ? -1 : 0;
}

/** Parabolic SAR, TradingView's reference algorithm (ta.sar in the Pine reference). */
function sar(ctx: Ctx, start: number, inc: number, max: number): number {
  const { high, low, close } = ctx.bars;
  const i = ctx.bar;
  const st = ctx.state(newSar);
  let first = false;
  if (i === 1) {
    if (close[i]! > close[i - 1]!) {
      st.below = true;
      st.maxMin = high[i]!;
      st.result = low[i - 1]!;
    } else {
      st.below = false;
      st.maxMin = low[i]!;
      st.result = high[i - 1]!;
    }
    first = true;
    st.acc = start;
  }
  st.result = st.result + st.acc * (st.maxMin - st.result);
  if (st.below) {
    if (st.result > low[i]!) {
      first = true;
      st.below = false;
      st.result = Math.max(high[i]!, st.maxMin);
      st.maxMin = low[i]!;
      st.acc = start;
    }
  } else if (st.result < high[i]!) {
    first = true;
    st.below = true;
    st.result = Math.min(low[i]!, st.maxMin);
    st.maxMin = high[i]!;
    st.acc = start;
  }
  if (!first) {
    if (st.below) {
      if (high[i]! > st.maxMin) {
        st.maxMin = high[i]!;
        st.acc = Math.min(st.acc + inc, max);
      }
    } else if (low[i]! < st.maxMin) {
      st.maxMin = low[i]!;
      st.acc = Math.min(st.acc + inc, max);
    }
  }
  if (i >= 1) {
    if (st.below) {
      st.result = Math.min(st.result, low[i - 1]!);
      if (i > 1) st.result = Math.min(st.result, low[i - 2]!);
    } else {
      st.result = Math.max(st.result, high[i - 1]!);
      if (i > 1) st.result = Math.max(st.result, high[i - 2]!);
    }
  }
  return st.result;
}

/** Supertrend, TradingView's reference algorithm: [supertrend, direction] (−1 up-trend, 1 down-trend). */
function supertrend(ctx: Ctx, factor: number, n: number): Value[] {
  const { high, low, close } = ctx.bars;
  const i = ctx.bar;
  const st = ctx.state(newSupertrend);
  const atr = st.atr.step(barTr(ctx), givenAlpha(1 / n));
  const src = (high[i]! + low[i]!) / 2;
  let upper = src + factor * atr;
  let lower = src - factor * atr;
  const prevLower = st.lower !== st.lower ? 0 : st.lower;
  const prevUpper = st.upper !== st.upper ? 0 : st.upper;
  const pc = i === 0 ? NaN : close[i - 1]!;
  lower = lower > prevLower || pc < prevLower ? lower : prevLower;
  upper = upper < prevUpper || pc > prevUpper ? upper : prevUpper;
  let dir: number;
  if (st.prevAtr !== st.prevAtr) dir = 1;
  else if (st.sup === prevUpper) dir = close[i]! > upper ? -1 : 1;
  else dir = close[i]! < lower ? 1 : -1;
  const sup = dir === -1 ? lower : upper;
  Object.assign(st, { prevAtr: atr, lower, upper, sup });
  return [sup, dir];
}

/** DMI, TradingView's reference algorithm: [+DI, −DI, ADX]. */
function dmi(ctx: Ctx, n: number, smooth: number): Value[] {
  const { high, low } = ctx.bars;
  const i = ctx.bar;
  const st = ctx.state(newDmi);
  const up = i === 0 ? NaN : high[i]! - high[i - 1]!;
  const down = i === 0 ? NaN : low[i - 1]! - low[i]!;
  const pdm = up !== up ? NaN : up > down && up > 0 ? up : 0;
  const mdm = down !== down ? NaN : down > up && down > 0 ? down : 0;
  const alpha = givenAlpha(1 / n);
  const trur = st.tr.step(barTr(ctx), alpha);
  const p = (100 * st.p.step(pdm, alpha)) / trur;
  const m = (100 * st.m.step(mdm, alpha)) / trur;
  if (p === p) st.plus = p; // fixnan
  if (m === m) st.minus = m;
  const sum = st.plus + st.minus;
  const adx = 100 * st.adx.step(Math.abs(st.plus - st.minus) / (sum === 0 ? 1 : sum), givenAlpha(1 / smooth));
  return [st.plus, st.minus, adx];
}

export const TA: Record<string, Builtin> = {
  'ta.sma': { params: ['source', 'length'], fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, windowMean) },
  'ta.ema': { params: ['source', 'length'], fn: (ctx, a) => ewmStates(ctx, 1)[0]!.step(num(a[0]), spanAlpha(length(ctx, a[1], 'length'))) },
  'ta.rma': {
    params: ['source', 'length'],
    fn: (ctx, a) => ewmStates(ctx, 1)[0]!.step(num(a[0]), givenAlpha(1 / length(ctx, a[1], 'length'))),
  },
  'ta.wma': {
    params: ['source', 'length'],
    fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, (xs, from, to) => windowWma(xs, to - 1, to - from)),
  },
  'ta.vwma': {
    params: ['source', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const v = ctx.bars.volume[ctx.bar]!;
      const pv = hist(ctx, num(a[0]) * v, 'pv');
      const vs = hist(ctx, v, 'v');
      return pv.length < n ? NaN : windowMean(pv, pv.length - n, pv.length) / windowMean(vs, vs.length - n, vs.length);
    },
  },
  'ta.rsi': { params: ['source', 'length'], fn: (ctx, a) => rsiStep(ctx, num(a[0]), length(ctx, a[1], 'length')) },
  'ta.macd': {
    params: ['source', 'fastlen', 'slowlen', 'siglen'],
    fn: (ctx, a) => {
      const [f, s, g] = ewmStates(ctx, 3);
      const src = num(a[0]);
      const line = f!.step(src, spanAlpha(length(ctx, a[1], 'fastlen'))) - s!.step(src, spanAlpha(length(ctx, a[2], 'slowlen')));
      const signal = g!.step(line, spanAlpha(length(ctx, a[3], 'siglen')));
      return [line, signal, line - signal];
    },
  },
  'ta.stoch': {
    params: ['source', 'high', 'low', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[3], 'length');
      const hs = hist(ctx, a[1], 'h');
      const ls = hist(ctx, a[2], 'l');
      if (hs.length < n) return NaN;
      return stochK(num(a[0]), windowMax(hs, hs.length - n, hs.length), windowMin(ls, ls.length - n, ls.length));
    },
  },
  'ta.tr': { params: ['handle_na'], fn: (ctx) => barTr(ctx) },
  'ta.atr': { params: ['length'], fn: (ctx, a) => ewmStates(ctx, 1)[0]!.step(barTr(ctx), givenAlpha(1 / length(ctx, a[0], 'length'))) },
  'ta.bb': {
    params: ['series', 'length', 'mult'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0]);
      if (xs.length < n) return [NaN, NaN, NaN];
      const mid = windowMean(xs, xs.length - n, xs.length);
      const sd = windowStd(xs, xs.length - n, xs.length);
      const k = num(a[2]);
      return [mid, mid + k * sd, mid - k * sd];
    },
  },
  'ta.stdev': {
    params: ['source', 'length', 'biased'],
    fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, a[2] === false ? sampleStd : windowStd),
  },
  'ta.variance': {
    params: ['source', 'length', 'biased'],
    fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, (xs, f, t) => (a[2] === false ? sampleStd(xs, f, t) : windowStd(xs, f, t)) ** 2),
  },
  'ta.dev': { params: ['source', 'length'], fn: (ctx, a) => windowOf(ctx, a[0]!, a[1]!, meanDev) },
  'ta.highest': {
    params: ['source', 'length'],
    fn: (ctx, a, call) => {
      const [s, l] = sourceAndLength(ctx, a, call, ctx.bars.high);
      return extreme(ctx, s, l, true);
    },
  },
  'ta.lowest': {
    params: ['source', 'length'],
    fn: (ctx, a, call) => {
      const [s, l] = sourceAndLength(ctx, a, call, ctx.bars.low);
      return extreme(ctx, s, l, false);
    },
  },
  'ta.highestbars': {
    params: ['source', 'length'],
    fn: (ctx, a, call) => {
      const [s, l] = sourceAndLength(ctx, a, call, ctx.bars.high);
      return barsOffset(ctx, s, l, (x, b) => x > b);
    },
  },
  'ta.lowestbars': {
    params: ['source', 'length'],
    fn: (ctx, a, call) => {
      const [s, l] = sourceAndLength(ctx, a, call, ctx.bars.low);
      return barsOffset(ctx, s, l, (x, b) => x < b);
    },
  },
  'ta.change': {
    params: ['source', 'length'],
    fn: (ctx, a) => {
      const n = a[1] === undefined ? 1 : length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0]);
      return xs.length <= n ? NaN : xs[xs.length - 1]! - xs[xs.length - 1 - n]!;
    },
  },
  'ta.mom': {
    params: ['source', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0]);
      return xs.length <= n ? NaN : xs[xs.length - 1]! - xs[xs.length - 1 - n]!;
    },
  },
  'ta.roc': {
    params: ['source', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0]);
      if (xs.length <= n) return NaN;
      const old = xs[xs.length - 1 - n]!;
      return (100 * (xs[xs.length - 1]! - old)) / old;
    },
  },
  'ta.cci': {
    params: ['source', 'length'],
    fn: (ctx, a) =>
      windowOf(ctx, a[0]!, a[1]!, (xs, f, t) => {
        const md = meanDev(xs, f, t);
        return md === 0 ? NaN : (xs[t - 1]! - windowMean(xs, f, t)) / (0.015 * md);
      }),
  },
  'ta.rising': { params: ['source', 'length'], fn: (ctx, a) => monotone(ctx, a, (x, y) => x > y) },
  'ta.falling': { params: ['source', 'length'], fn: (ctx, a) => monotone(ctx, a, (x, y) => x < y) },
  'ta.crossover': { params: ['source1', 'source2'], fn: (ctx, a) => cross(ctx, a[0]!, a[1]!) === 1 },
  'ta.crossunder': { params: ['source1', 'source2'], fn: (ctx, a) => cross(ctx, a[0]!, a[1]!) === -1 },
  'ta.cross': { params: ['source1', 'source2'], fn: (ctx, a) => cross(ctx, a[0]!, a[1]!) !== 0 },
  'ta.barssince': {
    params: ['condition'],
    fn: (ctx, a) => {
      const st = ctx.state(newBarsSince);
      st.k++;
      if (truthy(a[0])) st.last = st.k;
      return st.last < 0 ? NaN : st.k - st.last;
    },
  },
  'ta.valuewhen': {
    params: ['condition', 'source', 'occurrence'],
    fn: (ctx, a) => {
      const st = ctx.state(newHist);
      if (truthy(a[0])) st.xs.push(num(a[1]));
      const occ = a[2] === undefined ? 0 : num(a[2]);
      return st.xs.length > occ ? st.xs[st.xs.length - 1 - occ]! : NaN;
    },
  },
  'ta.pivothigh': { params: ['source', 'leftbars', 'rightbars'], fn: (ctx, a, call) => pivot(ctx, a, call, ctx.bars.high, true) },
  'ta.pivotlow': { params: ['source', 'leftbars', 'rightbars'], fn: (ctx, a, call) => pivot(ctx, a, call, ctx.bars.low, false) },
  'ta.sar': { params: ['start', 'inc', 'max'], fn: (ctx, a) => sar(ctx, num(a[0]), num(a[1]), num(a[2])) },
  'ta.supertrend': { params: ['factor', 'atrPeriod'], fn: (ctx, a) => supertrend(ctx, num(a[0]), length(ctx, a[1], 'atrPeriod')) },
  'ta.dmi': {
    params: ['diLength', 'adxSmoothing'],
    fn: (ctx, a) => dmi(ctx, length(ctx, a[0], 'diLength'), length(ctx, a[1], 'adxSmoothing')),
  },
  'ta.cum': {
    params: ['source'],
    fn: (ctx, a) => {
      const st = ctx.state(newSum);
      const v = num(a[0]);
      if (v === v) st.s += v;
      return st.s;
    },
  },
  'math.sum': {
    params: ['source', 'length'],
    fn: (ctx, a) =>
      windowOf(ctx, a[0]!, a[1]!, (xs, f, t) => {
        let sum = 0;
        for (let j = f; j < t; j++) sum += xs[j]!;
        return sum;
      }),
  },
  fixnan: {
    params: ['source'],
    fn: (ctx, a) => {
      const st = ctx.state(newLast);
      const v = num(a[0]);
      if (v === v) st.last = v;
      return st.last;
    },
  },
};

/** ta.* values read as variables (no call): the true range, on-balance volume. */
export function taVariable(ctx: Ctx, name: string): Value | undefined {
  if (name === 'ta.tr') return barTr(ctx);
  if (name === 'ta.obv') {
    const st = ctx.state(newSum);
    const i = ctx.bar;
    if (i > 0) st.s += Math.sign(ctx.bars.close[i]! - ctx.bars.close[i - 1]!) * ctx.bars.volume[i]!;
    return st.s;
  }
  return undefined;
}
