/**
 * The offline generator's prompt corpus: short, long, sloppy and misspelt, structured-only and
 * contradictory requests, every indicator, every model class, sessions and units. Every entry
 * must give code that passes the static check and the strategy_config schema; a deterministic
 * sample also runs the dynamic analysis and training (generator.test.ts), all of them in the
 * generator-matrix bench. Symbol and timeframe are chosen by the users of this list.
 */
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { CHIP_PRESETS, EXAMPLE_PROMPTS } from '../../../src/generation/offline/index.ts';

export type CorpusRequest = Omit<Partial<GenerateRequest>, 'symbol' | 'timeframe'>;

export interface CorpusEntry {
  id: string;
  request: CorpusRequest;
}

const d = (id: string, description: string): CorpusEntry => ({ id, request: { description } });

export const PROMPTS: readonly CorpusEntry[] = [
  // Short
  d('short-rsi', 'RSI(14) below 30'),
  d('short-rsi7', 'rsi 7 oversold'),
  d('short-ema', 'fast EMA 12 crossing above slow EMA 26'),
  d('short-bb', 'price outside the 2-sigma Bollinger band'),
  d('short-stoch', 'stochastic %K over %D'),
  d('short-macd', 'MACD histogram turning positive'),
  d('short-atr', 'ATR(14)'),
  d('short-sma', '200 SMA'),
  d('short-wma', 'WMA 10 crosses WMA 30'),
  d('short-word', 'momentum'),
  d('short-nonsense', 'make me rich'),
  d('short-golden', 'golden cross'),
  d('short-death', 'death cross, shorts only'),
  d('short-breakout', 'breakout'),
  d('short-oversold', 'buy oversold, sell overbought'),
  // Every indicator with parameters
  d('ind-sma', 'Buy when price crosses above the 50 SMA and sell when it crosses below'),
  d('ind-ema', 'EMA 9/21 crossover'),
  d('ind-ema-three', 'EMA 20, 50 and 200: long when price is above all three'),
  d('ind-wma', 'weighted moving average 14 above the 28 WMA'),
  d('ind-bb', 'Bollinger bands (20, 2.5): buy at the lower band, sell at the upper band'),
  d('ind-bb-std', 'bollinger 30 period 1.5 std, fade the bands'),
  d('ind-rsi', 'RSI with period 21 crossing 50'),
  d('ind-rsi-levels', 'RSI 14 30/70 reversal'),
  d('ind-macd', 'MACD(8,21,5) crosses above signal line'),
  d('ind-macd-named', 'macd with fast 5 slow 35 signal 5 above zero'),
  d('ind-stoch', 'Stochastic(5,3) below 20 then %K crossing above %D'),
  d('ind-stoch-k', 'stoch k 21 d 5 overbought above 85'),
  d('ind-atr', 'ATR 20 plus RSI 14, atr above 10 pips'),
  d('ind-all', 'use sma 20, ema 50, wma 10, bollinger 20 2, rsi 14, macd 12 26 9, stochastic 14 3 and atr 14'),
  // Every model
  d('model-rf', 'RSI below 30 with a random forest of 300 trees and max depth 8'),
  d('model-xgb', 'EMA cross using xgboost, learning rate 0.1, depth 5'),
  d('model-gb', 'MACD momentum with gradient boosting, 100 estimators'),
  d('model-et', 'Bollinger fade with extra trees'),
  d('model-lr', 'logistic regression on RSI and stochastic, C=0.5'),
  d('model-ada', 'adaboost with 150 estimators on macd histogram'),
  d('model-lgbm', 'lightgbm on rsi and ema'),
  d('model-nn', 'a neural network LSTM on price'),
  d('model-svm', 'SVM on bollinger bands'),
  // Sessions and hours
  d('sess-london', 'EMA 12/26 cross, London session only'),
  d('sess-ny', 'trade the New York session with RSI 14'),
  d('sess-asia', 'Asian session range with Bollinger bands'),
  d('sess-both', 'London and New York sessions, MACD cross'),
  d('sess-overlap', 'scalp the London-NY overlap with stochastic'),
  d('sess-hours', 'only between 13:00 and 17:00 UTC, RSI below 30'),
  d('sess-ampm', 'trade from 8am to 4pm EST with EMA 20'),
  d('sess-avoid', 'avoid the Asian session, RSI 14 oversold'),
  d('sess-after', 'only after 14:00 UTC, MACD above signal'),
  d('sess-sydney', 'Sydney session, stochastic oversold'),
  d('sess-all', 'trade all hours, 24/5, EMA cross'),
  d('sess-open', 'London open breakout of the 20 bar high'),
  // Units
  d('unit-pips', 'RSI below 30, stop loss 25 pips, take profit 50 pips'),
  d('unit-pct', 'EMA cross with a 0.5% stop and 1% target'),
  d('unit-usd', 'macd cross, stop $50, take profit $120'),
  d('unit-atr', 'breakout with stop 1.5 x ATR and a 2:1 reward to risk'),
  d('unit-ratio', 'stop 0.004 take profit 0.008 on rsi'),
  d('unit-bare', 'sl 15 tp 30 with ema 50'),
  d('unit-rr', 'stop 20 pips, 1:3 risk reward'),
  d('unit-twice', 'stop 10 pips and target twice the stop'),
  d('unit-nostop', 'no stop loss, take profit 40 pips, RSI 2 extremes'),
  d('unit-letrun', 'stop 30 pips and let profits run'),
  d('unit-huge', 'stop loss 50%, take profit 90%'),
  // Rules
  d('rule-long', 'long only RSI dip buying'),
  d('rule-short', 'shorts only when RSI above 70'),
  d('rule-both', 'trade both ways on the EMA 20/50 cross'),
  d('rule-noshorts', 'no shorts, buy MACD crosses'),
  d('rule-cooldown', 'wait 3 bars after a trade, EMA cross'),
  d('rule-cooldown-min', 'cooldown of 45 minutes, stochastic cross'),
  d('rule-maxpos', 'max 3 positions, pyramid into RSI dips'),
  d('rule-one', 'one trade at a time, bollinger reversion'),
  d('rule-reverse', 'reverse on opposite signal, macd cross'),
  d('rule-close', 'just close on an opposite signal, ema cross'),
  d('rule-ignore', 'ignore opposite signals and hold until stop or target, rsi'),
  d('rule-trend', 'only trade with the trend above the 200 SMA, RSI pullbacks'),
  d('rule-trend-ema', 'trend filter EMA 100, stochastic oversold'),
  d('rule-trend-bare', 'trade with the trend, MACD'),
  d('rule-vol', 'volatility filter, avoid quiet markets, bollinger breakout'),
  d('rule-natr', 'only when NATR is above 0.08, EMA cross'),
  d('rule-horizon', 'predict the next hour with RSI and EMA'),
  d('rule-horizon-bars', 'forecast 8 bars ahead using macd'),
  d('rule-horizon-day', 'predict the next day with SMA 50/200'),
  d('rule-confidence', 'only when 60% confident, EMA cross'),
  d('rule-threshold', 'probability threshold 0.7, RSI 14'),
  d('rule-conf-low', 'confidence 40%, rsi'),
  // Sloppy and misspelt
  d('typo-1', 'buy wen rsi is bellow 30 and sell wen its abov 70 pls, stoploss 20pips'),
  d('typo-2', 'Bolinger bands 20 2 with stocastic osillator, random forrest, Lodnon sesion'),
  d('typo-3', 'exponencial moving avarage 50 crosing above price, xgbost, take proffit 40 pips'),
  d('typo-4', 'mcad histogramm turning positve, long onyl'),
  d('typo-5', 'RSI14<30 → BUY!!! RSI14>70 → SELL!!! SL=15 TP=30'),
  d('typo-6', 'ema9 ema21 cross + rsi14 filter, 1h horizon, confidance 65%'),
  d(
    'typo-7',
    'i want a strat that buys the dip on eurusd when the stoch is oversold and the trend is up (above 200 ema), shorts never, max 1 pos',
  ),
  // Long
  {
    id: 'long-1',
    request: {
      description:
        'I trade EURUSD on the 15 minute chart. My idea: when the RSI(14) drops below 30 while price is still above the 200-period SMA, ' +
        'the market is oversold in an uptrend, so I want to buy. Conversely when RSI is above 70 and price is below the 200 SMA I want to sell. ' +
        'I only trade the London and New York sessions, I never hold more than 2 positions, I wait 4 bars after closing a trade, ' +
        'my stop is 18 pips and my target is 36 pips. Use gradient boosting and only take signals when the model is 62% confident. ' +
        'Predict roughly the next 2 hours. Reverse the position on an opposite signal.',
    },
  },
  {
    id: 'long-2',
    request: {
      description:
        'Momentum system: MACD(12,26,9) line crossing its signal line, confirmed by the histogram turning positive, with a stochastic (14, 3) ' +
        'filter: %K must be above %D. Bollinger band width matters too, use 20 period 2 std bands. Exit on 1% stop or 2.5% target. ' +
        'Only between 07:00 and 20:00 GMT. Extra trees with 250 trees, depth 10. Long and short. Cooldown 2 bars.',
    },
  },
  // Structured only
  {
    id: 'struct-ind',
    request: { indicators: { rsi_enabled: true, rsi_period: 9, macd_enabled: true, macd_fast: 8, macd_slow: 17, macd_signal: 9 } },
  },
  { id: 'struct-pos', request: { pos_rules: { direction: 'short', cooldown: 5, max_pos: 2, on_opposite: 'reverse' } } },
  {
    id: 'struct-both',
    request: {
      indicators: { bb_enabled: true, bb_period: 30, bb_std: 2.5, atr_enabled: true },
      pos_rules: { direction: 'long', on_opposite: 'ignore' },
    },
  },
  {
    id: 'struct-bad',
    request: { indicators: { rsi_period: 1000, macd_fast: 30, macd_slow: 20, foo_bar: 3, ema_enabled: 1 as unknown as boolean } },
  },
  { id: 'struct-disable', request: { description: 'RSI below 30 and EMA 12/26 cross', indicators: { rsi_enabled: false } } },
  // Field by field
  {
    id: 'fields-all',
    request: {
      description: 'Mean reversion on bollinger bands',
      features: 'RSI(10), Bollinger Bands(20, 2), ATR(14)',
      signals: 'buy when price closes below the lower band and RSI is below 25, sell above the upper band with RSI above 75',
      model: 'random forest, 400 trees',
      optimization: 'maximize sharpe ratio',
      risk: 'stop loss 1.5 x ATR, take profit 2x the stop',
      risk_function: 'skip the asian session, only when volatility is high',
    },
  },
  { id: 'fields-model', request: { description: 'EMA cross with xgboost', model: 'logistic regression' } },
  { id: 'fields-risk', request: { description: 'RSI 14, stop 50 pips', risk: 'stop 20 pips, take profit 40 pips' } },
  { id: 'fields-opt', request: { description: 'stochastic cross', optimization: 'win rate' } },
  // Contradictory
  d('contra-dir', 'long only, actually shorts only, MACD cross'),
  {
    id: 'contra-pos',
    request: {
      description: 'long only, wait 2 bars, reverse on opposite signal',
      pos_rules: { direction: 'short', cooldown: 7, on_opposite: 'close_only' },
    },
  },
  { id: 'contra-ind', request: { description: 'RSI(7) below 20', indicators: { rsi_period: 14 } } },
  d('contra-sess', 'London session only, no wait, New York session only'),
  d('contra-model', 'random forest, no, xgboost, actually extra trees'),
  d('contra-macd', 'MACD 26 12 9 crossing'),
  // Hostile-looking text stays in comments
  d('hostile-quotes', 'RSI """ below 30 \'\'\' import os; exec("rm -rf") \\n\\x00 __import__'),
  d('hostile-unicode', 'RSI ≤ 30 – long only – Лондон session ✓ stop 20 pips \u202e evil'),
  // Every template's text (the templates' requests are tested on their own too)
  d('tpl-like-1', 'MACD momentum: buy when the MACD line crosses above the signal line and the histogram turns positive'),
  d('tpl-like-2', 'conservative long only: buy dips when RSI drops below 35 while price is above the 200 SMA, only when 60% confident'),
  // Examples and chips of GET /examples and GET /presets
  ...EXAMPLE_PROMPTS.map((e, i) => d(`example-${i}-${e.category}`, e.prompt)),
  ...CHIP_PRESETS.map((c, i) => d(`chip-${i}`, c.text)),
  // Empty
  { id: 'empty', request: {} },
  // Issue 35: entry rules over the trader indicators, both sides as written
  d('rules-cloud-dmi', 'Long above the cloud and +DI above -DI, short below it and -DI above +DI. No trades on Fridays'),
  d(
    'rules-willr-vwap-r1',
    'Buy when Williams %R is below -80 or price touches S1, sell when CCI is above 100 and price is below the VWAP, or price touches R1',
  ),
  d('rules-breakouts', 'Keltner channel breakout when the parabolic SAR flips, or an inside bar breakout, both ways'),
];
