/**
 * The indicators traders name beyond the registry's eight (ADX/DMI, CCI, Keltner, Donchian,
 * session VWAP, daily pivots, Ichimoku, Parabolic SAR, SuperTrend, ROC, Williams %R, z-score,
 * prior highs/lows, candle patterns, Heikin-Ashi, RSI / MACD divergence, a session's range, the
 * awesome oscillator, volatility regime), as pandas written into the generated
 * feature_engineering. Every one is causal: rolling windows end at the bar, levels of a day are
 * the previous day's, Ichimoku's spans are shifted forward (shift(+26): the value a bar shows was
 * known 26 bars earlier) and its chikou span (close shifted back) is left out as look-ahead.
 * Recursive ones (Wilder smoothing, SAR, SuperTrend) settle within the warm-up stated here.
 */
import { formatParamValue } from '../../indicators/index.ts';
import { SESSIONS } from './parse-sessions.ts';

export const EXTRA_NAMES = [
  'adx',
  'cci',
  'keltner',
  'donchian',
  'vwap',
  'pivot',
  'ichimoku',
  'psar',
  'supertrend',
  'roc',
  'willr',
  'zscore',
  'hhll',
  'engulfing',
  'pinbar',
  'insidebar',
  'candlerun',
  'volregime',
  'star',
  'tweezer',
  'nr',
  'heikin',
  'rsidiv',
  'macddiv',
  'sessrange',
  'ao',
] as const;
/** Centres about which a level mirrors for the other side (RSI above 60 ↔ below 40; a signed state or run about 0). */
export const CENTRE: Readonly<Record<string, number>> = {
  rsi: 50,
  stoch: 50,
  willr: -50,
  cci: 0,
  roc: 0,
  macd: 0,
  zscore: 0,
  ao: 0,
  psar: 0,
  supertrend: 0,
  candlerun: 0,
  heikin: 0,
};
/** The candle patterns: a signed column, +1 bullish / -1 bearish (an inside or narrow-range bar: 1, its breakout ±1). */
export const PATTERN_NAMES: ReadonlySet<string> = new Set([
  'engulfing',
  'pinbar',
  'insidebar',
  'star',
  'tweezer',
  'nr',
  'heikin',
  'rsidiv',
  'macddiv',
]);
export type ExtraName = (typeof EXTRA_NAMES)[number];

export interface ParamSpec {
  name: string;
  type: 'integer' | 'number';
  default: number;
  min: number;
  max: number;
}

export interface ExtraIndicator {
  info: { params: ParamSpec[] };
  label: (p: Record<string, number>) => string;
  /** Output labels, when there are several columns (same order as `columns`). */
  outputs?: string[];
  columns: (p: Record<string, number>) => string[];
  /** Bars before the values equal a run over all history (to the analysis' 1e-9). */
  warmup: (p: Record<string, number>) => number;
  /** Pandas lines adding the columns (temporaries start with _x). */
  lines: (p: Record<string, number>, cols: string[]) => string[];
}

/** The longest run of candles counted: "N candles in a row" is read for N up to this. */
export const RUN_CAP = 10;

const int = (name: string, def: number, min: number, max: number): ParamSpec => ({ name, type: 'integer', default: def, min, max });
const num = (name: string, def: number, min: number, max: number): ParamSpec => ({ name, type: 'number', default: def, min, max });
const f = formatParamValue;
/** Bars until a Wilder/EMA seed weighs under 1e-12 (alpha = 1/period). */
const wilder = (period: number) => Math.ceil(Math.log(1e-12) / Math.log(1 - 1 / period));
const TR = ['_x_pc = close.shift(1)', '_x_tr = pd.concat([high - low, (high - _x_pc).abs(), (low - _x_pc).abs()], axis=1).max(axis=1)'];
/** The UTC day of each bar as an integer array (grouping by datetimes makes pandas warn, which the sandbox refuses). */
/** The bars each Parabolic SAR value is run over (see psar). */
const PSAR_BARS = 100;
const DAY_ID = "_x_day = np.asarray(df.index.view('int64')) // 86400000000000";
/** Bars of the longest UTC day of the data (1-minute bars): what a daily level needs to settle. */
const DAY_BARS = 2 * 1440;
/** Bars until an EMA of this span's seed weighs under 1e-12. */
const ema = (span: number) => Math.ceil(Math.log(1e-12) / Math.log(1 - 2 / (span + 1)));
const hh = (hour: number) => String(hour).padStart(2, '0');
/** "Asian session " when the hours are a session's (parse-sessions.ts), for the words a trader used. */
const sessionNamed = (start: number, end: number) => {
  const named = Object.values(SESSIONS).find((s) => s.hours[0] === start && s.hours[1] === end);
  return named ? `${named.label} session ` : '';
};
/**
 * How far the oscillator must stay from its extreme to count as not confirming (RSI points; the
 * MACD line's in a fraction of the close): a margin above rounding, so that two ways of computing
 * the same oscillator (pandas, Pine) never disagree on a tie.
 */
