/**
 * The intent corpus: trader prompts with what they must be understood to ask. Each base idea is
 * written in several styles — terse as written, chatty, misspelt, with numbers in words — and
 * there are prompts with several ideas in one sentence and contradictory ones. Expectations are
 * checked against the generate answer's `understood`, the strategy_config and the code's columns
 * (intent-corpus.test.ts scores them per category).
 */
import type { Symbol, Timeframe } from '../../../schemas/common.ts';

export interface Expect {
  symbol?: Symbol;
  timeframe?: Timeframe;
  direction?: 'both' | 'long' | 'short';
  /** Feature columns the code must add. */
  columns?: string[];
  /** Columns it must not add (what a misreading would give). */
  absent?: string[];
  session?: [number, number] | null;
  skipDays?: string[];
  /** entry_filter / exit_long / exit_short set (true) or absent (false). */
  entryFilter?: boolean;
  exitLong?: boolean;
  exitShort?: boolean;
  /** entry_long / entry_short (the trader's entry rules) set (true) or absent (false). */
  entryLong?: boolean;
  entryShort?: boolean;
  model?: string;
  maxPositions?: number;
  takeProfit?: null;
  /** strategy_config trailing_stop, exactly (null: none). */
  trailingStop?: number | { atr: number; period: number } | { pips: number } | null;
  /** Words one of understood.stops must contain (e.g. "trailing"). */
  stops?: string[];
  /** Words the approximations must name. */
  approximated?: string[];
  /** Words one of understood.remarks must contain (a market with no bars, a clause not understood). */
  remarks?: string[];
  /**
   * What the trader named (an indicator, a level, a pattern: "Williams %R", "-80", "inside bar"),
   * each of which the reading must act on or own up to: found in an entry rule, exit, filter, stop,
   * target, approximation or remark (not merely computed as a feature). Matched ignoring case,
   * spaces, underscores and brackets, so "EMA 200" finds "EMA(200)" and "ema_200".
   */
  mentions?: string[];
}

export type Category = 'terse' | 'chatty' | 'misspelled' | 'words' | 'compound' | 'contradiction' | 'issue' | 'blind';

export interface IntentCase {
  id: string;
  category: Category;
  prompt: string;
  expect: Expect;
}

/** A base idea: its terse wording and what it asks. */
interface Base {
  id: string;
  prompt: string;
  expect: Expect;
}

