/**
 * The trader indicators the offline generator writes in pandas (src/generation/offline/
 * trader-indicators.ts): one generated strategy computing all of them runs in the sandbox on real
 * EURUSD 15-minute bars; every column equals a reference computed here, independently, with
 * plain loops (1e-9 relative after the indicator's warm-up); and the sandbox's dynamic analysis
 * (look-ahead on prefixes and windows, warm-up search) passes on those bars — Ichimoku's spans
 * are shifted forward and its chikou left out, so nothing reads a later bar.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../../src/log.ts';
import { generateOffline } from '../../../src/generation/offline/index.ts';
import { StrategyRuntime } from '../../../src/sandbox/runtime-pool.ts';
import { checkStrategyCode } from '../../../src/sandbox/static-check.ts';
import type { OhlcColumns } from '../../../src/lib/bar-columns.ts';
import { loadBars } from '../../helpers/strategy-bars.ts';

const PROMPT =
  'ADX 14 above 25, CCI 20 below -100, price above the upper Keltner channel, Donchian 20, VWAP, close above the pivot, Ichimoku cloud, ' +
  'parabolic SAR, supertrend 10 3, ROC 10 above 0, Williams %R below -80, z-score 20 below -2, bullish engulfing, pin bar, inside bar, volatility regime, 3 green candles in a row, ' +
  'morning star, tweezer bottom, NR7 breakout, heikin ashi green, RSI divergence, MACD divergence, awesome oscillator above 0, close above the asian session high';
/** The columns of those added for issue 35's fresh words, checked like the rest. */
const NEWER = [
  'star',
  'tweezer',
  'nr_7',
  'nr_7_break',
  'ha_dir',
  'ha_run',
  'rsi_div_14_14',
  'macd_div_12_26_14',
  'ao_5_34',
  'sess_high_0_9',
  'sess_low_0_9',
];

type Series = Float64Array;
const nan = (n: number) => new Float64Array(n).fill(Number.NaN);

/** ewm(alpha, adjust=False) seeded with the first finite value, as pandas does. */
function ewm(x: Series, alpha: number): Series {
  const out = nan(x.length);
  let prev = Number.NaN;
  for (let i = 0; i < x.length; i++) {
    const v = x[i]!;
    if (Number.isNaN(v)) {
      out[i] = prev;
      continue;
    }
    prev = Number.isNaN(prev) ? v : prev + alpha * (v - prev);
    out[i] = prev;
  }
  return out;
}
const trueRange = (b: OhlcColumns): Series =>
  Float64Array.from(b.close, (_, i) =>
    i === 0
      ? b.high[0]! - b.low[0]!
      : Math.max(b.high[i]! - b.low[i]!, Math.abs(b.high[i]! - b.close[i - 1]!), Math.abs(b.low[i]! - b.close[i - 1]!)),
  );
const rolling = (x: ArrayLike<number>, n: number, f: (w: number[]) => number, lag = 0): Series => {
  const out = nan(x.length);
  for (let i = n - 1 + lag; i < x.length; i++) out[i] = f(Array.from({ length: n }, (_, k) => x[i - lag - k]!));
  return out;
};
const max = (w: number[]) => Math.max(...w);
const min = (w: number[]) => Math.min(...w);
const mean = (w: number[]) => w.reduce((a, b) => a + b, 0) / w.length;
const dayOf = (ts: number) => Math.floor(ts / 86_400_000);

