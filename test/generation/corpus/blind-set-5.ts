/**
 * A fifth blind set (issue 35): trader prompts written by someone who had read neither the parser
 * nor the earlier sets, kept apart from the tuning corpus and scored on their own
 * (blind-set-5.test.ts). Expectations say what the words mean, no more: a field is left out where
 * the words leave it open. Do not tune the generator to these prompts.
 */
import type { Expect, IntentCase } from './intent-corpus.ts';

const cases: Array<[prompt: string, expect: Expect]> = [
  [
    'eu 15m, buy when rsi dips under 30 and closes back above it, sl 20 pips tp 40',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: false, mentions: ['RSI', '30'] },
  ],
  [
    'cable on the 1h. short when price closes below the 200 ema and macd crosses down. close it when macd crosses back up',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'short', entryLong: false, entryShort: true, exitShort: true, mentions: ['EMA 200', 'MACD'] },
  ],
  [
    'Anyone got a bolinger band mean reversion for fiber 5 min? go long at the lower band, short at the upper band, take both off at the middle band',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['Bollinger'] },
  ],
  [
    'xauusd h4 supertrend (10,3). go long when it flips bullish, go short when it flips bearish, always in the market',
    { symbol: 'EURUSD', timeframe: '15min', remarks: ['xauusd', 'h4'], direction: 'both', entryLong: true, entryShort: true, mentions: ['SuperTrend'] },
  ],
  [
    'USDJPY 1 min scalping: stoch cross up below 20 = buy, stoch cross down above 80 = sell, both directions. only 7 to 10 utc. max 1 trade open',
    { symbol: 'USDJPY', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, session: [7, 10], maxPositions: 1, mentions: ['stoch', '20', '80'] },
  ],
  [
    'i want to trade the loonie on hourly with a donchian 20 breakout. buy a new 20 bar high, short a new 20 bar low. trailing stop 30 pips',
    { symbol: 'USDCAD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, trailingStop: { pips: 30 }, mentions: ['Donchian'] },
  ],
  [
    'kiwi 15min. ichimoku: long when price above the cloud and tenkan crosses above kijun. no shorts. exit when price closes back inside the cloud',
    { symbol: 'NZDUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Ichimoku'] },
  ],
  [
    'swissy m5 parabolic sar, buy when the dots flip below price, sell when they flip above. both directions. skip fridays',
    { symbol: 'USDCHF', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, skipDays: ['fri'], mentions: ['Parabolic SAR'] },
  ],
  [
    'aussie 1hr, williams %r under -80 then back over it → long. over -20 → short. random forest pls',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, model: 'RandomForestClassifier', mentions: ['Williams', '-80', '-20'] },
  ],
  [
    'btc 5 min, let the model decide, xgboost, use rsi macd and atr as features',
    { symbol: 'BTCUSD', timeframe: '5min', entryLong: false, entryShort: false, model: 'XGBClassifier' },
  ],
  [
    'gu fifteen minute, cci above plus one hundred go long, below minus one hundred go short, stop loss twenty pips',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, mentions: ['CCI', '100', '-100'] },
  ],
  [
    'uj hourly, only buy pullbacks to the 50 ema when adx is above 25. close when price closes under the 50 ema',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['EMA 50', 'ADX', '25'] },
  ],
  [
    'nas100 on the 5m, buy when price dips to vwap and bounces, no shorts',
    { symbol: 'EURUSD', timeframe: '5min', remarks: ['nas100'], direction: 'long', entryLong: true, entryShort: false, mentions: ['VWAP'] },
  ],
  [
    'EURUSD 15 min. golden cross 50/200 sma = buy, death cross = short. let profits run no tp, trailing stop 2 atr',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, takeProfit: null, trailingStop: { atr: 2, period: 14 }, mentions: ['SMA 50', 'SMA 200'] },
  ],
  [
    'new to this, how do i make a bot that buys eurusd when the rsi is oversld on the 1 hour?',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['RSI'] },
  ],
  [
    'macd histogram turns positive -> long, turns negative -> short. gbpusd m15. trading hours 8-17 utc, no mondays',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, session: [8, 17], skipDays: ['mon'], mentions: ['MACD'] },
  ],
  [
    'bullish engulfing at the lower bollinger on cable 1h, long only, sl below the candle low, tp 2R',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['engulfing', 'Bollinger'] },
  ],
  [
    'inside bar breakout on eurusd 1h, both ways, enter on the break of the mother bar high or low',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['inside bar'] },
  ],
  [
    'Keltner channel breakout - price closes outside the upper keltner go long, below the lower go short. usdcad 15m. max 2 positions',
    { symbol: 'USDCAD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, mentions: ['Keltner'] },
  ],
  [
    'z score of price vs the 20 sma, short when z > 2, long when z < -2, exit when z gets back to 0. eu 5min',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['z score', '2', '-2'] },
  ],
  [
    'Donchian 55 turtle style on btcusd hourly, long breakouts only, exit on a 20 bar low',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Donchian'] },
  ],
  [
    'roc(10) crosses above zero buy, below zero sell short, usdchf 1h, logistic regression',
    { symbol: 'USDCHF', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, model: 'LogisticRegression', mentions: ['ROC'] },
  ],
  [
    'momentum strat on audusd 15 min: buy if 10 period momentum > 0 and price above the 100 ema',
    { symbol: 'AUDUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, mentions: ['momentum', 'EMA 100'] },
  ],
  [
    'pivot point bounce: buy at S1 short at R1, eurusd 5min, only london 7-11 utc, take profit at the pivot',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, session: [7, 11], mentions: ['pivot', 'S1', 'R1'] },
  ],
  [
    'atr filter: only trade when atr(14) is above its 50 period average. entries: ema 9 crosses ema 21. both sides. gbpusd 5m',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, mentions: ['ATR', 'EMA 9', 'EMA 21'] },
  ],
  [
    'dmi crossover. +di over -di go long, -di over +di go short, adx must be > 20. usdjpy 15m',
    { symbol: 'USDJPY', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['ADX', '20'] },
  ],
  [
    'eurusd 1m scalper, 2 period rsi below 10 buy, above 90 short, out when rsi(2) crosses 50. max 3 trades',
    { symbol: 'EURUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, maxPositions: 3, mentions: ['RSI', '10', '90'] },
  ],
  [
    "Looking for a simple one: buy EURUSD every time the 15 min candle closes above the previous day's high. No sells.",
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false },
  ],
  [
    'oil 1h, long on bullish rsi divergence, short on bearish divergence',
    { symbol: 'EURUSD', timeframe: '1h', remarks: ['oil'], direction: 'both', entryLong: true, entryShort: true, mentions: ['RSI', 'divergence'] },
  ],
  [
    'hammer candle at support on usdcad 1hr → buy. shooting star at resistance → sell short. sl 15 pips, tp 30 pips, no friday trading',
    { symbol: 'USDCAD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, skipDays: ['fri'], mentions: ['hammer', 'shooting star'] },
  ],
  [
    'What about a 3 ema ribbon 8/13/21, buy when stacked bullish, short when stacked bearish, nzdusd 5 min, gradient boosting',
    { symbol: 'NZDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, model: 'GradientBoostingClassifier', mentions: ['EMA 8', 'EMA 13', 'EMA 21'] },
  ],
  [
    'heikin ashi colour change on gbp/usd 15min, long on the first green after 3 reds, short on the first red after 3 greens',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['Heikin Ashi'] },
  ],
  [
    'Bollinger squeeze: when bandwidth is at a 6 month low and price breaks out of the bands, trade the direction of the break. eurusd 1h',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['Bollinger'] },
  ],
  [
    'trade only tues wed thurs, 13-17 utc, cable 5 min, buy when price breaks above the asian range high',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, session: [13, 17], skipDays: ['mon', 'fri', 'sat', 'sun'], mentions: ['Asian'] },
  ],
  [
    'No trading between 22 and 1 UTC (spread widens). Otherwise buy uj when macd crosses above signal below the zero line.',
    { symbol: 'USDJPY', direction: 'long', entryLong: true, entryShort: false, session: [1, 22], mentions: ['MACD'] },
  ],
  [
    'dont trade weekends obviously, btc 15m, supertrend green + rsi>50 for longs, supertrend red + rsi<50 for shorts',
    { symbol: 'BTCUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, skipDays: ['sat', 'sun'], mentions: ['SuperTrend', 'RSI', '50'] },
  ],
  [
    'EURGBP 1h range trading, long the bottom of the range, short the top',
    { symbol: 'EURUSD', timeframe: '1h', remarks: ['eurgbp'], direction: 'both', entryLong: true, entryShort: true, mentions: ['range'] },
  ],
  [
    'i just want xgboost to predict direction on eurusd 1h, no rules, no fixed tp, trailing stop 25 pips',
    { symbol: 'EURUSD', timeframe: '1h', entryLong: false, entryShort: false, model: 'XGBClassifier', takeProfit: null, trailingStop: { pips: 25 } },
  ],
  [
    'random forest on gbpusd 15min using stoch, cci, williams r and adx as inputs, trade both ways',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: false, entryShort: false, model: 'RandomForestClassifier' },
  ],
  [
    'dax 1h opening range breakout, buy above the first hour high, sell below its low, only 7 to 15 utc',
    { symbol: 'EURUSD', timeframe: '1h', remarks: ['dax'], direction: 'both', entryLong: true, entryShort: true, session: [7, 15], mentions: ['opening range'] },
  ],
  [
    'audusd 5min. long if close > vwap and rsi(14) > 55, short if close < vwap and rsi < 45. sl 10 pips tp 15',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, mentions: ['VWAP', 'RSI', '55', '45'] },
  ],
  [
    'Stochastic RSI oversold cross on usdchf 15m, long only, close when stoch rsi gets above 80',
    { symbol: 'USDCHF', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['stoch', '80'] },
  ],
  [
    'trend follow on eurusd hourly: price above the 200 sma and 20 ema crosses over 50 ema go long, reverse for shorts. atr trailing stop 3x',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, trailingStop: { atr: 3, period: 14 }, mentions: ['SMA 200', 'EMA 20', 'EMA 50'] },
  ],
  [
    'three black crows on cable daily = short',
    { symbol: 'GBPUSD', timeframe: '15min', remarks: ['daily'], direction: 'short', entryLong: false, entryShort: true, mentions: ['three black crows'] },
  ],
  [
    'morning star / evening star reversals, both directions, usdjpy 1h, 2 max open positions, no trading on monday and friday',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, skipDays: ['mon', 'fri'], mentions: ['morning star', 'evening star'] },
  ],
  [
    'doji at the 50 ema on eu 15 min then buy on the next candle if it closes higher',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, mentions: ['doji', 'EMA 50'] },
  ],
  [
    'pin bar rejections off the daily pivot, m5 gbpusd, both sides, tp 20 sl 10',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, mentions: ['pin bar', 'pivot'] },
  ],
  [
    'SHORT ONLY. usdcad 15min. When RSI > 70 AND price touches the upper BB → sell. Cover when price hits the middle band.',
    { symbol: 'USDCAD', timeframe: '15min', direction: 'short', entryLong: false, entryShort: true, exitShort: true, mentions: ['RSI', '70', 'Bollinger'] },
  ],
  [
    'ichimoku kumo breakout on btc 1h, long when the close is above the cloud, short below, kijun cross as the exit',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['Ichimoku'] },
  ],
  [
    'mean reversion on kiwi 5 min, price more than 2 atr below the 20 ema → buy, more than 2 atr above → sell short, exit at the ema',
    { symbol: 'NZDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['ATR', 'EMA 20'] },
  ],
  [
    'hey guys quick q, can i do: buy when the 5 sma crosses the 20 sma on eurusd 1 min, sell when it crosses back down. thats it',
    { symbol: 'EURUSD', timeframe: '1min', entryLong: true, mentions: ['SMA 5', 'SMA 20'] },
  ],
  [
    'fiber 1h, macd and rsi both agree: macd above signal and rsi above 50 long; macd below signal and rsi below 50 short. trading hours 6 to 18 UTC. no mondays.',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, session: [6, 18], skipDays: ['mon'], mentions: ['MACD', 'RSI', '50'] },
  ],
  [
    'CCI(20) zero line cross, long only, cable 15m, tralling stop of fifteen pips',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, trailingStop: { pips: 15 }, mentions: ['CCI'] },
  ],
  [
    'I trade the NY session only (13:00-17:00 UTC) on EURUSD 5m. Buy when price breaks above the high of the London session, no shorts',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, session: [13, 17] },
  ],
  [
    'adx below 20 = range so fade the bollinger extremes; adx above 25 = trend so buy breakouts of the 20 bar high and short the 20 bar low. audusd 1h',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['ADX', 'Bollinger'] },
  ],
  [
    'sma 10 above sma 30 and price pulls back to the sma 10 → long. usdjpy 5 min. 1 trade at a time. no tp, trail by 1.5 atr',
    { symbol: 'USDJPY', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, maxPositions: 1, takeProfit: null, trailingStop: { atr: 1.5, period: 14 }, mentions: ['SMA 10', 'SMA 30'] },
  ],
  [
    'spx500 1h short when rsi above 80',
    { symbol: 'EURUSD', timeframe: '1h', remarks: ['spx500'], direction: 'short', entryLong: false, entryShort: true, mentions: ['RSI', '80'] },
  ],
  [
    'silver 15 min ema 12/26 cross both ways',
    { symbol: 'EURUSD', timeframe: '15min', remarks: ['silver'], direction: 'both', entryLong: true, entryShort: true, mentions: ['EMA 12', 'EMA 26'] },
  ],
  [
    'GBPJPY 30m london breakout, buy above the 7-8 utc range, sell below it',
    { symbol: 'EURUSD', timeframe: '15min', remarks: ['gbpjpy', '30m'], direction: 'both', entryLong: true, entryShort: true, mentions: ['range'] },
  ],
  [
    'eurusd m15, only buy if price > 200 ema, enter when rsi pulls back under 40, close when rsi > 70',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['EMA 200', 'RSI', '40', '70'] },
  ],
  [
    'tweezer bottoms on aussie 1hr, buy. stop 20 pips below. take profit 40 pips.',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: false, mentions: ['tweezer'] },
  ],
  [
    'a bot for usd/chf on the 1 minute that shorts every time price tags the upper keltner channel and goes long at the lower one, max 4 positions, 8am to 4pm utc',
    { symbol: 'USDCHF', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 4, session: [8, 16], mentions: ['Keltner'] },
  ],
  [
    'three white soldiers → long, three black crows → short, eurusd 1h, logistic regression on top',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, model: 'LogisticRegression', mentions: ['three white soldiers', 'three black crows'] },
  ],
  [
    'BTC 1m: short when price is 3 standard deviations above the 50 period mean, long when 3 below. exit at the mean.',
    { symbol: 'BTCUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true },
  ],
  [
    'parabolic sar + ema 100 filter. longs only, above the ema 100 when sar flips under price. gbpusd hourly. close when sar flips back',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Parabolic SAR', 'EMA 100'] },
  ],
  [
    'Williams %R(14) below -90 on the loonie 5 min = buy, exit when it goes above -10',
    { symbol: 'USDCAD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Williams', '-90', '-10'] },
  ],
  [
    'Donchian channel midline cross, usdjpy 15 minute, long above mid, short below mid, 2 positions max, skip sundays',
    { symbol: 'USDJPY', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, skipDays: ['sun'], mentions: ['Donchian'] },
  ],
  [
    'hourly fiber: if the previous candle was an inside bar and the current one breaks its high, long; breaks its low, short. sl at the other side of the inside bar',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['inside bar'] },
  ],
  [
    'nzd/usd 15m, rsi cross 50 from below = buy. rsi crosses 50 from above = close the buy. no shorting please',
    { symbol: 'NZDUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['RSI', '50'] },
  ],
  [
    'macd zero-line cross on audusd 5min, long and short, trailing stop ten pips, no take profit',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, trailingStop: { pips: 10 }, takeProfit: null, mentions: ['MACD'] },
  ],
  [
    'aussie 15 min. buy when stoch %K crosses above %D under 20 and price is above the 50 sma. sell short the opposite, above 80 and under the 50 sma. 9-17 utc, mon-thu',
    { symbol: 'AUDUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, session: [9, 17], skipDays: ['fri', 'sat', 'sun'], mentions: ['stoch', '20', '80', 'SMA 50'] },
  ],
  [
    'ETH 1h rsi 30/70',
    { symbol: 'EURUSD', timeframe: '1h', remarks: ['eth'], mentions: ['RSI'] },
  ],
  [
    'scalp eu on 1min between 12 and 16 utc: price above vwap and 9 ema above 20 ema = long, below both = short. max 2 open, no trading fridays',
    { symbol: 'EURUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, session: [12, 16], maxPositions: 2, skipDays: ['fri'], mentions: ['VWAP', 'EMA 9', 'EMA 20'] },
  ],
  [
    'Bearish engulfing at the R2 pivot on usdcad 5m → short, close at the pivot point',
    { symbol: 'USDCAD', timeframe: '5min', direction: 'short', entryLong: false, entryShort: true, mentions: ['engulfing', 'R2'] },
  ],
  [
    'i want a random forest to trade cable m5 only from seven to eleven utc, you pick the features',
    { symbol: 'GBPUSD', timeframe: '5min', entryLong: false, entryShort: false, model: 'RandomForestClassifier', session: [7, 11] },
  ],
  [
    'gradient boosting, usdjpy hourly, long only, features: adx, atr, roc',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'long', entryLong: false, entryShort: false, model: 'GradientBoostingClassifier' },
  ],
  [
    'trade the bounce off the 200 sma on btcusd 15 min, longs only, trailing 2.5 atr',
    { symbol: 'BTCUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, trailingStop: { atr: 2.5, period: 14 }, mentions: ['SMA 200'] },
  ],
  [
    'EURUSD 1H — Short when price closes below the lower Bollinger Band (20,2) AND ADX > 30. Exit the short when price closes back above the 20 SMA.',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'short', entryLong: false, entryShort: true, exitShort: true, mentions: ['Bollinger', 'ADX', '30'] },
  ],
  [
    'lol simple af: cable 1 min, buy every green candle, short every red one',
    { symbol: 'GBPUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true },
  ],
  [
    'usoil 5 min keltner + rsi, long when price is under the lower keltner and rsi < 25',
    { symbol: 'EURUSD', timeframe: '5min', remarks: ['usoil'], direction: 'long', entryLong: true, entryShort: false, mentions: ['Keltner', 'RSI', '25'] },
  ],
  [
    'xgb on eurusd 15m, let it decide when to buy or sell, only 8-20 utc, skip mon',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: false, entryShort: false, model: 'XGBClassifier', session: [8, 20], skipDays: ['mon'] },
  ],
  [
    'NR7 breakout on gbpusd 1h, buy the break of the NR7 high, short the break of its low',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['NR7'] },
  ],
  [
    'Ultimate setup lol: ema 50 > ema 200, macd > 0, rsi between 40 and 60, stoch turning up from below 20 → BUY. usdchf 15m. tp 30 sl 15. max 1 trade',
    { symbol: 'USDCHF', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: false, maxPositions: 1, mentions: ['EMA 50', 'EMA 200', 'MACD', 'RSI', 'stoch'] },
  ],
  [
    'fade the asian session high/low on eurusd m5 during london, 7–10 utc',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, session: [7, 10], mentions: ['Asian'] },
  ],
  [
    'four hour chart cable, buy when momentum turns positive',
    { symbol: 'GBPUSD', timeframe: '15min', remarks: ['four hour'], direction: 'long', entryLong: true, entryShort: false, mentions: ['momentum'] },
  ],
  [
    'trade usdjpy 1 hour, short only, when the close is below the ichimoku cloud and the chikou is below price. stop loss 40 pips, trailing 20 pips',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'short', entryLong: false, entryShort: true, trailingStop: { pips: 20 }, mentions: ['Ichimoku'] },
  ],
  [
    'wanna trade fiber on the 15 min but ONLY on fridays, buy when rsi < 35',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, skipDays: ['mon', 'tue', 'wed', 'thu', 'sat', 'sun'], mentions: ['RSI', '35'] },
  ],
  [
    'supertrend 10 3 on aud/usd 5 min, long when green, short when red, exit on the flip, max three positions',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, maxPositions: 3, mentions: ['SuperTrend'] },
  ],
  [
    'long only EU 1h: price above the upper keltner AND adx rising above 20. sell when price comes back inside the channel',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Keltner', 'ADX', '20'] },
  ],
  [
    'bitcoin hourly, roc 12 below -5 then turns up → buy. roc above 5 then turns down → short. trailing stop 1 atr',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, trailingStop: { atr: 1, period: 14 }, mentions: ['ROC', '-5', '5'] },
  ],
];

export const BLIND_SET_5: IntentCase[] = cases.map(([prompt, expect], i) => ({
  id: `fifth-${i + 1}`,
  category: 'blind',
  prompt,
  expect,
}));