const BASES: Base[] = [
  {
    id: 'rsi-dip',
    prompt: 'Buy when RSI 14 is below 30 on EURUSD 15min',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'long',
      columns: ['rsi_14', 'rsi_14_lt_30', 'entry_long_rule'],
      entryLong: true,
      entryShort: false,
    },
  },
  {
    id: 'rsi-sell',
    prompt: 'Sell when RSI 14 is above 70, GBPUSD hourly',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '1h',
      direction: 'short',
      columns: ['rsi_14_gt_70', 'entry_short_rule'],
      entryLong: false,
      entryShort: true,
    },
  },
  {
    id: 'ema-cross',
    prompt: 'EMA 9 crossing above EMA 21, both ways, USDJPY 5 minute',
    expect: {
      symbol: 'USDJPY',
      timeframe: '5min',
      direction: 'both',
      columns: ['ema_9', 'ema_21', 'ema_9_xup_ema_21', 'ema_9_xdn_ema_21'],
      entryLong: true,
      entryShort: true,
    },
  },
  {
    id: 'macd-hist',
    prompt: 'Go long when the MACD histogram turns positive, AUDUSD 1h',
    expect: { symbol: 'AUDUSD', timeframe: '1h', direction: 'long', columns: ['macd_hist_12_26_9_xup_0'] },
  },
  {
    id: 'bb-fade',
    prompt: 'Mean reversion with Bollinger bands 20 2.5 on EURUSD 5min',
    expect: { timeframe: '5min', columns: ['bb_out_20_2p5'], entryLong: false, entryShort: false },
  },
  {
    id: 'bb-lower',
    prompt: 'Buy when price closes below the lower Bollinger band, NZDUSD 15min',
    expect: { symbol: 'NZDUSD', direction: 'long', columns: ['bb_below_20_2'] },
  },
  {
    id: 'stoch',
    prompt: 'Stochastic 14 3 %K crossing above %D below 20 to buy, USDCAD hourly',
    expect: { symbol: 'USDCAD', timeframe: '1h', direction: 'long', columns: ['stoch_k_14_3'] },
  },
  {
    id: 'atr-offset',
    prompt: 'Sell when price is more than 2 ATR above the 50 EMA on GBPUSD 15 minute bars',
    expect: { symbol: 'GBPUSD', direction: 'short', columns: ['ema_50', 'atr_14', 'close_gt_ema_50_p2atr'], absent: ['atr_2'] },
  },
  {
    id: 'pct-below-high',
    prompt: 'Buy when price is 1.5% below the 20 bar high',
    expect: { direction: 'long', columns: ['hh_20', 'close_lt_hh_20_m1p5pct'] },
  },
  { id: 'rsi-avg', prompt: 'Go long when RSI 14 is above its 50 bar average', expect: { direction: 'long', columns: ['rsi_14_gt_avg50'] } },
  {
    id: 'ema-from-below',
    prompt: '9 EMA crossing the 21 from below while close above the 200',
    expect: { columns: ['ema_9_xup_ema_21', 'close_gt_ema_200'] },
  },
  {
    id: 'pivot-near',
    prompt: 'Buy within 10 pips of the pivot',
    expect: { direction: 'long', columns: ['pivot_p', 'close_near_pivot_p_10pips'] },
  },
  {
    id: 'adx-filter',
    prompt: 'Buy when RSI 14 is below 30 only when ADX is above 25',
    expect: { direction: 'long', columns: ['adx_14', 'adx_14_gt_25', 'entry_gate'], entryFilter: true },
  },
  {
    id: 'adx-rising',
    prompt: 'Go long when the 20 EMA is above the 100 EMA and ADX rises',
    expect: { direction: 'long', columns: ['ema_20_gt_ema_100', 'adx_14_rising'] },
  },
  {
    id: 'exit-ema',
    prompt: 'Go long when RSI 14 crosses above 30, exit on a close below the 20 EMA',
    expect: { direction: 'long', columns: ['close_xdn_ema_20', 'exit_long_rule'], exitLong: true },
  },
  {
    id: 'exit-line-cross',
    prompt: 'Short when stochastic crosses below 80, get out once price closes above the 50 SMA',
    expect: { direction: 'short', columns: ['close_xup_sma_50', 'exit_short_rule'], absent: ['close_gt_sma_50'], exitShort: true },
  },
  {
    id: 'days-trailing-word',
    prompt: 'Buy the MACD cross on nzd 4 hour bars, trail it by three atr, no trading thu',
    expect: { symbol: 'NZDUSD', direction: 'long', trailingStop: { atr: 3, period: 14 }, skipDays: ['thu'] },
  },
  {
    id: 'days-weekend-list',
    prompt: 'sell on cad 15m when rsi is over 80, no trades sat sun',
    expect: { symbol: 'USDCAD', timeframe: '15min', direction: 'short', skipDays: ['sat', 'sun'] },
  },
  {
    id: 'exit-rsi',
    prompt: 'Sell when price is above the upper Bollinger band, close when RSI 14 crosses 50',
    expect: { direction: 'short', columns: ['rsi_14_x_50', 'exit_short_rule'], exitShort: true },
  },
  { id: 'cci', prompt: 'Buy when CCI 20 crosses above -100', expect: { direction: 'long', columns: ['cci_20', 'cci_20_xup_m100'] } },
  { id: 'willr', prompt: 'Buy when Williams %R 14 is below -80', expect: { direction: 'long', columns: ['willr_14', 'willr_14_lt_m80'] } },
  {
    id: 'keltner',
    prompt: 'Sell when price is above the upper Keltner channel',
    expect: { direction: 'short', columns: ['kc_upper_20_2', 'close_gt_kc_upper_20_2'] },
  },
  { id: 'donchian', prompt: 'Donchian 55 channel breakout with a volatility filter', expect: { columns: ['dc_upper_55', 'breakout_55'] } },
  {
    id: 'supertrend',
    prompt: 'Go long when price crosses above the supertrend 10 3',
    expect: { direction: 'long', columns: ['supertrend_10_3', 'close_xup_supertrend_10_3'] },
  },
  {
    id: 'psar',
    prompt: 'Buy when price is above the parabolic SAR',
    expect: { direction: 'long', columns: ['psar_0p02_0p2', 'close_gt_psar_0p02_0p2'] },
  },
  { id: 'ichimoku', prompt: 'Buy when price is above the Ichimoku cloud', expect: { direction: 'long', columns: ['ichi_span_a_9_26_52'] } },
  {
    id: 'vwap',
    prompt: 'Sell when price is below the VWAP',
    expect: { direction: 'short', columns: ['vwap_session', 'close_lt_vwap_session'] },
  },
  { id: 'zscore', prompt: 'Buy when the z-score 20 is below -2', expect: { direction: 'long', columns: ['zscore_20', 'zscore_20_lt_m2'] } },
  { id: 'roc', prompt: 'Go long when ROC 10 is above 0', expect: { direction: 'long', columns: ['roc_pct_10', 'roc_pct_10_gt_0'] } },
  {
    id: 'engulfing',
    prompt: 'Buy a bullish engulfing candle above the 200 SMA',
    expect: { direction: 'long', columns: ['engulfing', 'close_gt_sma_200'] },
  },
  { id: 'pinbar', prompt: 'Trade pin bars at the 50 EMA', expect: { columns: ['pin_bar', 'ema_50'] } },
  { id: 'insidebar', prompt: 'Inside bar breakout, long and short', expect: { direction: 'both', columns: ['inside_bar'] } },
  {
    id: 'volregime',
    prompt: 'Only trade in a high volatility regime, EMA 12 26 cross',
    expect: { columns: ['vol_regime_14_100', 'ema_12_x_ema_26'] },
  },
  {
    id: 'target-ema',
    prompt: 'Sell when price is more than 2 ATR above the 50 EMA, target the EMA, stop 1.5 ATR',
    expect: { direction: 'short', exitShort: true, takeProfit: null, approximated: ['target the ema'] },
  },
  {
    id: 'swing-stop',
    prompt: 'Buy when RSI 14 is below 30, stop below the last swing low',
    expect: { direction: 'long', columns: ['ll_10', 'close_lt_ll_10'], exitLong: true, approximated: ['swing low'] },
  },
  {
    id: 'trail',
    prompt: 'Go long on an EMA 20 50 cross, trail by 2 ATR',
    expect: {
      takeProfit: null,
      direction: 'long',
      columns: ['ema_20_x_ema_50'],
      absent: ['hh_22', 'atr_2'],
      exitLong: false,
      trailingStop: { atr: 2, period: 14 },
      stops: ['trailing: 2 x ATR(14)'],
    },
  },
  {
    id: 'trail-pct',
    prompt: 'Buy when RSI 14 is below 30, trailing stop 1%',
    expect: { takeProfit: null, direction: 'long', columns: ['rsi_14_lt_30'], trailingStop: 0.01, stops: ['trailing: 1%'] },
  },
  {
    id: 'trail-pips',
    prompt: 'Sell when the MACD crosses below its signal line, trail the stop 30 pips',
    expect: {
      takeProfit: null,
      direction: 'short',
      absent: ['hh_22', 'll_22'],
      exitShort: false,
      trailingStop: { pips: 30 },
      stops: ['trailing: 30 pips'],
    },
  },
  {
    id: 'trail-stop-too',
    prompt: 'EMA 9 21 cross, stop 20 pips and a 1.5 ATR trailing stop',
    expect: {
      takeProfit: null,
      columns: ['ema_9_x_ema_21'],
      trailingStop: { atr: 1.5, period: 14 },
      stops: ['fixed: 20 pips', 'trailing: 1.5 x ATR(14)'],
    },
  },
  { id: 'no-fridays', prompt: "RSI 14 below 30, don't trade on Fridays", expect: { skipDays: ['fri'], columns: ['rsi_14_lt_30'] } },
  { id: 'no-mon-fri', prompt: 'EMA 12 26 cross, no mondays or fridays', expect: { skipDays: ['mon', 'fri'] } },
  { id: 'weekdays', prompt: 'MACD crossing its signal line, weekdays only', expect: { skipDays: ['sat', 'sun'] } },
  {
    id: 'london',
    prompt: 'RSI 7 below 25, long only, London session only',
    expect: { direction: 'long', session: [7, 16], columns: ['rsi_7_lt_25'] },
  },
  {
    id: 'newyork',
    prompt: 'Bollinger bands 20 2 fade, only during the New York session, max 2 positions',
    expect: { session: [12, 21], maxPositions: 2 },
  },
  { id: 'first-hour', prompt: 'EMA 9 21 cross in the London session, not in the first hour after the open', expect: { session: [8, 16] } },
  { id: 'xgb', prompt: 'MACD momentum with xgboost on EURUSD 15min', expect: { model: 'XGBClassifier' } },
  {
    id: 'gbm',
    prompt: 'Trend following on USDJPY hourly with a gradient boosting model, EMA 20 above EMA 100',
    expect: { symbol: 'USDJPY', timeframe: '1h', model: 'GradientBoostingClassifier' },
  },
  {
    id: 'unless',
    prompt: 'Buy when stochastic is oversold unless ADX is above 40',
    expect: { direction: 'long', columns: ['adx_14_gt_40', 'entry_gate'], entryFilter: true },
  },
  {
    id: 'cable',
    prompt: 'Cable 5 minute scalper: EMA 5 crossing EMA 13',
    expect: { symbol: 'GBPUSD', timeframe: '5min', columns: ['ema_5_x_ema_13'] },
  },
  {
    id: 'short-only',
    prompt: 'Short only: price below the 200 SMA and RSI 14 above 60',
    expect: { direction: 'short', columns: ['close_lt_sma_200', 'rsi_14_gt_60'] },
  },
  {
    id: 'kiwi',
    prompt: 'Kiwi hourly, buy when the 50 SMA crosses above the 200 SMA',
    expect: { symbol: 'NZDUSD', timeframe: '1h', direction: 'long', columns: ['sma_50_xup_sma_200'] },
  },
];

