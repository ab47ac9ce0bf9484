/**
 * Volume-weighted ta.* built-ins and variables: ta.vwap (anchored, with deviation bands), ta.mfi,
 * and the cumulative ta.accdist and ta.pvt, the per-bar ta.iii and ta.wvad. On bars without volume
 * (0) a volume-weighted average is na.
 */
import { length, num, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { DAY_PERIOD, opensPeriod } from './periods.ts';
import { hist } from './ta.ts';
import { truthy, type Value } from '../runtime/values.ts';

const finite = (x: number): number => (Number.isFinite(x) ? x : NaN);

interface VwapState {
  vol: number;
  pv: number;
  ppv: number;
  anchored: boolean;
}
const newVwap = (): VwapState => ({ vol: 0, pv: 0, ppv: 0, anchored: false });

/**
 * VWAP of `src` since the last bar `anchor` was true: [vwap, upper, lower] with bands `mult` standard
 * deviations (volume-weighted) away. Before the first anchor, na.
 */
function vwap(ctx: Ctx, src: number, anchor: boolean, mult: number | null): number | number[] {
  const st = ctx.state(newVwap);
  const v = ctx.bars.volume[ctx.bar]!;
  const na = mult === null ? NaN : [NaN, NaN, NaN];
  if (src !== src) return na;
  if (anchor) {
    st.vol = v;
    st.pv = src * v;
    st.ppv = 0;
    st.anchored = true;
  } else if (st.anchored) {
    st.vol += v;
    st.pv += src * v;
  } else return na;
  const value = st.pv / st.vol;
  if (value !== value) return na;
  if (mult === null) return value;
  st.ppv += src * src * v;
  const band = Math.sqrt(Math.max(0, st.ppv / st.vol - value * value)) * mult;
  return [value, value + band, value - band];
}

const hlc3 = (ctx: Ctx): number => (ctx.bars.high[ctx.bar]! + ctx.bars.low[ctx.bar]! + ctx.bars.close[ctx.bar]!) / 3;
const newSum = () => ({ s: 0, prev: NaN });

/** The ta.* variables of this module at the current bar (stateful ones keep their sum per call site). */
export function volumeVariable(ctx: Ctx, name: string): Value | undefined {
  const { open, high, low, close, volume } = ctx.bars;
  const i = ctx.bar;
  switch (name) {
    case 'ta.vwap':
      return vwap(ctx, hlc3(ctx), opensPeriod(ctx.bars.ts, i, DAY_PERIOD), null) as number;
    case 'ta.accdist': {
      const st = ctx.state(newSum);
      const mfv = ((close[i]! - low[i]! - (high[i]! - close[i]!)) / (high[i]! - low[i]!)) * volume[i]!;
      if (Number.isFinite(mfv)) st.s += mfv;
      return st.s;
    }
    case 'ta.pvt': {
      const st = ctx.state(newSum);
      const x = ((close[i]! - st.prev) / st.prev) * volume[i]!;
      if (Number.isFinite(x)) st.s += x;
      st.prev = close[i]!;
      return st.s;
    }
    case 'ta.iii':
      return finite((2 * close[i]! - high[i]! - low[i]!) / ((high[i]! - low[i]!) * volume[i]!));
    case 'ta.wvad':
      return finite(((close[i]! - open[i]!) / (high[i]! - low[i]!)) * volume[i]!);
  }
  return undefined;
}

export const VOLUME_VARIABLES = ['ta.vwap', 'ta.accdist', 'ta.pvt', 'ta.iii', 'ta.wvad'];

export const TA_VOLUME: Record<string, Builtin> = {
  'ta.vwap': {
    params: ['source', 'anchor', 'stdev_mult'],
    fn: (ctx, a) => {
      const anchor = a[1] === undefined ? opensPeriod(ctx.bars.ts, ctx.bar, DAY_PERIOD) : truthy(a[1]);
      const mult = a[2] === undefined || a[2] === null ? null : num(a[2]);
      return vwap(ctx, num(a[0]), anchor, mult);
    },
  },
  'ta.mfi': {
    // Money flow: volume·price summed over rising and over falling bars; 100 when nothing fell.
    params: ['series', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const src = num(a[0]);
      const v = ctx.bars.volume[ctx.bar]!;
      const xs = hist(ctx, src, 'x');
      const k = xs.length - 1;
      const chg = k === 0 ? NaN : src - xs[k - 1]!;
      const up = hist(ctx, v * (chg === chg && chg <= 0 ? 0 : src), 'u');
      const down = hist(ctx, v * (chg === chg && chg >= 0 ? 0 : src), 'd');
      if (src !== src || up.length < n) return NaN;
      let upper = 0;
      let lower = 0;
      for (let j = up.length - n; j < up.length; j++) {
        upper += up[j]!;
        lower += down[j]!;
      }
      if (upper !== upper || lower !== lower) return NaN;
      return lower === 0 ? 100 : 100 - 100 / (1 + upper / lower);
    },
  },
};
