/** Oscillators and band widths: ta.wpr, ta.cmo, ta.tsi, ta.kc, ta.kcw, ta.bbw (registry steps where it has them). */
import { RunningExtreme, spanAlpha, windowMean, windowStd } from '../../indicators/index.ts';
import { length, num, type Builtin, type Ctx } from '../runtime/ctx.ts';
import { barTr, Ewm, hist } from './ta.ts';
import type { Value } from '../runtime/values.ts';

const newWpr = () => ({ hi: new RunningExtreme(true), lo: new RunningExtreme(false) });
const newTsi = () => ({ prev: NaN, seen: false, m1: new Ewm(), m2: new Ewm(), a1: new Ewm(), a2: new Ewm() });
const newKc = () => ({ basis: new Ewm(), range: new Ewm() });

/** Keltner channel: EMA of the source ± mult × EMA of the true range (or high − low). */
function kc(ctx: Ctx, a: Value[]): [number, number, number] {
  const n = length(ctx, a[1], 'length');
  const mult = num(a[2]);
  const st = ctx.state(newKc);
  const alpha = spanAlpha(n);
  const basis = st.basis.step(num(a[0]), alpha);
  const span = a[3] === false ? ctx.bars.high[ctx.bar]! - ctx.bars.low[ctx.bar]! : barTr(ctx);
  const range = st.range.step(span, alpha) * mult;
  return [basis, basis + range, basis - range];
}

export const TA_OSCILLATORS: Record<string, Builtin> = {
  'ta.wpr': {
    // Williams %R: 100·(close − highest high) / (highest high − lowest low).
    params: ['length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[0], 'length');
      const st = ctx.state(newWpr);
      const hh = st.hi.push(ctx.bars.high[ctx.bar]!, n);
      const ll = st.lo.push(ctx.bars.low[ctx.bar]!, n);
      return hh === ll ? NaN : (100 * (ctx.bars.close[ctx.bar]! - hh)) / (hh - ll);
    },
  },
  'ta.cmo': {
    // Chande momentum: (sum of gains − sum of losses) / their total, in %, over `length` changes.
    params: ['series', 'length'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0], 'x');
      const k = xs.length - 1;
      const mom = k === 0 ? NaN : xs[k]! - xs[k - 1]!;
      const ups = hist(ctx, mom >= 0 ? mom : mom === mom ? 0 : NaN, 'u');
      const downs = hist(ctx, mom >= 0 ? 0 : -mom, 'd');
      if (ups.length < n) return NaN;
      let up = 0;
      let down = 0;
      for (let j = ups.length - n; j < ups.length; j++) {
        up += ups[j]!;
        down += downs[j]!;
      }
      const total = up + down;
      return total === 0 || total !== total ? NaN : (100 * (up - down)) / total;
    },
  },
  'ta.tsi': {
    // True strength: double-smoothed momentum over double-smoothed absolute momentum (−1…1).
    params: ['source', 'short_length', 'long_length'],
    fn: (ctx, a) => {
      const short = spanAlpha(length(ctx, a[1], 'short_length'));
      const long = spanAlpha(length(ctx, a[2], 'long_length'));
      const st = ctx.state(newTsi);
      const src = num(a[0]);
      const mom = st.seen ? src - st.prev : NaN;
      st.seen = true;
      st.prev = src;
      const m = st.m2.step(st.m1.step(mom, long), short);
      const d = st.a2.step(st.a1.step(Math.abs(mom), long), short);
      return d === 0 ? NaN : m / d;
    },
  },
  'ta.kc': { params: ['series', 'length', 'mult', 'useTrueRange'], fn: (ctx, a) => kc(ctx, a) },
  'ta.kcw': {
    params: ['series', 'length', 'mult', 'useTrueRange'],
    fn: (ctx, a) => {
      const [basis, upper, lower] = kc(ctx, a);
      return basis === 0 ? NaN : (upper - lower) / basis;
    },
  },
  'ta.bbw': {
    // Bollinger band width in % of the basis (TradingView's ta.bbw), the registry's mean and deviation.
    params: ['series', 'length', 'mult'],
    fn: (ctx, a) => {
      const n = length(ctx, a[1], 'length');
      const xs = hist(ctx, a[0]);
      if (xs.length < n) return NaN;
      const basis = windowMean(xs, xs.length - n, xs.length);
      const dev = num(a[2]) * windowStd(xs, xs.length - n, xs.length);
      return basis === 0 ? NaN : ((basis + dev - (basis - dev)) / basis) * 100;
    },
  },
};