/** Chatty: the same idea wrapped in conversation. */
const chatty = (p: string, i: number) =>
  [
    `Hi! I'd like a strategy please. ${p}. Thanks a lot!`,
    `So here's my idea, tell me if it works: ${p}. Cheers`,
    `Hey there, could you build this for me - ${p}? Much appreciated.`,
  ][i % 3]!;

/** Misspelt: the typos traders make (the parser repairs them). */
const TYPOS: Array<[RegExp, string]> = [
  [/\bbelow\b/g, 'bellow'],
  [/\babove\b/g, 'abov'],
  [/\bBollinger\b/g, 'Bolinger'],
  [/\bStochastic\b/gi, 'stocastic'],
  [/\bcrossing\b/g, 'crosing'],
  [/\boversold\b/g, 'oversould'],
  [/\bMACD\b/g, 'MCAD'],
  [/\bsession\b/g, 'sesion'],
  [/\bposition/g, 'postion'],
  [/\bhistogram\b/g, 'histogarm'],
];
const misspell = (p: string) => TYPOS.reduce((s, [re, to]) => s.replace(re, to), p);

/** Numbers in words. */
const WORDS: Record<string, string> = {
  '2': 'two',
  '3': 'three',
  '5': 'five',
  '7': 'seven',
  '9': 'nine',
  '10': 'ten',
  '12': 'twelve',
  '13': 'thirteen',
  '14': 'fourteen',
  '20': 'twenty',
  '21': 'twenty-one',
  '25': 'twenty-five',
  '26': 'twenty-six',
  '30': 'thirty',
  '40': 'forty',
  '50': 'fifty',
  '55': 'fifty-five',
  '60': 'sixty',
  '70': 'seventy',
  '80': 'eighty',
  '100': 'one hundred',
  '200': 'two hundred',
};
const inWords = (p: string) => p.replace(/(?<![\d.%-])\b(\d+)\b(?![.\d]|%| ?(?:min|minute|pips))/g, (m, n: string) => WORDS[n] ?? m);

const COMPOUND: IntentCase[] = [
  {
    id: 'compound-1',
    category: 'compound',
    prompt:
      'EURUSD 15min: buy when RSI 14 is below 30 and price is above the 200 SMA, sell when RSI is above 70 and price is below it, London session, stop 20 pips, xgboost, no fridays',
    expect: {
      symbol: 'EURUSD',
      direction: 'both',
      columns: ['rsi_14_lt_30', 'rsi_14_gt_70', 'close_gt_sma_200'],
      session: [7, 16],
      skipDays: ['fri'],
      model: 'XGBClassifier',
      entryLong: true,
      entryShort: true,
    },
  },
  {
    id: 'compound-2',
    category: 'compound',
    prompt:
      'go long on GBPUSD hourly when the 20 EMA crosses above the 50 EMA only when ADX is above 20, exit when RSI 14 goes above 75, max 3 positions',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '1h',
      direction: 'long',
      columns: ['ema_20_xup_ema_50', 'adx_14_gt_20', 'rsi_14_xup_75'],
      entryFilter: true,
      exitLong: true,
      maxPositions: 3,
    },
  },
  {
    id: 'compound-3',
    category: 'compound',
    prompt:
      'USDJPY 5 minute, sell when price is 2 ATR above the 20 EMA and stochastic is overbought, target the EMA, trail by 1.5 ATR, NY session',
    expect: {
      symbol: 'USDJPY',
      timeframe: '5min',
      direction: 'short',
      columns: ['close_gt_ema_20_p2atr'],
      exitShort: true,
      session: [12, 21],
      trailingStop: { atr: 1.5, period: 14 },
      stops: ['trailing'],
    },
  },
  {
    id: 'compound-4',
    category: 'compound',
    prompt:
      'AUDUSD 15min mean reversion: Bollinger 20 2 and RSI 7 below 20 to buy, above 80 to sell, avoid the Asian session, random forest, weekdays only',
    expect: {
      symbol: 'AUDUSD',
      columns: ['bb_out_20_2', 'rsi_7_lt_20', 'rsi_7_gt_80'],
      skipDays: ['sat', 'sun'],
      model: 'RandomForestClassifier',
    },
  },
  {
    id: 'compound-5',
    category: 'compound',
    prompt:
      'Fade the London open on GBPUSD: if price is more than 2 ATR above the 50 EMA at 08:00 UTC, sell, target the EMA, stop 1.5 ATR. 15 minute bars.',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'short',
      columns: ['close_gt_ema_50_p2atr'],
      absent: ['atr_2'],
      exitShort: true,
      takeProfit: null,
    },
  },
  {
    id: 'compound-6',
    category: 'compound',
    prompt:
      'EURUSD hourly: buy when CCI 20 crosses above -100 and price is above the Ichimoku cloud, exit on a close below the kijun, no trades on mondays',
    expect: { timeframe: '1h', direction: 'long', columns: ['cci_20_xup_m100', 'exit_long_rule'], exitLong: true, skipDays: ['mon'] },
  },
  {
    id: 'compound-7',
    category: 'compound',
    prompt: 'long when price closes above the 20 day high and ADX rises, stop below the swing low, extra trees, predict the next 4 hours',
    expect: { direction: 'long', columns: ['adx_14_rising', 'close_lt_ll_10'], exitLong: true, model: 'ExtraTreesClassifier' },
  },
  {
    id: 'compound-8',
    category: 'compound',
    prompt:
      'Sell GBPUSD 5min when Williams %R 14 is above -20 and price is within 5 pips of the pivot, only when the z-score 50 is above 1',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '5min',
      direction: 'short',
      columns: ['willr_14_gt_m20', 'close_near_pivot_p_5pips', 'zscore_50_gt_1'],
      entryFilter: true,
    },
  },
];