export const DIVERGENCE_MARGIN = { rsidiv: 1e-6, macddiv: 1e-9 } as const;
/** A divergence of `_x_osc` from price over the last N bars: a new low it does not confirm +1, a new high -1. */
const DIVERGENCE = (n: number, col: string, margin: string) => [
  `_x_bull = (low < low.shift(1).rolling(${n}).min()) & (_x_osc > _x_osc.shift(1).rolling(${n}).min() + ${margin})`,
  `_x_bear = (high > high.shift(1).rolling(${n}).max()) & (_x_osc < _x_osc.shift(1).rolling(${n}).max() - ${margin})`,
  `df['${col}'] = np.where(_x_bull, 1.0, np.where(_x_bear, -1.0, 0.0))`,
];

export const EXTRAS: Record<ExtraName, ExtraIndicator> = {
  adx: {
    info: { params: [int('period', 14, 2, 100)] },
    label: (p) => `ADX(${p.period})`,
    outputs: ['', '+DI', '-DI'],
    columns: (p) => [`adx_${p.period}`, `plus_di_${p.period}`, `minus_di_${p.period}`],
    warmup: (p) => 3 * wilder(p.period!),
    lines: (p, [adx, pdi, mdi]) => [
      ...TR,
      '_x_up = high.diff()',
      '_x_dn = -low.diff()',
      `_x_pdm = pd.Series(np.where((_x_up > _x_dn) & (_x_up > 0), _x_up, 0.0), index=df.index)`,
      `_x_mdm = pd.Series(np.where((_x_dn > _x_up) & (_x_dn > 0), _x_dn, 0.0), index=df.index)`,
      `_x_atr = _x_tr.ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      `_x_pdi = 100 * _x_pdm.ewm(alpha=1 / ${p.period}, adjust=False).mean() / _x_atr`,
      `_x_mdi = 100 * _x_mdm.ewm(alpha=1 / ${p.period}, adjust=False).mean() / _x_atr`,
      `_x_dx = 100 * (_x_pdi - _x_mdi).abs() / (_x_pdi + _x_mdi).replace(0, np.nan)`,
      `df['${adx}'] = _x_dx.fillna(0.0).ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      `df['${pdi}'] = _x_pdi`,
      `df['${mdi}'] = _x_mdi`,
    ],
  },
  cci: {
    info: { params: [int('period', 20, 2, 500)] },
    label: (p) => `CCI(${p.period})`,
    columns: (p) => [`cci_${p.period}`],
    warmup: (p) => 2 * p.period!,
    lines: (p, [cci]) => [
      '_x_tp = (high + low + close) / 3',
      `_x_ma = _x_tp.rolling(${p.period}).mean()`,
      '_x_md = 0.0',
      `for _j in range(${p.period}):`,
      '    _x_md = _x_md + (_x_tp.shift(_j) - _x_ma).abs()',
      `_x_md = _x_md / ${p.period}`,
      `df['${cci}'] = ((_x_tp - _x_ma) / (0.015 * _x_md)).where(_x_md > 1e-7 * close, 0.0)`,
    ],
  },
  keltner: {
    info: { params: [int('period', 20, 2, 200), num('mult', 2, 0.1, 10)] },
    label: (p) => `Keltner(${p.period}, ${p.mult})`,
    outputs: ['upper', 'middle', 'lower'],
    columns: (p) => [
      `kc_upper_${f(p.period!)}_${f(p.mult!)}`,
      `kc_mid_${f(p.period!)}_${f(p.mult!)}`,
      `kc_lower_${f(p.period!)}_${f(p.mult!)}`,
    ],
    warmup: (p) => Math.max(wilder(p.period!), Math.ceil(Math.log(1e-12) / Math.log(1 - 2 / (p.period! + 1)))),
    lines: (p, [up, mid, lo]) => [
      ...TR,
      `_x_mid = close.ewm(span=${p.period}, adjust=False).mean()`,
      `_x_atr = _x_tr.ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      `df['${up}'] = _x_mid + ${p.mult} * _x_atr`,
      `df['${mid}'] = _x_mid`,
      `df['${lo}'] = _x_mid - ${p.mult} * _x_atr`,
    ],
  },
  donchian: {
    info: { params: [int('period', 20, 2, 2000)] },
    label: (p) => `Donchian(${p.period})`,
    outputs: ['upper', 'lower', 'middle'],
    columns: (p) => [`dc_upper_${p.period}`, `dc_lower_${p.period}`, `dc_mid_${p.period}`],
    warmup: (p) => p.period! + 1,
    // The prior N bars (shift(1)): a close can break them, never the window it is part of.
    lines: (p, [up, lo, mid]) => [
      `df['${up}'] = high.rolling(${p.period}).max().shift(1)`,
      `df['${lo}'] = low.rolling(${p.period}).min().shift(1)`,
      `df['${mid}'] = (df['${up}'] + df['${lo}']) / 2`,
    ],
  },
  vwap: {
    info: { params: [] },
    label: () => 'session VWAP (time-weighted)',
    columns: () => ['vwap_session'],
    warmup: () => DAY_BARS,
    // Bars carry no volume: the typical price averaged since the UTC day's first bar (a TWAP).
    lines: (_p, [vwap]) => [
      DAY_ID,
      '_x_tp = (high + low + close) / 3',
      '_x_tpn = pd.Series(_x_tp.to_numpy())',
      `df['${vwap}'] = (_x_tpn.groupby(_x_day).cumsum() / (_x_tpn.groupby(_x_day).cumcount() + 1)).to_numpy()`,
    ],
  },
  pivot: {
    info: { params: [] },
    label: () => 'daily pivots (classic)',
    outputs: ['P', 'R1', 'S1', 'R2', 'S2', "previous day's high", "previous day's low"],
    columns: () => ['pivot_p', 'pivot_r1', 'pivot_s1', 'pivot_r2', 'pivot_s2', 'prev_day_high', 'prev_day_low'],
    warmup: () => DAY_BARS,
    // The previous UTC day's high, low and close: known from the day's first bar on.
    lines: (_p, [pp, r1, s1, r2, s2, pdh, pdl]) => [
      DAY_ID,
      '_x_h = pd.Series(pd.Series(high.to_numpy()).groupby(_x_day).max().shift(1).reindex(_x_day).to_numpy(), index=df.index)',
      '_x_l = pd.Series(pd.Series(low.to_numpy()).groupby(_x_day).min().shift(1).reindex(_x_day).to_numpy(), index=df.index)',
      '_x_c = pd.Series(pd.Series(close.to_numpy()).groupby(_x_day).last().shift(1).reindex(_x_day).to_numpy(), index=df.index)',
      `df['${pp}'] = (_x_h + _x_l + _x_c) / 3`,
      `df['${r1}'] = 2 * df['${pp}'] - _x_l`,
      `df['${s1}'] = 2 * df['${pp}'] - _x_h`,
      `df['${r2}'] = df['${pp}'] + (_x_h - _x_l)`,
      `df['${s2}'] = df['${pp}'] - (_x_h - _x_l)`,
      `df['${pdh}'] = _x_h`,
      `df['${pdl}'] = _x_l`,
    ],
  },
  ichimoku: {
    info: { params: [int('tenkan', 9, 2, 100), int('kijun', 26, 2, 200), int('senkou', 52, 2, 400)] },
    label: (p) => `Ichimoku(${p.tenkan}, ${p.kijun}, ${p.senkou})`,
    // The cloud's top and bottom (the higher and lower span): "above the cloud" is above both spans.
    // The chikou (lagging) span is the close drawn kijun bars back: "chikou above price" is the close above the close kijun bars ago (its reference column).
    outputs: ['tenkan', 'kijun', 'span A', 'span B', 'cloud top', 'cloud bottom', 'chikou reference (the close kijun bars back)'],
    columns: (p) => {
      const t = `${p.tenkan}_${p.kijun}_${p.senkou}`;
      return [
        `ichi_tenkan_${t}`,
        `ichi_kijun_${t}`,
        `ichi_span_a_${t}`,
        `ichi_span_b_${t}`,
        `ichi_cloud_top_${t}`,
        `ichi_cloud_bot_${t}`,
        `ichi_chikou_ref_${t}`,
      ];
    },
    warmup: (p) => p.senkou! + p.kijun! + 1,
    // Spans are plotted kijun bars ahead: the value at a bar is the one computed kijun bars before (shift(+kijun)).
    lines: (p, [tk, kj, sa, sb, top, bot, lag]) => [
      `df['${tk}'] = (high.rolling(${p.tenkan}).max() + low.rolling(${p.tenkan}).min()) / 2`,
      `df['${kj}'] = (high.rolling(${p.kijun}).max() + low.rolling(${p.kijun}).min()) / 2`,
      `df['${sa}'] = ((df['${tk}'] + df['${kj}']) / 2).shift(${p.kijun})`,
      `df['${sb}'] = ((high.rolling(${p.senkou}).max() + low.rolling(${p.senkou}).min()) / 2).shift(${p.kijun})`,
      // NaN while either span warms up (a comparison with NaN is False, so .where gives the NaN span).
      `df['${top}'] = df['${sa}'].where(df['${sa}'] > df['${sb}'], df['${sb}']).where(df['${sa}'].notna())`,
      `df['${bot}'] = df['${sa}'].where(df['${sa}'] < df['${sb}'], df['${sb}']).where(df['${sa}'].notna())`,
      `df['${lag}'] = close.shift(${p.kijun})`,
    ],
  },
  psar: {
    info: { params: [num('step', 0.02, 0.001, 0.5), num('max', 0.2, 0.01, 1)] },
    label: (p) => `Parabolic SAR(${p.step}, ${p.max}) over each bar's last ${PSAR_BARS} bars`,
    outputs: ['SAR', 'trend'],
    columns: (p) => [`psar_${f(p.step!)}_${f(p.max!)}`, `psar_dir_${f(p.step!)}_${f(p.max!)}`],
    // A SAR carried from the first bar never forgets where it began, so a window of history would
    // disagree with the full one for ever (no finite warm-up, which the sandbox's look-ahead check
    // needs). Each bar's SAR is run over its own last PSAR_BARS bars instead: every start at once,
    // one numpy step per bar of the window.
    warmup: () => PSAR_BARS + 1,
    lines: (p, [sar, dir]) => [
      '_x_h = high.to_numpy()',
      '_x_l = low.to_numpy()',
      `_x_k = ${PSAR_BARS}`,
      '_x_m = max(len(_x_h) - _x_k, 0)',
      '_x_i = np.arange(_x_m)',
      '_x_up = np.ones(_x_m, dtype=bool)',
      '_x_s = _x_l[:_x_m].copy()',
      '_x_ep = _x_h[:_x_m].copy()',
      `_x_af = np.full(_x_m, ${p.step})`,
      'for _t in range(1, _x_k + 1):',
      '    _j = _x_i + _t',
      '    _x_hj, _x_lj = _x_h[_j], _x_l[_j]',
      '    _x_p = _x_s + _x_af * (_x_ep - _x_s)',
      '    _x_su = np.minimum(_x_p, np.minimum(_x_l[_j - 1], _x_l[np.maximum(_j - 2, _x_i)]))',
      '    _x_sd = np.maximum(_x_p, np.maximum(_x_h[_j - 1], _x_h[np.maximum(_j - 2, _x_i)]))',
      '    _x_ru = _x_up & (_x_lj < _x_su)',
      '    _x_rd = ~_x_up & (_x_hj > _x_sd)',
      '    _x_nu = _x_up & ~_x_ru & (_x_hj > _x_ep)',
      '    _x_nd = ~_x_up & ~_x_rd & (_x_lj < _x_ep)',
      '    _x_s = np.where(_x_ru | _x_rd, _x_ep, np.where(_x_up, _x_su, _x_sd))',
      '    _x_ep = np.where(_x_ru | _x_nd, _x_lj, np.where(_x_rd | _x_nu, _x_hj, _x_ep))',
      `    _x_af = np.where(_x_ru | _x_rd, ${p.step}, np.where(_x_nu | _x_nd, np.minimum(_x_af + ${p.step}, ${p.max}), _x_af))`,
      '    _x_up = np.where(_x_ru, False, np.where(_x_rd, True, _x_up))',
      `df['${sar}'] = np.concatenate([np.full(len(_x_h) - _x_m, np.nan), _x_s])`,
      `df['${dir}'] = np.concatenate([np.full(len(_x_h) - _x_m, np.nan), np.where(_x_up, 1.0, -1.0)])`,
    ],
  },
  supertrend: {
    info: { params: [int('period', 10, 2, 100), num('mult', 3, 0.5, 10)] },
    label: (p) => `SuperTrend(${p.period}, ${p.mult})`,
    outputs: ['line', 'trend'],
    columns: (p) => [`supertrend_${f(p.period!)}_${f(p.mult!)}`, `supertrend_dir_${f(p.period!)}_${f(p.mult!)}`],
    warmup: (p) => wilder(p.period!) + 1000,
    lines: (p, [line, dir]) => [
      ...TR,
      `_x_atr = _x_tr.ewm(alpha=1 / ${p.period}, adjust=False).mean().to_numpy()`,
      '_x_mid = ((high + low) / 2).to_numpy()',
      '_x_c = close.to_numpy()',
      `_x_bu = _x_mid + ${p.mult} * _x_atr`,
      `_x_bl = _x_mid - ${p.mult} * _x_atr`,
      '_x_fu = _x_bu.copy()',
      '_x_fl = _x_bl.copy()',
      '_x_line = np.full(len(_x_c), np.nan)',
      '_x_dir = np.ones(len(_x_c))',
      'for _j in range(1, len(_x_c)):',
      '    _x_fu[_j] = _x_bu[_j] if (_x_bu[_j] < _x_fu[_j - 1] or _x_c[_j - 1] > _x_fu[_j - 1]) else _x_fu[_j - 1]',
      '    _x_fl[_j] = _x_bl[_j] if (_x_bl[_j] > _x_fl[_j - 1] or _x_c[_j - 1] < _x_fl[_j - 1]) else _x_fl[_j - 1]',
      '    _x_dir[_j] = 1.0 if _x_c[_j] > _x_fu[_j - 1] else (-1.0 if _x_c[_j] < _x_fl[_j - 1] else _x_dir[_j - 1])',
      '    _x_line[_j] = _x_fl[_j] if _x_dir[_j] > 0 else _x_fu[_j]',
      `df['${line}'] = _x_line`,
      `df['${dir}'] = _x_dir`,
    ],
  },
  roc: {
    info: { params: [int('period', 10, 1, 500)] },
    label: (p) => `ROC(${p.period})`,
    columns: (p) => [`roc_pct_${p.period}`],
    warmup: (p) => p.period! + 1,
    lines: (p, [roc]) => [`df['${roc}'] = close.pct_change(${p.period}) * 100`],
  },
  willr: {
    info: { params: [int('period', 14, 2, 500)] },
    label: (p) => `Williams %R(${p.period})`,
    columns: (p) => [`willr_${p.period}`],
    warmup: (p) => p.period!,
    lines: (p, [wr]) => [
      `_x_hh = high.rolling(${p.period}).max()`,
      `_x_ll = low.rolling(${p.period}).min()`,
      `df['${wr}'] = (-100 * (_x_hh - close) / (_x_hh - _x_ll)).where(_x_hh > _x_ll, -50.0)`,
    ],
  },
  zscore: {
    info: { params: [int('period', 20, 2, 2000)] },
    label: (p) => `z-score(${p.period})`,
    columns: (p) => [`zscore_${p.period}`],
    warmup: (p) => p.period!,
    // A two-pass deviation (exact on any stretch of history, like the %B of the Bollinger bands).
    lines: (p, [z]) => [
      `_x_m = close.rolling(${p.period}).mean()`,
      '_x_ss = 0.0',
      `for _j in range(${p.period}):`,
      '    _x_ss = _x_ss + (close.shift(_j) - _x_m) ** 2',
      `_x_sd = np.sqrt(_x_ss / ${p.period})`,
      `df['${z}'] = ((close - _x_m) / _x_sd).where(_x_sd > 1e-7 * close, 0.0)`,
    ],
  },
  hhll: {
    info: { params: [int('period', 20, 2, 3000)] },
    label: (p) => `${p.period}-bar high/low`,
    outputs: ['high', 'low'],
    columns: (p) => [`hh_${p.period}`, `ll_${p.period}`],
    warmup: (p) => p.period! + 1,
    lines: (p, [hh, ll]) => [
      `df['${hh}'] = high.rolling(${p.period}).max().shift(1)`,
      `df['${ll}'] = low.rolling(${p.period}).min().shift(1)`,
    ],
  },
  engulfing: {
    info: { params: [] },
    label: () => 'engulfing candle',
    columns: () => ['engulfing'],
    warmup: () => 2,
    // +1 bullish (a rising body covering the previous falling one), -1 bearish, else 0.
    lines: (_p, [e]) => [
      '_x_po = open_.shift(1)',
      '_x_pc = close.shift(1)',
      `df['${e}'] = np.where((close > open_) & (_x_pc < _x_po) & (close >= _x_po) & (open_ <= _x_pc), 1.0, np.where((close < open_) & (_x_pc > _x_po) & (close <= _x_po) & (open_ >= _x_pc), -1.0, 0.0))`,
    ],
  },
  pinbar: {
    info: { params: [] },
    label: () => 'pin bar',
    columns: () => ['pin_bar'],
    warmup: () => 1,
    // +1 a long lower wick (two thirds of the range, body in the top third), -1 its mirror.
    lines: (_p, [pb]) => [
      '_x_rng = (high - low).where(high > low, np.nan)',
      '_x_top = pd.concat([open_, close], axis=1).max(axis=1)',
      '_x_bot = pd.concat([open_, close], axis=1).min(axis=1)',
      `df['${pb}'] = np.where((_x_bot - low) / _x_rng >= 2 / 3, 1.0, np.where((high - _x_top) / _x_rng >= 2 / 3, -1.0, 0.0))`,
    ],
  },
  insidebar: {
    info: { params: [] },
    label: () => 'inside bar',
    outputs: ['', 'breakout'],
    columns: () => ['inside_bar', 'inside_bar_break'],
    warmup: () => 3,
    // The breakout: the bar after an inside bar closes above its high (+1) or below its low (-1).
    lines: (_p, [ib, brk]) => [
      `df['${ib}'] = np.where((high < high.shift(1)) & (low > low.shift(1)), 1.0, 0.0)`,
      `_x_prev = df['${ib}'].shift(1) > 0`,
      `df['${brk}'] = np.where(_x_prev & (close > high.shift(1)), 1.0, np.where(_x_prev & (close < low.shift(1)), -1.0, 0.0))`,
    ],
  },
  candlerun: {
    info: { params: [] },
    label: () => 'candles in a row (+ up, - down)',
    columns: () => ['candle_run'],
    // Capped at RUN_CAP so that a value never depends on bars further back than the warm-up.
    warmup: () => RUN_CAP + 1,
    // +k: the k-th rising candle (close > open) in a row, -k the k-th falling one, 0 a doji.
    lines: (_p, [run]) => [
      '_x_dir = np.sign(close - open_)',
      '_x_new = _x_dir != _x_dir.shift(1)',
      '_x_pos = pd.Series(np.arange(len(close)), index=close.index, dtype=float)',
      `df['${run}'] = ((_x_pos - _x_pos.where(_x_new).ffill() + 1).clip(upper=${RUN_CAP}) * _x_dir).where(_x_dir.notna())`,
    ],
  },
  volregime: {
    info: { params: [int('period', 14, 2, 100), int('window', 100, 10, 2000)] },
    label: (p) => `volatility regime (ATR ${p.period} vs its ${p.window}-bar mean)`,
    columns: (p) => [`vol_regime_${p.period}_${p.window}`],
    warmup: (p) => wilder(p.period!) + p.window!,
    // ATR over its own rolling mean: > 1 a volatile regime, < 1 a quiet one.
    lines: (p, [v]) => [
      ...TR,
      `_x_atr = _x_tr.ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      `df['${v}'] = _x_atr / _x_atr.rolling(${p.window}).mean()`,
    ],
  },
  star: {
    info: { params: [] },
    label: () => 'morning star / evening star',
    columns: () => ['star'],
    warmup: () => 3,
    // +1 a morning star: a falling candle, a small body (under half of it), then a rising close above
    // the first body's middle; -1 the evening star, its mirror (no gaps: forex trades round the clock).
    lines: (_p, [st]) => [
      '_x_b = close - open_',
      '_x_b2 = _x_b.shift(2)',
      '_x_small = _x_b.shift(1).abs() < 0.5 * _x_b2.abs()',
      '_x_mid = (open_.shift(2) + close.shift(2)) / 2',
      `df['${st}'] = np.where((_x_b2 < 0) & _x_small & (_x_b > 0) & (close > _x_mid), 1.0, np.where((_x_b2 > 0) & _x_small & (_x_b < 0) & (close < _x_mid), -1.0, 0.0))`,
    ],
  },
  tweezer: {
    info: { params: [] },
    label: () => 'tweezer bottom / top',
    columns: () => ['tweezer'],
    warmup: () => 2,
    // +1 a tweezer bottom: a falling then a rising candle whose lows match within a tenth of the
    // larger range; -1 a tweezer top: rising then falling, highs matching.
    lines: (_p, [tw]) => [
      '_x_rng = pd.concat([high - low, (high - low).shift(1)], axis=1).max(axis=1)',
      '_x_b = close - open_',
      '_x_pb = _x_b.shift(1)',
      `df['${tw}'] = np.where((_x_pb < 0) & (_x_b > 0) & ((low - low.shift(1)).abs() <= 0.1 * _x_rng), 1.0, np.where((_x_pb > 0) & (_x_b < 0) & ((high - high.shift(1)).abs() <= 0.1 * _x_rng), -1.0, 0.0))`,
    ],
  },
  nr: {
    info: { params: [int('period', 7, 2, 50)] },
    label: (p) => `NR${p.period} (narrowest range of ${p.period} bars)`,
    outputs: ['', 'breakout'],
    columns: (p) => [`nr_${p.period}`, `nr_${p.period}_break`],
    warmup: (p) => p.period! + 1,
    // 1 on a bar whose range is narrower than each of the N-1 before; its breakout: the next bar
    // closes above its high (+1) or below its low (-1).
    lines: (p, [nr, brk]) => [
      '_x_r = high - low',
      `df['${nr}'] = np.where(_x_r < _x_r.shift(1).rolling(${p.period! - 1}).min(), 1.0, 0.0)`,
      `_x_prev = df['${nr}'].shift(1) > 0`,
      `df['${brk}'] = np.where(_x_prev & (close > high.shift(1)), 1.0, np.where(_x_prev & (close < low.shift(1)), -1.0, 0.0))`,
    ],
  },
  heikin: {
    info: { params: [] },
    label: () => 'Heikin Ashi candle',
    outputs: ['', 'run'],
    columns: () => ['ha_dir', 'ha_run'],
    // The HA open halves its distance to the last HA close each bar: its seed weighs under 1e-12 after 40.
    warmup: () => 40 + RUN_CAP,
    // ha_dir +1 a green (rising) Heikin-Ashi candle, -1 red; ha_run: the k-th one the same colour in a
    // row, signed, capped as candle_run. HA open = mean of the last HA open and close (an EMA of 1/2).
    lines: (_p, [dir, run]) => [
      '_x_hc = (open_ + high + low + close) / 4',
      '_x_seed = _x_hc.shift(1)',
      '_x_seed.iloc[0] = (open_.iloc[0] + close.iloc[0]) / 2',
      '_x_ho = _x_seed.ewm(alpha=0.5, adjust=False).mean()',
      '_x_dir = np.sign(_x_hc - _x_ho)',
      `df['${dir}'] = _x_dir`,
      '_x_new = _x_dir != _x_dir.shift(1)',
      '_x_pos = pd.Series(np.arange(len(close)), index=close.index, dtype=float)',
      `df['${run}'] = (_x_pos - _x_pos.where(_x_new).ffill() + 1).clip(upper=${RUN_CAP}) * _x_dir`,
    ],
  },
  rsidiv: {
    info: { params: [int('period', 14, 2, 100), int('lookback', 14, 3, 200)] },
    label: (p) => `RSI(${p.period}) divergence over ${p.lookback} bars`,
    columns: (p) => [`rsi_div_${p.period}_${p.lookback}`],
    warmup: (p) => 1 + wilder(p.period!) + p.lookback!,
    // +1 bullish: a new low of the last N bars that RSI does not confirm (it stays above its lowest of
    // those bars); -1 bearish: a new high with RSI below its highest.
    lines: (p, [dv]) => [
      '_x_d = close.diff()',
      `_x_g = _x_d.clip(lower=0).ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      `_x_l = (-_x_d).clip(lower=0).ewm(alpha=1 / ${p.period}, adjust=False).mean()`,
      '_x_osc = 100 - 100 / (1 + _x_g / _x_l)',
      ...DIVERGENCE(p.lookback!, dv!, String(DIVERGENCE_MARGIN.rsidiv)),
    ],
  },
  macddiv: {
    info: { params: [int('fast', 12, 2, 100), int('slow', 26, 3, 300), int('lookback', 14, 3, 200)] },
    label: (p) => `MACD(${p.fast},${p.slow}) divergence over ${p.lookback} bars`,
    columns: (p) => [`macd_div_${p.fast}_${p.slow}_${p.lookback}`],
    warmup: (p) => ema(Math.max(p.fast!, p.slow!)) + p.lookback!,
    // As RSI's, on the MACD line (fast EMA - slow EMA).
    lines: (p, [dv]) => [
      `_x_osc = close.ewm(span=${p.fast}, adjust=False).mean() - close.ewm(span=${p.slow}, adjust=False).mean()`,
      ...DIVERGENCE(p.lookback!, dv!, `${DIVERGENCE_MARGIN.macddiv} * close`),
    ],
  },
  sessrange: {
    info: { params: [int('start', 7, 0, 23), int('end', 8, 0, 23)] },
    // A one-hour window is what traders call an opening range.
    label: (p) =>
      `${sessionNamed(p.start!, p.end!)}${hh(p.start!)}-${hh(p.end!)} UTC ${(p.end! - p.start! + 24) % 24 === 1 ? 'opening range' : 'range'}`,
    outputs: ['high', 'low'],
    columns: (p) => [`sess_high_${p.start}_${p.end}`, `sess_low_${p.start}_${p.end}`],
    // The last completed window's: it reaches back over a weekend, about a day of 1-minute bars, plus the window.
    warmup: () => DAY_BARS,
    // The high and low of a day's bars opening in [start, end) UTC (a window across midnight counts
    // from its start), from the first bar after the window; until the next window has closed, the
    // last completed one's (never NaN in between: the generated code back-fills NaN, which would
    // read later bars).
    lines: (p, [hi, lo]) => {
      const span = (p.end! - p.start! + 24) % 24 || 24;
      const level = (col: string, src: string, cum: string) =>
        `df['${col}'] = pd.Series(np.where(_x_in, ${src}, np.nan), index=df.index).groupby(_x_dd).${cum}().groupby(_x_dd).ffill().where(_x_after).ffill()`;
      return [
        `_x_ns = np.asarray(df.index.view('int64')) - ${p.start} * 3600000000000`,
        '_x_hr = (_x_ns // 3600000000000) % 24',
        '_x_dd = _x_ns // 86400000000000',
        `_x_in = _x_hr < ${span}`,
        `_x_after = _x_hr >= ${span}`,
        level(hi!, 'high', 'cummax'),
        level(lo!, 'low', 'cummin'),
      ];
    },
  },
  ao: {
    info: { params: [int('fast', 5, 2, 100), int('slow', 34, 3, 300)] },
    label: (p) => `Awesome Oscillator(${p.fast},${p.slow})`,
    columns: (p) => [`ao_${p.fast}_${p.slow}`],
    warmup: (p) => Math.max(p.fast!, p.slow!),
    // The median price's fast SMA minus its slow SMA.
    lines: (p, [ao]) => ['_x_med = (high + low) / 2', `df['${ao}'] = _x_med.rolling(${p.fast}).mean() - _x_med.rolling(${p.slow}).mean()`],
  },
};