function references(b: OhlcColumns): Record<string, Series> {
  const n = b.close.length;
  const { open, high, low, close, ts } = b;
  const out: Record<string, Series> = {};
  const tr = trueRange(b);
  // ADX / DMI (Wilder)
  const pdm = new Float64Array(n);
  const mdm = new Float64Array(n);
  for (let i = 1; i < n; i++) {
    const up = high[i]! - high[i - 1]!;
    const dn = low[i - 1]! - low[i]!;
    pdm[i] = up > dn && up > 0 ? up : 0;
    mdm[i] = dn > up && dn > 0 ? dn : 0;
  }
  pdm[0] = mdm[0] = Number.NaN;
  const atr14 = ewm(tr, 1 / 14);
  const pdi = Float64Array.from(ewm(pdm, 1 / 14), (v, i) => (100 * v) / atr14[i]!);
  const mdi = Float64Array.from(ewm(mdm, 1 / 14), (v, i) => (100 * v) / atr14[i]!);
  const dx = Float64Array.from(pdi, (p, i) => (p + mdi[i]! === 0 || Number.isNaN(p) ? 0 : (100 * Math.abs(p - mdi[i]!)) / (p + mdi[i]!)));
  out.adx_14 = ewm(dx, 1 / 14);
  out.plus_di_14 = pdi;
  out.minus_di_14 = mdi;
  // CCI(20)
  const tp = Float64Array.from(close, (c, i) => (high[i]! + low[i]! + c) / 3);
  out.cci_20 = rolling(tp, 20, (w) => {
    const m = mean(w);
    const md = mean(w.map((v) => Math.abs(v - m)));
    return md > 1e-7 * w[0]! ? (w[0]! - m) / (0.015 * md) : 0;
  });
  // Keltner(20, 2): EMA 20 ± 2 Wilder ATR(20)
  const mid = ewm(close, 2 / 21);
  const atr20 = ewm(tr, 1 / 20);
  out.kc_upper_20_2 = Float64Array.from(mid, (m, i) => m + 2 * atr20[i]!);
  out.kc_mid_20_2 = mid;
  out.kc_lower_20_2 = Float64Array.from(mid, (m, i) => m - 2 * atr20[i]!);
  // Donchian(20) of the prior 20 bars
  out.dc_upper_20 = rolling(high, 20, max, 1);
  out.dc_lower_20 = rolling(low, 20, min, 1);
  out.dc_mid_20 = Float64Array.from(out.dc_upper_20, (u, i) => (u + out.dc_lower_20![i]!) / 2);
  // Session VWAP (time-weighted typical price since the UTC day's first bar)
  out.vwap_session = nan(n);
  for (let i = 0, sum = 0, k = 0; i < n; i++) {
    if (i > 0 && dayOf(ts[i]!) !== dayOf(ts[i - 1]!)) [sum, k] = [0, 0];
    sum += tp[i]!;
    k++;
    out.vwap_session[i] = sum / k;
  }
  // Classic pivots from the previous UTC day with bars
  const days = new Map<number, { h: number; l: number; c: number }>();
  const order: number[] = [];
  for (let i = 0; i < n; i++) {
    const d = dayOf(ts[i]!);
    const cur = days.get(d);
    if (!cur) {
      days.set(d, { h: high[i]!, l: low[i]!, c: close[i]! });
      order.push(d);
    } else Object.assign(cur, { h: Math.max(cur.h, high[i]!), l: Math.min(cur.l, low[i]!), c: close[i]! });
  }
  for (const k of ['pivot_p', 'pivot_r1', 'pivot_s1', 'pivot_r2', 'pivot_s2', 'prev_day_high', 'prev_day_low']) out[k] = nan(n);
  for (let i = 0; i < n; i++) {
    const at = order.indexOf(dayOf(ts[i]!));
    if (at < 1) continue;
    const { h, l, c } = days.get(order[at - 1]!)!;
    const p = (h + l + c) / 3;
    [out.pivot_p![i], out.pivot_r1![i], out.pivot_s1![i], out.pivot_r2![i], out.pivot_s2![i]] = [
      p,
      2 * p - l,
      2 * p - h,
      p + (h - l),
      p - (h - l),
    ];
    [out.prev_day_high![i], out.prev_day_low![i]] = [h, l];
  }
  // Ichimoku(9, 26, 52): spans shifted 26 bars forward
  const midOf = (k: number) => {
    const lows = rolling(low, k, min);
    return Float64Array.from(rolling(high, k, max), (h, i) => (h + lows[i]!) / 2);
  };
  const tk = midOf(9);
  const kj = midOf(26);
  const sb = midOf(52);
  out.ichi_tenkan_9_26_52 = tk;
  out.ichi_kijun_9_26_52 = kj;
  out.ichi_span_a_9_26_52 = Float64Array.from(tk, (_, i) => (i >= 26 ? (tk[i - 26]! + kj[i - 26]!) / 2 : Number.NaN));
  out.ichi_span_b_9_26_52 = Float64Array.from(sb, (_, i) => (i >= 26 ? sb[i - 26]! : Number.NaN));
  out.ichi_cloud_top_9_26_52 = Float64Array.from(sb, (_, i) => Math.max(out.ichi_span_a_9_26_52![i]!, out.ichi_span_b_9_26_52![i]!));
  out.ichi_cloud_bot_9_26_52 = Float64Array.from(sb, (_, i) => Math.min(out.ichi_span_a_9_26_52![i]!, out.ichi_span_b_9_26_52![i]!));
  out.ichi_chikou_ref_9_26_52 = Float64Array.from(close, (_, i) => (i >= 26 ? close[i - 26]! : Number.NaN));
  // ROC(10) in percent, Williams %R(14), z-score(20), prior 20-bar high/low
  out.roc_pct_10 = Float64Array.from(close, (c, i) => (i >= 10 ? (c / close[i - 10]! - 1) * 100 : Number.NaN));
  const hh14 = rolling(high, 14, max);
  const ll14 = rolling(low, 14, min);
  out.willr_14 = Float64Array.from(close, (c, i) =>
    hh14[i]! > ll14[i]! ? (-100 * (hh14[i]! - c)) / (hh14[i]! - ll14[i]!) : Number.isNaN(hh14[i]!) ? Number.NaN : -50,
  );
  out.zscore_20 = rolling(close, 20, (w) => {
    const m = mean(w);
    const sd = Math.sqrt(mean(w.map((v) => (v - m) ** 2)));
    return sd > 1e-7 * w[0]! ? (w[0]! - m) / sd : 0;
  });
  // Candles
  out.engulfing = Float64Array.from(close, (c, i) => {
    if (i === 0) return 0;
    const [o, po, pc] = [open[i]!, open[i - 1]!, close[i - 1]!];
    if (c > o && pc < po && c >= po && o <= pc) return 1;
    if (c < o && pc > po && c <= po && o >= pc) return -1;
    return 0;
  });
  out.pin_bar = Float64Array.from(close, (c, i) => {
    const r = high[i]! - low[i]!;
    if (!(r > 0)) return 0;
    if ((Math.min(open[i]!, c) - low[i]!) / r >= 2 / 3) return 1;
    if ((high[i]! - Math.max(open[i]!, c)) / r >= 2 / 3) return -1;
    return 0;
  });
  out.inside_bar = Float64Array.from(close, (_, i) => (i > 0 && high[i]! < high[i - 1]! && low[i]! > low[i - 1]! ? 1 : 0));
  const ib = out.inside_bar;
  out.inside_bar_break = Float64Array.from(close, (c, i) =>
    i > 1 && ib[i - 1] === 1 ? (c > high[i - 1]! ? 1 : c < low[i - 1]! ? -1 : 0) : 0,
  );
  // Candles in a row: counted back bar by bar, signed by direction, capped at 10.
  out.candle_run = Float64Array.from(close, (c, i) => {
    const dir = Math.sign(c - open[i]!);
    let n = 1;
    while (dir !== 0 && n < 10 && i - n >= 0 && Math.sign(close[i - n]! - open[i - n]!) === dir) n++;
    return dir * n;
  });
  out.vol_regime_14_100 = Float64Array.from(rolling(atr14, 100, mean), (m, i) => atr14[i]! / m);
  // Morning / evening star and tweezers, from their textbook shapes (no gaps in forex)
  const body = Float64Array.from(close, (c, i) => c - open[i]!);
  out.star = Float64Array.from(close, (c, i) => {
    if (i < 2) return 0;
    const small = Math.abs(body[i - 1]!) < 0.5 * Math.abs(body[i - 2]!);
    const mid = (open[i - 2]! + close[i - 2]!) / 2;
    if (body[i - 2]! < 0 && small && body[i]! > 0 && c > mid) return 1;
    if (body[i - 2]! > 0 && small && body[i]! < 0 && c < mid) return -1;
    return 0;
  });
  out.tweezer = Float64Array.from(close, (_, i) => {
    if (i < 1) return 0;
    const rng = Math.max(high[i]! - low[i]!, high[i - 1]! - low[i - 1]!);
    if (body[i - 1]! < 0 && body[i]! > 0 && Math.abs(low[i]! - low[i - 1]!) <= 0.1 * rng) return 1;
    if (body[i - 1]! > 0 && body[i]! < 0 && Math.abs(high[i]! - high[i - 1]!) <= 0.1 * rng) return -1;
    return 0;
  });
  // NR7: narrower than each of the 6 bars before; its breakout on the next bar's close
  const range = Float64Array.from(high, (h, i) => h - low[i]!);
  out.nr_7 = Float64Array.from(range, (r, i) => (i >= 6 && r < Math.min(...range.slice(i - 6, i)) ? 1 : 0));
  out.nr_7_break = Float64Array.from(close, (c, i) =>
    i > 0 && out.nr_7![i - 1] === 1 ? (c > high[i - 1]! ? 1 : c < low[i - 1]! ? -1 : 0) : 0,
  );
  // Heikin Ashi: HA close the OHLC mean, HA open the mean of the last HA open and close
  const haClose = Float64Array.from(close, (c, i) => (open[i]! + high[i]! + low[i]! + c) / 4);
  const haOpen = new Float64Array(n);
  haOpen[0] = (open[0]! + close[0]!) / 2;
  for (let i = 1; i < n; i++) haOpen[i] = (haOpen[i - 1]! + haClose[i - 1]!) / 2;
  out.ha_dir = Float64Array.from(haClose, (c, i) => Math.sign(c - haOpen[i]!));
  out.ha_run = Float64Array.from(out.ha_dir, (d, i) => {
    let k = 1;
    while (d !== 0 && k < 10 && i - k >= 0 && out.ha_dir![i - k] === d) k++;
    return d * k;
  });
  // Divergence: a new 14-bar low (high) the oscillator does not confirm, by more than its margin
  const divergence = (osc: Series, margin: (i: number) => number) => {
    const [ll, hh, ol, oh] = [rolling(low, 14, min, 1), rolling(high, 14, max, 1), rolling(osc, 14, min, 1), rolling(osc, 14, max, 1)];
    return Float64Array.from(close, (_, i) =>
      low[i]! < ll[i]! && osc[i]! > ol[i]! + margin(i) ? 1 : high[i]! > hh[i]! && osc[i]! < oh[i]! - margin(i) ? -1 : 0,
    );
  };
  const change = Float64Array.from(close, (c, i) => (i === 0 ? Number.NaN : c - close[i - 1]!));
  const gain = ewm(
    change.map((d) => (Number.isNaN(d) ? d : Math.max(d, 0))),
    1 / 14,
  );
  const loss = ewm(
    change.map((d) => (Number.isNaN(d) ? d : Math.max(-d, 0))),
    1 / 14,
  );
  out.rsi_div_14_14 = divergence(
    Float64Array.from(gain, (g, i) => 100 - 100 / (1 + g / loss[i]!)),
    () => 1e-6,
  );
  const slow = ewm(close, 2 / 27);
  const macdLine = Float64Array.from(ewm(close, 2 / 13), (f, i) => f - slow[i]!);
  out.macd_div_12_26_14 = divergence(macdLine, (i) => 1e-9 * close[i]!);
  // Awesome oscillator: SMA 5 - SMA 34 of the median price
  const median = Float64Array.from(high, (h, i) => (h + low[i]!) / 2);
  const sma34 = rolling(median, 34, mean);
  out.ao_5_34 = Float64Array.from(rolling(median, 5, mean), (f, i) => f - sma34[i]!);
  // The Asian session's (00-09 UTC) high and low from 09:00 on, the last completed session's before
  out.sess_high_0_9 = nan(n);
  out.sess_low_0_9 = nan(n);
  for (let i = 0, h = Number.NaN, l = Number.NaN, lastH = Number.NaN, lastL = Number.NaN; i < n; i++) {
    if (i > 0 && dayOf(ts[i]!) !== dayOf(ts[i - 1]!)) [h, l] = [Number.NaN, Number.NaN];
    const hour = new Date(ts[i]!).getUTCHours();
    if (hour < 9) [h, l] = [Number.isNaN(h) ? high[i]! : Math.max(h, high[i]!), Number.isNaN(l) ? low[i]! : Math.min(l, low[i]!)];
    else if (!Number.isNaN(h)) [lastH, lastL] = [h, l];
    [out.sess_high_0_9[i], out.sess_low_0_9[i]] = [lastH, lastL];
  }
  // SuperTrend(10, 3) and Parabolic SAR(0.02, 0.2), written from their textbook rules
  const atr10 = ewm(tr, 1 / 10);
  const st = new Float64Array(n);
  const stDir = new Float64Array(n).fill(1);
  let [fu, fl] = [(high[0]! + low[0]!) / 2 + 3 * atr10[0]!, (high[0]! + low[0]!) / 2 - 3 * atr10[0]!];
  for (let i = 1; i < n; i++) {
    const m = (high[i]! + low[i]!) / 2;
    const [bu, bl] = [m + 3 * atr10[i]!, m - 3 * atr10[i]!];
    const [pu, pl] = [fu, fl];
    fu = bu < pu || close[i - 1]! > pu ? bu : pu;
    fl = bl > pl || close[i - 1]! < pl ? bl : pl;
    stDir[i] = close[i]! > pu ? 1 : close[i]! < pl ? -1 : stDir[i - 1]!;
    st[i] = stDir[i]! > 0 ? fl : fu;
  }
  out.supertrend_10_3 = st;
  out.supertrend_dir_10_3 = stDir;
  // Each bar's SAR is run over its own last 100 bars (bounded memory: see trader-indicators.ts).
  const K = 100;
  const sar = nan(n);
  const sarDir = nan(n);
  for (let r = K; r < n; r++) {
    const from = r - K;
    let [up, s, ep, af] = [true, low[from]!, high[from]!, 0.02];
    for (let i = from + 1; i <= r; i++) {
      s += af * (ep - s);
      if (up) {
        s = Math.min(s, low[i - 1]!, low[Math.max(i - 2, from)]!);
        if (low[i]! < s) [up, s, ep, af] = [false, ep, low[i]!, 0.02];
        else if (high[i]! > ep) [ep, af] = [high[i]!, Math.min(af + 0.02, 0.2)];
      } else {
        s = Math.max(s, high[i - 1]!, high[Math.max(i - 2, from)]!);
        if (high[i]! > s) [up, s, ep, af] = [true, ep, high[i]!, 0.02];
        else if (low[i]! < ep) [ep, af] = [low[i]!, Math.min(af + 0.02, 0.2)];
      }
    }
    sar[r] = s;
    sarDir[r] = up ? 1 : -1;
  }
  out.psar_0p02_0p2 = sar;
  out.psar_dir_0p02_0p2 = sarDir;
  return out;
}