const CONTRADICTIONS: IntentCase[] = [
  {
    id: 'contra-1',
    category: 'contradiction',
    prompt: 'long only, actually no, short only: RSI 14 above 70',
    expect: { direction: 'short', columns: ['rsi_14_gt_70'] },
  },
  {
    id: 'contra-2',
    category: 'contradiction',
    prompt: 'London session, no wait, New York session only, EMA 9 21 cross',
    expect: { session: [12, 21] },
  },
  {
    id: 'contra-3',
    category: 'contradiction',
    prompt: 'max 1 position, pyramid up to 3 positions, MACD cross',
    expect: { maxPositions: 3 },
  },
  {
    id: 'contra-4',
    category: 'contradiction',
    prompt: 'random forest, no, use xgboost, RSI 14 below 30',
    expect: { model: 'XGBClassifier', columns: ['rsi_14_lt_30'] },
  },
  { id: 'contra-5', category: 'contradiction', prompt: 'buy and sell on the EMA 20 50 cross, long only', expect: { direction: 'long' } },
  {
    id: 'contra-6',
    category: 'contradiction',
    prompt: 'EURUSD but really GBPUSD hourly, Bollinger 20 2 fade',
    expect: { symbol: 'EURUSD', timeframe: '1h' },
  },
];

const ISSUE: IntentCase[] = [
  {
    id: 'issue-1',
    category: 'issue',
    prompt:
      'Fade the London open on GBPUSD: if price is more than 2 ATR above the 50 EMA at 08:00 UTC, sell, target the EMA, stop 1.5 ATR. 15 minute bars.',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'short',
      columns: ['ema_50', 'atr_14', 'close_gt_ema_50_p2atr'],
      absent: ['atr_2'],
      exitShort: true,
      takeProfit: null,
      approximated: ['target the ema'],
    },
  },
  {
    id: 'issue-2',
    category: 'issue',
    prompt:
      'Trend following on USDJPY hourly: go long when the 20 EMA is above the 100 EMA and ADX rises, exit on a close below the 20 EMA, gradient boosting model',
    expect: {
      symbol: 'USDJPY',
      timeframe: '1h',
      direction: 'long',
      columns: ['ema_20_gt_ema_100', 'adx_14', 'adx_14_rising', 'close_xdn_ema_20', 'exit_long_rule'],
      exitLong: true,
      model: 'GradientBoostingClassifier',
    },
  },
  {
    id: 'issue-3',
    category: 'issue',
    prompt:
      'Mean reversion with Bollinger bands (20, 2.5) and RSI(7) below 20 on EURUSD 5min, only during the New York session, max 2 positions',
    expect: { symbol: 'EURUSD', timeframe: '5min', columns: ['bb_out_20_2p5', 'rsi_7_lt_20'], session: [12, 21], maxPositions: 2 },
  },
  {
    id: 'issue-4',
    category: 'issue',
    prompt: "RSI mean reversion on EURUSD, don't trade on Fridays",
    expect: { symbol: 'EURUSD', skipDays: ['fri'] },
  },
  // Issue 35: a trailing-stop trend idea gets no default take profit that caps the trend.
  {
    id: 'issue-5',
    category: 'issue',
    prompt: 'Donchian 20 breakout on AUDUSD hourly, trail the stop by 2 ATR',
    expect: { symbol: 'AUDUSD', timeframe: '1h', takeProfit: null, trailingStop: { atr: 2, period: 14 }, stops: ['trailing: 2 x ATR(14)'] },
  },
  // Issue 35: named indicators expressed exactly (never another in their place), each side as written, entry rules as gates.
  {
    id: 'issue-6',
    category: 'issue',
    prompt: 'Buy when Williams %R is below -80, sell when it is above -20',
    expect: {
      direction: 'both',
      columns: ['willr_14_lt_m80', 'willr_14_gt_m20'],
      absent: ['rsi_14', 'rsi_14_lt_30'],
      entryLong: true,
      entryShort: true,
    },
  },
  {
    id: 'issue-7',
    category: 'issue',
    prompt: 'Go long when CCI crosses back above -100',
    expect: {
      direction: 'long',
      columns: ['cci_20_xup_m100'],
      absent: ['cci_20_lt_m100', 'cci_20_xdn_m100'],
      entryLong: true,
      entryShort: false,
    },
  },
  {
    id: 'issue-8',
    category: 'issue',
    prompt: 'Long on a close above the upper Keltner channel, short on a close below the lower',
    expect: {
      direction: 'both',
      columns: ['close_gt_kc_upper_20_2', 'close_lt_kc_lower_20_2'],
      absent: ['breakout_20'],
      entryLong: true,
      entryShort: true,
    },
  },
  {
    id: 'issue-9',
    category: 'issue',
    prompt: 'Keltner channel breakout, both ways',
    expect: { direction: 'both', columns: ['kc_upper_20_2_break'], absent: ['breakout_20'], entryLong: true, entryShort: true },
  },
  {
    id: 'issue-10',
    category: 'issue',
    prompt: 'Long above the cloud, short below it',
    expect: {
      direction: 'both',
      columns: ['close_gt_ichi_cloud_top_9_26_52', 'close_lt_ichi_cloud_bot_9_26_52'],
      entryLong: true,
      entryShort: true,
    },
  },
  {
    id: 'issue-11',
    category: 'issue',
    prompt: 'Buy when the Parabolic SAR flips below price',
    expect: { direction: 'long', columns: ['psar_dir_0p02_0p2_xup_0'], entryLong: true, entryShort: false },
  },
  {
    id: 'issue-12',
    category: 'issue',
    prompt: 'Buy an inside bar breakout',
    expect: { direction: 'long', columns: ['inside_bar_break'], absent: ['breakout_20'], entryLong: true },
  },
  {
    id: 'issue-13',
    category: 'issue',
    prompt: 'Buy when price is above VWAP and RSI 14 is below 40',
    expect: { direction: 'long', columns: ['close_gt_vwap_session', 'rsi_14_lt_40'], approximated: ['VWAP'], entryLong: true },
  },
  {
    id: 'issue-14',
    category: 'issue',
    prompt: 'Long when +DI crosses above -DI and ADX is above 25',
    expect: { direction: 'long', columns: ['plus_di_14_xup_minus_di_14', 'adx_14_gt_25'], entryLong: true },
  },
  {
    id: 'issue-15',
    category: 'issue',
    prompt: 'Sell at R1, buy at S1',
    expect: {
      direction: 'both',
      columns: ['close_touch_pivot_r1', 'close_touch_pivot_s1'],
      absent: ['close_touch_pivot_p'],
      entryLong: true,
      entryShort: true,
    },
  },
  {
    id: 'issue-16',
    category: 'issue',
    prompt: 'Go long when ROC 10 is above 0.5',
    expect: { direction: 'long', columns: ['roc_pct_10_gt_0p5'], entryLong: true },
  },
  {
    id: 'issue-17',
    category: 'issue',
    prompt: 'Buy when price crosses above the 50 SMA and sell when it crosses below',
    expect: { direction: 'both', columns: ['close_xup_sma_50', 'close_xdn_sma_50'], entryLong: true, entryShort: true },
  },
  {
    id: 'issue-18',
    category: 'issue',
    prompt: 'RSI 14 and MACD as features, let the model decide',
    expect: { entryLong: false, entryShort: false },
  },
];

/**
 * Written after the parser, by someone who had not read it, in the way traders type: slang pair
 * names, a correction mid-sentence, the side as a verb, a negation carried over "or", pairs and
 * periods we have no bars for (said in a remark, never swapped in silence).
 */
const BLIND: IntentCase[] = [
  {
    id: 'blind-1',
    category: 'blind',
    prompt: 'cable on the 4 hour... no wait, hourly. short it when williams %r goes above -20 and cci is over 100. tp 40 pips sl 25',
    expect: { symbol: 'GBPUSD', timeframe: '1h', direction: 'short', columns: ['willr_14', 'cci_20'] },
  },
  {
    id: 'blind-2',
    category: 'blind',
    prompt: 'I want to buy EUR/JPY dips when the 200 ema slopes up. only trade london session, no mondays',
    expect: {
      symbol: 'EURUSD',
      direction: 'long',
      session: [7, 16],
      skipDays: ['mon'],
      remarks: ['EURJPY ("EUR/JPY"), which has no bars here'],
    },
  },
  {
    id: 'blind-3',
    category: 'blind',
    prompt: 'aussie 5m scalp. long on bullish engulfing above VWAP, exit when price closes under vwap. max 3 trades open',
    expect: { symbol: 'AUDUSD', timeframe: '5min', direction: 'long', maxPositions: 3, exitLong: true },
  },
  {
    id: 'blind-4',
    category: 'blind',
    prompt: 'Short USDCHF whenever the supertrend (10, 3) flips bearish, but not on fridays or during the asian session',
    expect: { symbol: 'USDCHF', direction: 'short', skipDays: ['fri'], session: [9, 0] },
  },
  {
    id: 'blind-5',
    category: 'blind',
    prompt: 'zscore 50 above 2 to sell on NZDUSD thirty minute bars',
    expect: { symbol: 'NZDUSD', timeframe: '15min', direction: 'short', remarks: ['thirty minute timeframe, which has no bars here'] },
  },
  {
    id: 'blind-6',
    category: 'blind',
    prompt: 'parabolic sar, both directions, gbpjpy 15m, logistic regression',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      model: 'LogisticRegression',
      remarks: ['GBPJPY, which has no bars here'],
    },
  },
  {
    id: 'blind-7',
    category: 'blind',
    prompt: 'long only: adx above 25, exit when adx drops below 20. EURGBP hourly.',
    expect: { timeframe: '1h', direction: 'long', exitLong: true, remarks: ['EURGBP, which has no bars here'] },
  },
  {
    id: 'blind-8',
    category: 'blind',
    prompt: 'buy when rsi(2) < 5 and close > sma(200); sell when rsi(2) > 95 and close < sma(200). random forest. 15 min eur usd',
    expect: { symbol: 'EURUSD', timeframe: '15min', direction: 'both', model: 'RandomForestClassifier', columns: ['rsi_2', 'sma_200'] },
  },
  {
    id: 'blind-9',
    category: 'blind',
    prompt:
      'sell gbpusd when macd crosses below signal line while price is under the 100 sma, dont trade in the first hour after the new york open',
    expect: { symbol: 'GBPUSD', direction: 'short' },
  },
  {
    id: 'blind-10',
    category: 'blind',
    prompt: 'donchian 55 breakout turtle style on gold? no, on EURUSD... use 1h. long and short, trail by 3 ATR',
    expect: {
      takeProfit: null,
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'both',
      trailingStop: { atr: 3, period: 14 },
      remarks: ['gold, which has no bars here'],
    },
  },
];

/**
 * Trader wording of the classes a fresh blind set found misread (issue 35), in new words: pair
 * slang and shorthands, a second side or clause, exits by an indicator, pivot and z-score levels
 * as entries, crosses, sessions by hours, counts in words, names kept.
 */