describe('offline generator: trader indicators in pandas', () => {
  let runtime: StrategyRuntime;
  const bars = loadBars('EURUSD', '15min', 4000);
  const { code, intent } = generateOffline({ description: PROMPT, symbol: 'EURUSD', timeframe: '15min' });
  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 1 });
  });
  after(() => runtime.stop());

  it('computes every one the prompt names, and the code passes the static check', async () => {
    for (const c of [
      'adx_14',
      'plus_di_14',
      'cci_20',
      'kc_upper_20_2',
      'dc_upper_20',
      'vwap_session',
      'pivot_p',
      'prev_day_high',
      'prev_day_low',
      'ichi_span_a_9_26_52',
      'ichi_cloud_top_9_26_52',
      'ichi_cloud_bot_9_26_52',
      'psar_0p02_0p2',
      'supertrend_10_3',
      'roc_pct_10',
      'willr_14',
      'zscore_20',
      'engulfing',
      'pin_bar',
      'inside_bar',
      'inside_bar_break',
      'candle_run',
      'vol_regime_14_100',
      ...NEWER,
    ]) {
      assert.ok(intent.features.includes(c), `${c} not in ${intent.features.join(', ')}`);
    }
    // The chikou span drawn where it is plotted would read later closes: only its reference, the close 26 bars back, is a column.
    assert.deepEqual(
      intent.features.filter((f) => f.includes('chikou')),
      ['ichi_chikou_ref_9_26_52'],
    );
    assert.ok(code.includes(`df['ichi_chikou_ref_9_26_52'] = close.shift(26)`), 'the chikou reference is an earlier close');
    assert.deepEqual((await checkStrategyCode(code)).violations, []);
  });

  it('equals an independent loop computation of each on real bars, after its warm-up', async () => {
    const result = await runtime.features(code, bars, { timeoutMs: 120_000 });
    const refs = references(bars);
    const skip = 600; // the longest warm-up of these (Wilder seeds, a day of pivots, 100-bar regimes) is well inside
    const failures: string[] = [];
    for (const [name, ref] of Object.entries(refs)) {
      const col = result.values[result.columns.indexOf(name)];
      assert.ok(col, `no column ${name}`);
      let bad = 0;
      for (let i = skip; i < bars.close.length; i++) {
        const [a, b] = [col[i]!, ref[i]!];
        if (Number.isNaN(b)) continue;
        if (!(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)))) bad++;
      }
      if (bad) failures.push(`${name}: ${bad} rows differ`);
    }
    assert.deepEqual(failures, []);
  });

  it('passes the sandbox analysis on real bars: no look-ahead, a finite warm-up', async () => {
    const analysis = await runtime.analyze(code, bars, { timeoutMs: 180_000 });
    assert.deepEqual(analysis.problems, []);
    assert.ok(analysis.warmup !== null && analysis.warmup < bars.ts.length / 2, `warm-up ${analysis.warmup}`);
    assert.deepEqual(analysis.featureColumns, intent.features);
  });
});