const TRADER_WORDS: IntentCase[] = [
  // Pair slang: nicknames anywhere, two-letter shorthands only where a pair stands; a pair with no bars is named.
  {
    id: 'slang-swissie',
    category: 'chatty',
    prompt: 'swissie on the 15 min, sell when rsi 14 goes over 75',
    expect: { symbol: 'USDCHF', timeframe: '15min', direction: 'short', entryShort: true },
  },
  {
    id: 'slang-gu',
    category: 'terse',
    prompt: 'gu 5m: buy when stoch %k crosses above %d',
    expect: { symbol: 'GBPUSD', timeframe: '5min', direction: 'long', entryLong: true },
  },
  {
    id: 'slang-uj',
    category: 'chatty',
    prompt: 'trading uj on the h1, long when close is above the 100 sma',
    expect: { symbol: 'USDJPY', timeframe: '1h', direction: 'long', entryLong: true },
  },
  {
    id: 'slang-dollar-yen',
    category: 'chatty',
    prompt: 'dollar yen hourly, short when cci 20 is above 150',
    expect: { symbol: 'USDJPY', timeframe: '1h', direction: 'short', entryShort: true },
  },
  {
    id: 'slang-btc',
    category: 'terse',
    prompt: 'btc 5 min, buy when rsi 7 is under 15',
    expect: { symbol: 'BTCUSD', timeframe: '5min', direction: 'long', entryLong: true },
  },
  {
    id: 'slang-guppy',
    category: 'chatty',
    prompt: 'guppy hourly, buy when rsi 14 is under 25',
    expect: { symbol: 'EURUSD', timeframe: '1h', direction: 'long', remarks: ['GBPJPY'] },
  },
  {
    id: 'slang-chunnel',
    category: 'terse',
    prompt: 'chunnel 5 min scalps, sell above the upper bollinger band',
    expect: { symbol: 'EURUSD', direction: 'short', remarks: ['EURGBP'], absent: ['dc_high_20'] },
  },
  {
    id: 'slang-not-a-pair',
    category: 'chatty',
    prompt: 'gbpusd 15m: buy when rsi 14 is below 30, eg after a selloff',
    expect: { symbol: 'GBPUSD', direction: 'long' },
  },
  // A second side said in few words: the first side's entry mirrored; a one-sided idea stays one-sided.
  {
    id: 'side-flip-both',
    category: 'compound',
    prompt: 'usdjpy hourly parabolic sar, buy on a bullish flip, sell on a bearish flip',
    expect: { symbol: 'USDJPY', direction: 'both', entryLong: true, entryShort: true },
  },
  {
    id: 'side-cross-back',
    category: 'compound',
    prompt: 'eurusd 15m: go long when the rsi 14 crosses above 55, go short when it crosses back down',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['rsi_14_xup_55', 'rsi_14_xdn_45'] },
  },
  {
    id: 'side-other-way',
    category: 'compound',
    prompt: 'long when macd crosses above its signal and price is over the 50 ema, shorts the other way round. gbpusd 1h',
    expect: { symbol: 'GBPUSD', direction: 'both', entryLong: true, entryShort: true, columns: ['close_lt_ema_50'] },
  },
  {
    id: 'side-signed-levels',
    category: 'compound',
    prompt: 'cci 14 under -150 buy, over +150 sell, audusd 5 min',
    expect: { symbol: 'AUDUSD', direction: 'both', entryLong: true, entryShort: true, columns: ['cci_14_gt_150'] },
  },
  {
    id: 'side-break-low',
    category: 'compound',
    prompt: 'gbpusd 1h: buy a break of the 20 bar high, sell a break of the low',
    expect: { direction: 'both', entryLong: true, entryShort: true },
  },
  {
    id: 'side-one-slang',
    category: 'chatty',
    prompt: 'short the loonie whenever rsi 9 rises over 80, 15 min',
    expect: { symbol: 'USDCAD', direction: 'short', entryLong: false, entryShort: true },
  },
  {
    id: 'side-no-mirror',
    category: 'chatty',
    prompt: 'buy eurusd when rsi 14 crosses above 30. no sells below the 200 sma',
    expect: { direction: 'long', entryLong: true, entryShort: false },
  },
  // Exits by an indicator, in few words: expressed as exit rules.
  {
    id: 'exit-elliptic-level',
    category: 'chatty',
    prompt: 'buy nzdusd 15m when williams %r 14 drops under -90, close when it climbs over -10',
    expect: { symbol: 'NZDUSD', direction: 'long', entryLong: true, exitLong: true },
  },
  {
    id: 'exit-reaches',
    category: 'chatty',
    prompt: 'sell audusd 1h when rsi 14 crosses under 65, close the trade when rsi reaches 35',
    expect: { symbol: 'AUDUSD', direction: 'short', entryShort: true, exitShort: true },
  },
  {
    id: 'exit-back-inside',
    category: 'compound',
    prompt: 'gbpusd 15m donchian 30: buy a close above the upper donchian, exit once price is back inside the channel',
    expect: { direction: 'long', entryLong: true, exitLong: true },
  },
  {
    id: 'exit-cloud',
    category: 'compound',
    prompt: 'usdjpy 1h: long above the ichimoku cloud, get out when price re enters the kumo',
    expect: { symbol: 'USDJPY', direction: 'long', entryLong: true, exitLong: true },
  },
  {
    id: 'exit-n-bar-low',
    category: 'compound',
    prompt: 'eurusd 1h, buy a 40 bar breakout, exit on a 10 bar low',
    expect: { direction: 'long', entryLong: true, exitLong: true, columns: ['ll_10'] },
  },
  {
    id: 'exit-through-zero',
    category: 'compound',
    prompt: 'sell when cci 20 is over 200, exit when cci crosses back through zero. usdcad 15m',
    expect: { symbol: 'USDCAD', direction: 'short', entryShort: true, exitShort: true },
  },
  {
    id: 'exit-middle-after-break',
    category: 'compound',
    prompt: 'audusd 1h: buy a close above the upper keltner 20 2, sell below the lower keltner, exit at the mid line',
    expect: { direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true },
  },
  // A level traded at with no relation (a pivot bounce, a band, a pullback to an average) is a rule; Bollinger is named so.
  {
    id: 'level-pivot-trade',
    category: 'compound',
    prompt: 'audusd 5m: sell the r2 rejection, buy the s2 bounce',
    expect: { direction: 'both', entryLong: true, entryShort: true, mentions: ['S2', 'R2'] },
  },
  {
    id: 'level-band-elliptic',
    category: 'compound',
    prompt: 'usdcad 15m range days: buy the lower bollinger band, sell the upper one',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['bb_below_20_2', 'bb_above_20_2'], mentions: ['Bollinger'] },
  },
  {
    id: 'level-pullback',
    category: 'chatty',
    prompt: 'eurusd 1h, buy dips to the 34 ema while the 100 sma is rising',
    expect: { direction: 'long', entryLong: true, mentions: ['EMA 34'] },
  },
  {
    id: 'forbid-after',
    category: 'chatty',
    prompt: 'gbpusd 15m, buy when rsi 14 crosses above 35. if adx 14 is above 40 no trading',
    expect: { direction: 'long', entryLong: true, entryFilter: true },
  },
  // Counts in words or after their noun; a z-score measured from an average; "out at" as an exit.
  {
    id: 'count-word-open',
    category: 'words',
    prompt: 'usdjpy 15m macd cross, both ways, no more than three open',
    expect: { direction: 'both', maxPositions: 3 },
  },
  {
    id: 'count-after-noun',
    category: 'terse',
    prompt: 'nzdusd 1h: buy when rsi 14 is below 25, 4 trades max',
    expect: { direction: 'long', maxPositions: 4 },
  },
  {
    id: 'zscore-from-average',
    category: 'compound',
    prompt: 'gbpusd 5m: z-score of price against the 30 sma above +2.5 sell, below -2.5 buy, out at zero',
    expect: {
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      absent: ['sma_30_gt_2p5'],
      mentions: ['z-score'],
    },
  },
  // Sessions: hours between two forbidden bounds; hours beat a session's gloss; "only" beats a session named as a price.
  {
    id: 'session-forbid-bounds',
    category: 'chatty',
    prompt: 'eurusd 15m, buy when rsi 14 is under 30, dont trade before 8 or after 17 gmt',
    expect: { session: [8, 17] },
  },
  {
    id: 'session-hours-gloss',
    category: 'chatty',
    prompt: 'usdjpy 5m, sell when stoch %k is above 85, trading 23:00 to 05:00 utc only (tokyo)',
    expect: { session: [23, 5] },
  },
  {
    id: 'session-only-vs-price',
    category: 'compound',
    prompt: 'new york session only on cable 15m: buy the break above the london high when rsi 14 is above 55',
    expect: { session: [12, 21], direction: 'long' },
  },
  // Names kept: a pattern with no column is said; a side's "only when" is its entry; a range breakout names Donchian.
  {
    id: 'pattern-unsupported',
    category: 'terse',
    prompt: 'gbpusd 1h: sell three black crows',
    expect: { direction: 'short', mentions: ['crows'] },
  },
  {
    id: 'side-only-when',
    category: 'compound',
    prompt: 'audusd 15m, buy only if rsi 7 crosses up through 20, sell only if rsi 7 crosses down through 80',
    expect: { direction: 'both', entryLong: true, entryShort: true, entryFilter: false },
  },
  {
    id: 'donchian-named',
    category: 'terse',
    prompt: 'usdcad 1h donchian 40 breakout both ways',
    expect: { direction: 'both', entryLong: true, entryShort: true, mentions: ['Donchian'] },
  },
];

/** Markets we have no bars for, named as traders write them (indices, commodities), and the hourly chart abbreviated. */
const UNOFFERED: IntentCase[] = [
  {
    id: 'index-us30',
    category: 'terse',
    prompt: 'Short the us30 when RSI 14 is above 70 on 5 minute bars',
    expect: { symbol: 'EURUSD', timeframe: '5min', direction: 'short', remarks: ['us30'] },
  },
  {
    id: 'commodity-wti',
    category: 'chatty',
    prompt: 'thinking of buying wti on dips, rsi under 30, hrly chart',
    expect: { symbol: 'EURUSD', timeframe: '1h', direction: 'long', remarks: ['wti'] },
  },
  {
    id: 'index-ger40',
    category: 'terse',
    prompt: 'ger40 breakout of the 20 bar high, long only, 15m',
    expect: { symbol: 'EURUSD', timeframe: '15min', direction: 'long', remarks: ['ger40'] },
  },
];

/**
 * Wordings read since the third blind set (each class in other words than the set's): returning to
 * a level, back-references, slopes, exits said after their condition, covers, zones left, the
 * other extreme, candle runs, chart periods as written, one-sided breakouts, std-dev bands.
 */
const RETURNS: IntentCase[] = [
  {
    id: 'exit-back-to-zero',
    category: 'compound',
    prompt: 'nzdusd 15m: long when the zscore of price vs the 40 sma drops under -2.2, short above 2.2, flat when it comes back to 0',
    expect: { direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true },
  },
  {
    id: 'exit-back-to-line',
    category: 'chatty',
    prompt: 'usdcad 1h buy when price is 2 atr under the 30 ema, close when price returns to the ema, no shorts',
    expect: { direction: 'long', entryLong: true, exitLong: true, mentions: ['EMA 30'] },
  },
  {
    id: 'exit-middle-line',
    category: 'compound',
    prompt: 'audusd 5m short when price closes below the lower keltner, exit once it closes back above the midline, short only',
    expect: { direction: 'short', entryShort: true, exitShort: true, columns: ['close_xup_kc_mid_20_2'] },
  },
  {
    id: 'slope-pullback',
    category: 'chatty',
    prompt: 'usdjpy 15m: when the 50 sma points up and price dips to it go long; when it points down and price rallies to it go short',
    expect: { direction: 'both', entryLong: true, entryShort: true, mentions: ['SMA 50'] },
  },
  {
    id: 'slope-mirror',
    category: 'compound',
    prompt: 'gbpusd 1h buy when the 100 ema is sloping upward and price crosses above it, sell the opposite',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['ema_100_rising', 'ema_100_falling'] },
  },
  {
    id: 'bounce-off-line',
    category: 'terse',
    prompt: 'eurusd 5m buy bounces off the vwap',
    expect: { direction: 'long', entryLong: true, mentions: ['VWAP'] },
  },
  {
    id: 'buy-back-cover',
    category: 'chatty',
    prompt: 'short gbpusd 5m when stoch %k crosses down through 85, buy it back when %k is under 30',
    expect: { direction: 'short', entryShort: true, entryLong: false, exitShort: true },
  },
  {
    id: 'cover-at-level',
    category: 'compound',
    prompt: 'usdchf 1h sell at r2 when rsi is above 65, cover at the pivot, shorts only',
    expect: { direction: 'short', entryShort: true, exitShort: true, mentions: ['R2'] },
  },
  {
    id: 'exit-said-after',
    category: 'compound',
    prompt: 'eurusd 1h golden cross of the 20 and 100 ema to go long, a death cross of the same = exit, never short',
    expect: { direction: 'long', entryLong: true, entryShort: false, exitLong: true },
  },
  {
    id: 'exit-crosses-back',
    category: 'compound',
    prompt: 'audusd 15m: sell when the 8 ema crosses below the 34 ema, cover when it crosses back above, shorts only',
    expect: { direction: 'short', entryShort: true, exitShort: true, columns: ['ema_8_xup_ema_34'] },
  },
  {
    id: 'zero-line-back',
    category: 'terse',
    prompt: 'usdjpy 5m roc 9 crosses above zero buy, crosses below zero sell, close it when roc crosses back',
    expect: { direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true },
  },
  {
    id: 'leave-oversold',
    category: 'chatty',
    prompt: 'cci 14 on cable 15m: buy when it climbs out of oversold (-150), sell when it falls from overbought (150)',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['cci_14_xup_m150', 'cci_14_xdn_150'], mentions: ['-150'] },
  },
  {
    id: 'other-extreme',
    category: 'compound',
    prompt: 'eurusd 5m rsi 5 crosses up through 15 buy, crosses down through 85 sell, get out at the opposite level',
    expect: { direction: 'both', exitLong: true, exitShort: true, columns: ['rsi_5_gt_85', 'rsi_5_lt_15'] },
  },
  {
    id: 'sign-in-words',
    category: 'words',
    prompt: 'usdcad 1h buy when williams %r rises above minus eighty, sell when it drops below minus twenty',
    expect: { direction: 'both', entryLong: true, entryShort: true, mentions: ['-80', '-20'] },
  },
  {
    id: 'bare-period-exit',
    category: 'compound',
    prompt: 'gbpusd 15m long when the 10 ema crosses above the 30 ema, exit when price closes below the 30',
    expect: { direction: 'long', exitLong: true, columns: ['close_xdn_ema_30'] },
  },
  {
    id: 'chain-compare',
    category: 'terse',
    prompt: 'usdchf 5m long when 5 ema > 13 ema > 34 ema',
    expect: { direction: 'long', columns: ['ema_13_gt_ema_34'] },
  },
  {
    id: 'supertrend-colour',
    category: 'chatty',
    prompt: 'audusd 1h: supertrend 7 2, long while it is green, short while it is red',
    expect: { direction: 'both', entryLong: true, entryShort: true, mentions: ['SuperTrend'] },
  },
  {
    id: 'sar-named-only',
    category: 'terse',
    prompt: 'psar both directions on usdjpy 15m',
    expect: { direction: 'both', entryLong: true, entryShort: true, mentions: ['SAR'] },
  },
  {
    id: 'macd-signal-cross',
    category: 'terse',
    prompt: 'nzdusd 1h macd signal cross both ways',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['macd_12_26_9_x_macd_signal_12_26_9'] },
  },
  {
    id: 'candle-run',
    category: 'chatty',
    prompt: 'eurusd 5m, after four green candles in a row i short it, after four red ones i buy',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['candle_run'] },
  },
  {
    id: 'chart-period-written',
    category: 'terse',
    prompt: 'h4 eurusd sell when rsi 14 is above 75',
    expect: { symbol: 'EURUSD', timeframe: '15min', direction: 'short', remarks: ['h4'] },
  },
  {
    id: 'breakout-high-only',
    category: 'terse',
    prompt: 'usdcad 15m, trade the break of the 30 bar high',
    expect: { direction: 'long', entryLong: true, entryShort: false },
  },
  {
    id: 'std-band-fade',
    category: 'chatty',
    prompt: 'fiber 5m: fade price when it is 2.5 standard deviations away from the 50 sma, both sides',
    expect: { direction: 'both', entryLong: true, entryShort: true, columns: ['zscore_50_lt_m2p5', 'zscore_50_gt_2p5'] },
  },
  {
    id: 'chikou-above',
    category: 'compound',
    prompt: 'usdjpy 1h long when price is above the cloud and the chikou span is above price, longs only',
    expect: { direction: 'long', entryLong: true, mentions: ['chikou'] },
  },
  {
    id: 'days-plural-or',
    category: 'terse',
    prompt: 'eurusd 15m rsi 14 below 30 buy, no trading on tuesdays or wednesdays',
    expect: { skipDays: ['tue', 'wed'] },
  },
  {
    id: 'side-question-no',
    category: 'chatty',
    prompt: 'gbpusd 15m bullish engulfing at s1 = buy. shorts? nope',
    expect: { direction: 'long', entryLong: true, entryShort: false },
  },
];

export const INTENT_CORPUS: readonly IntentCase[] = [
  ...BASES.map((b) => ({ id: `${b.id}-terse`, category: 'terse' as const, prompt: b.prompt, expect: b.expect })),
  ...BASES.map((b, i) => ({ id: `${b.id}-chatty`, category: 'chatty' as const, prompt: chatty(b.prompt, i), expect: b.expect })),
  ...BASES.map((b) => ({ id: `${b.id}-misspelled`, category: 'misspelled' as const, prompt: misspell(b.prompt), expect: b.expect })),
  ...BASES.map((b) => ({ id: `${b.id}-words`, category: 'words' as const, prompt: inWords(b.prompt), expect: b.expect })),
  ...BASES.map((b) => ({
    id: `${b.id}-lower`,
    category: 'terse' as const,
    prompt: b.prompt.toLowerCase().replace(/[,:]|\.(?!\d)/g, ' '),
    expect: b.expect,
  })),
  ...BASES.map((b, i) => ({
    id: `${b.id}-shouty`,
    category: 'chatty' as const,
    prompt: `${i % 2 ? 'PLEASE: ' : 'Strategy idea -> '}${b.prompt}!!`,
    expect: b.expect,
  })),
  ...BASES.map((b) => ({
    id: `${b.id}-typos2`,
    category: 'misspelled' as const,
    prompt: misspell(b.prompt)
      .replace(/\bstrategy\b/g, 'stratgy')
      .replace(/\bwhen\b/g, 'wen'),
    expect: b.expect,
  })),
  ...COMPOUND,
  ...CONTRADICTIONS,
  ...ISSUE,
  ...BLIND,
  ...TRADER_WORDS,
  ...UNOFFERED,
  ...RETURNS,
];
