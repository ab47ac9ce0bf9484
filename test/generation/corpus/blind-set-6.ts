/**
 * Blind set 6: trader prompts written blind, the way traders type them in forums, Discord and chats
 * (typos, pair slang, every timeframe notation, pips / percent / ATR stops, sessions, day filters,
 * one-sided and two-sided entries, exits, position limits, indicator parameters, negations, and
 * markets or timeframes with no bars). Written by someone who had read neither the parser
 * (src/generation/**) nor the earlier blind sets or the tuning corpus's cases; only the scoring
 * (score.ts), the `Expect` type, the indicator registry's names and the README were read.
 *
 * Each expectation says only what the words mean; a field the words leave open is left out.
 * A market or timeframe with no bars expects a remark with the trader's own word for it.
 *
 * Do not tune the generator to these prompts: a fix found through a miss here must be a general
 * reading of such words, and this set's first, blind run stays the figure reported for it.
 */
import type { Expect, IntentCase } from './intent-corpus.ts';

const b = (n: number, prompt: string, expect: Expect): IntentCase => ({
  id: `blind6-${String(n).padStart(2, '0')}`,
  category: 'blind',
  prompt,
  expect,
});

export const BLIND_SET_6: IntentCase[] = [
  b(1, 'cable m15, buy when rsi(14) dips under 30 and closes back above it, sl 20 pips tp 40. long only', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'long', columns: ['rsi_14'], entryLong: true, entryShort: false, mentions: ['RSI', '30'],
  }),
  b(2, 'fiber 1hr - 50 ema above 200 ema = only longs, enter on pullback to the 50. exit if close under 200', {
    symbol: 'EURUSD', timeframe: '1h', direction: 'long', columns: ['ema_50', 'ema_200'], entryLong: true, entryShort: false, exitLong: true,
    mentions: ['EMA 50', 'EMA 200'], absent: ['sma_50', 'sma_200'],
  }),
  b(3, 'looking for a simple macd cross on loonie H1. macd 12 26 9, buy on bullish cross below zero line, sell bearish cross above zero. no fridays', {
    symbol: 'USDCAD', timeframe: '1h', direction: 'both', columns: ['macd_12_26_9', 'macd_signal_12_26_9'], entryLong: true, entryShort: true,
    skipDays: ['fri'], mentions: ['MACD'],
  }),
  b(4, 'aussie 5m scalper: stoch 5,3 oversold <20 cross up = buy, overbought >80 cross down = sell. only london session. max 1 trade at a time', {
    symbol: 'AUDUSD', timeframe: '5min', direction: 'both', columns: ['stoch_k_5_3', 'stoch_d_5_3'], entryLong: true, entryShort: true, maxPositions: 1,
    mentions: ['20', '80'],
  }),
  b(5, 'kiwi 15min bollinger bands 20,2 mean reversion - fade touches of the outer bands, target middle band', {
    symbol: 'NZDUSD', timeframe: '15min', direction: 'both', columns: ['bb_upper_20_2', 'bb_lower_20_2'], entryLong: true, entryShort: true,
    exitLong: true, exitShort: true,
  }),
  b(6, 'swissy hourly. short only. sell when price is below the 100 sma and rsi 14 goes above 60 then turns back down under 60', {
    symbol: 'USDCHF', timeframe: '1h', direction: 'short', columns: ['sma_100', 'rsi_14'], entryLong: false, entryShort: true, mentions: ['SMA 100', '60'],
    absent: ['ema_100'],
  }),
  b(7, 'gold 15m breakout of asian range, sl below range, tp 2R', {
    timeframe: '15min', remarks: ['gold'], mentions: ['asian'],
  }),
  b(8, 'Anyone got a strat for UJ on the 1 min? thinking rsi 7 extremes 20/80 with a 1 ATR stop and trailing 1 ATR', {
    symbol: 'USDJPY', timeframe: '1min', direction: 'both', columns: ['rsi_7'], entryLong: true, entryShort: true,
    trailingStop: { atr: 1, period: 14 }, stops: ['ATR'],
  }),
  b(9, 'EU 1h donchian 20 breakout, trail stop 2x ATR, no TP, let winners run. both directions', {
    symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, trailingStop: { atr: 2, period: 14 }, takeProfit: null,
    mentions: ['Donchian'],
  }),
  b(10, 'short GU when williams %r(14) is above -20 and price under the 50 ema, 15 min chart, exit when %R goes below -80', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'short', columns: ['ema_50'], entryLong: false, entryShort: true, exitShort: true,
    mentions: ['Williams %R', '-20', '-80'], absent: ['rsi_14'],
  }),
  b(11, 'trade ichimoku on usdjpy h1 — long when price above the kumo and tenkan crosses kijun up, short when below the cloud and tenkan crosses down', {
    symbol: 'USDJPY', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['tenkan', 'kijun', 'cloud'],
  }),
  b(12, 'CCI(20) crossing back above -100 = buy on the 5 min eurusd. sell when it crosses back under +100. tp 15 pips sl 10 pips', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, mentions: ['CCI', '-100'],
  }),
  b(13, 'parabolic sar flip long + adx > 25 , aud/usd 1hour, trailing stop 30 pips', {
    symbol: 'AUDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, trailingStop: { pips: 30 }, mentions: ['SAR', 'ADX', '25'],
  }),
  b(14, 'No trades on mondays or fridays. usdcad 15 min. rsi 2 below 10 buy, above 90 sell. exit when rsi2 crosses 50', {
    symbol: 'USDCAD', timeframe: '15min', direction: 'both', columns: ['rsi_2'], entryLong: true, entryShort: true, exitLong: true, exitShort: true,
    skipDays: ['mon', 'fri'],
  }),
  b(15, 'nzd/usd daily chart, 20 sma cross over 50 sma', {
    symbol: 'NZDUSD', columns: ['sma_20', 'sma_50'], remarks: ['daily'], mentions: ['SMA 20', 'SMA 50'],
  }),
  b(16, 'H4 trend filter (price above 200ema on h4), entries on m15 when rsi pulls back to 40 on cable. longs only', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, mentions: ['H4', '40'],
  }),
  b(17, 'let the model decide direction, features: rsi 14, macd, atr 14, bb 20 2. eurusd 15min random forest', {
    symbol: 'EURUSD', timeframe: '15min', model: 'RandomForestClassifier', columns: ['rsi_14', 'atr_14', 'bb_upper_20_2', 'bb_lower_20_2'],
    entryLong: false, entryShort: false,
  }),
  b(18, 'xgboost on loonie 5min using ema 8, ema 21 and stoch as inputs, no entry rules, model picks both sides', {
    symbol: 'USDCAD', timeframe: '5min', direction: 'both', model: 'XGBClassifier', columns: ['ema_8', 'ema_21'], entryLong: false, entryShort: false,
  }),
  b(19, 'sell fiber when price tags upper keltner channel (20 ema, 2 atr) and rsi >70. buy lower keltner + rsi<30. 15m', {
    symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['Keltner', '70', '30'],
  }),
  b(20, 'buy the pullback to vwap on eu 5m during ny session, only longs', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, mentions: ['VWAP'],
  }),
  b(21, 'inside bar breakout on cable 1h, buy break of mother bar high, sell break of low, sl other side of the mother bar', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['inside bar'],
  }),
  b(22, 'bullish engulfing at the lower bollinger band (20, 2.5) on aud 15min = long. nothing else', {
    symbol: 'AUDUSD', timeframe: '15min', direction: 'long', columns: ['bb_lower_20_2p5'], entryLong: true, entryShort: false, mentions: ['engulfing'],
  }),
  b(23, 'pin bar rejection off daily pivot S1 - buy. off R1 - sell. usdchf m15', {
    symbol: 'USDCHF', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['pin bar', 'S1', 'R1'],
  }),
  b(24, 'roc(10) above 0.5 and price above 20 wma, buy, 1 hr kiwi, stop 1%, take 2%', {
    symbol: 'NZDUSD', timeframe: '1h', direction: 'long', columns: ['wma_20'], entryLong: true, entryShort: false, mentions: ['ROC', '0.5'],
    absent: ['sma_20'],
  }),
  b(25, 'dmi: buy when +di crosses above -di and adx rising above 20. sell the opposite. loonie 1h', {
    symbol: 'USDCAD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['+DI', 'ADX'],
  }),
  b(26, 'supertrend(10,3) flips green → long, red → short. usdjpy 5 min. max 2 positions', {
    symbol: 'USDJPY', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, mentions: ['SuperTrend'],
  }),
  b(27, 'z score of close vs 50 sma below -2 buy, back to 0 close. swissy 15', {
    symbol: 'USDCHF', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['-2'],
  }),
  b(28, "Short only on cable when RSI(14) > 70 AND price closes below the prior candle's low. 15min. SL 25 pips. close half... no just close all at 2R", {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'short', columns: ['rsi_14'], entryLong: false, entryShort: true, mentions: ['70'],
  }),
  b(29, 'eurjpy 1h ema 20/50 cross, both ways', {
    timeframe: '1h', direction: 'both', columns: ['ema_20', 'ema_50'], remarks: ['eurjpy'],
  }),
  b(30, 'nas100 5m opening range breakout', {
    timeframe: '5min', remarks: ['nas100'], mentions: ['opening range'],
  }),
  b(31, "Long EURUSD if the previous day's high is broken on the 1hr, stop at prev day low, only between 7 and 16 utc", {
    symbol: 'EURUSD', timeframe: '1h', direction: 'long', columns: ['prev_day_high'], entryLong: true, entryShort: false, session: [7, 16],
  }),
  b(32, '3 red candles in a row then buy the next green one. fibre m5. long only. tp 10p sl 10p', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'long', columns: ['candle_run'], entryLong: true, entryShort: false,
  }),
  b(33, "trade the london open on gbpusd 15 min: 8-10 utc only, breakout of the first hour's high/low", {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'both', session: [8, 10],
  }),
  b(34, 'btc 1h, buy when rsi < 25, sell rsi > 75, trail 2%', {
    symbol: 'BTCUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, trailingStop: 0.02, mentions: ['25', '75'],
  }),
  b(35, 'hey guys, new here. I want to buy aussie whenever macd histogram turns positive on the 15 minute and price is over the 200 ema. sl 1.5 atr. no shorting pls', {
    symbol: 'AUDUSD', timeframe: '15min', direction: 'long', columns: ['ema_200'], entryLong: true, entryShort: false, stops: ['1.5'],
    mentions: ['MACD', 'EMA 200'],
  }),
  b(36, '4hr chart usdcad, rsi divergence', {
    symbol: 'USDCAD', remarks: ['4hr'], mentions: ['divergence'],
  }),
  b(37, 'Only trade tue-thu, london+ny overlap (12-16 utc), fiber 5min, ema 9 ema 21 cross both ways, sl 8 pips tp 12 pips', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'both', columns: ['ema_9', 'ema_21'], entryLong: true, entryShort: true,
    skipDays: ['mon', 'fri', 'sat', 'sun'], session: [12, 16],
  }),
  b(38, 'williams %r 10 period, below -90 buy above -10 sell, kiwi h1', {
    symbol: 'NZDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['Williams %R', '-90', '-10'],
  }),
  b(39, 'when the 5 ema crosses the 13 ema and both are above the 50 go long, opposite for short, usd/jpy 15 min', {
    symbol: 'USDJPY', timeframe: '15min', direction: 'both', columns: ['ema_5', 'ema_13', 'ema_50'], entryLong: true, entryShort: true,
  }),
  b(40, 'scalp cable 1m during london only, bb 20 2 squeeze then breakout direction, sl 5 pips', {
    symbol: 'GBPUSD', timeframe: '1min', direction: 'both', columns: ['bb_upper_20_2', 'bb_lower_20_2'], mentions: ['squeeze'],
  }),
  b(41, 'heikin ashi flips green with no lower wick = buy. eurusd 1h', {
    symbol: 'EURUSD', timeframe: '1h', direction: 'long', mentions: ['Heikin Ashi'],
  }),
  b(42, 'sell USDCHF on the hourly when stochastic %K (14,3) crosses below %D above 80, exit when %K under 20', {
    symbol: 'USDCHF', timeframe: '1h', direction: 'short', columns: ['stoch_k_14_3', 'stoch_d_14_3'], entryLong: false, entryShort: true, exitShort: true,
  }),
  b(43, 'dont trade news lol. gbp 15m rsi 30 70', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['news'],
  }),
  b(44, 'aud 5min long when price > ema 100 and rsi(5) < 20. close at rsi(5) > 60. no sl just time exit after 12 bars', {
    symbol: 'AUDUSD', timeframe: '5min', direction: 'long', columns: ['ema_100', 'rsi_5'], entryLong: true, entryShort: false, exitLong: true,
  }),
  b(45, 'short the loonie when it rallies into the 20 sma in a downtrend (20 sma below 50 sma), 15 min, only NY hours 13-20 utc', {
    symbol: 'USDCAD', timeframe: '15min', direction: 'short', columns: ['sma_20', 'sma_50'], entryLong: false, entryShort: true, session: [13, 20],
  }),
  b(46, 'usd/chf m30 macd', {
    symbol: 'USDCHF', remarks: ['m30'],
  }),
  b(47, 'Mean reversion EURUSD 5m: buy 2 std dev below 20sma, sell 2 std dev above. exit at the mean.', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true,
  }),
  b(48, 'fade the asian session range on eu m15, only 0-6 utc', {
    symbol: 'EURUSD', timeframe: '15min', session: [0, 6],
  }),
  b(49, 'NU 1h: go long when the cloud turns green (senkou a > senkou b) and close is above kijun. Exit when price re-enters the cloud.', {
    symbol: 'NZDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['kijun'],
  }),
  b(50, 'aroon up crosses above aroon down buy on cable 15m', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'long', mentions: ['Aroon'],
  }),
  b(51, 'buy eurusd when rsi 14 > 50 and macd > signal and price > ema 50, all 3 must line up. sell when all 3 flip. 1H. Use logistic regression', {
    symbol: 'EURUSD', timeframe: '1h', direction: 'both', columns: ['rsi_14', 'ema_50'], entryLong: true, entryShort: true, model: 'LogisticRegression',
  }),
  b(52, 'anything but fridays and sundays. usdjpy 5min. buy dips to lower bb', {
    symbol: 'USDJPY', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, skipDays: ['fri', 'sun'],
  }),
  b(53, '60min gbpusd long when the 20 ema slope is up & RSI between 40 and 60, sl 30 pips, tp 60 pips, max 3 open trades', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'long', columns: ['ema_20'], entryLong: true, entryShort: false, maxPositions: 3,
  }),
  b(54, 'short cable on a bearish engulfing below the 200 sma, 15 m. trailing stop 20 pips', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'short', columns: ['sma_200'], entryLong: false, entryShort: true, trailingStop: { pips: 20 },
    mentions: ['engulfing'],
  }),
  b(55, 'trade spx500 with rsi', {
    remarks: ['spx500'],
  }),
  b(56, 'swissy 5 min — buy on a bullish cross of macd (5,35,5), sell on the bearish one, exit on opposite signal only, no fixed sl/tp', {
    symbol: 'USDCHF', timeframe: '5min', direction: 'both', columns: ['macd_5_35_5', 'macd_signal_5_35_5'], entryLong: true, entryShort: true, takeProfit: null,
  }),
  b(57, 'Looking to go long kiwi on H1 when price closes above upper bollinger(20,2) — momentum breakout, not fade — trail with 1.5 atr', {
    symbol: 'NZDUSD', timeframe: '1h', direction: 'long', columns: ['bb_upper_20_2'], entryLong: true, entryShort: false,
    trailingStop: { atr: 1.5, period: 14 },
  }),
  b(58, 'ema 12/26 crossover but only when ATR(14) is above its 50 bar average, fiber 15m, both sides', {
    symbol: 'EURUSD', timeframe: '15min', direction: 'both', columns: ['ema_12', 'ema_26', 'atr_14'], entryLong: true, entryShort: true,
  }),
  b(59, 'oil 1h breakout', {
    timeframe: '1h', remarks: ['oil'],
  }),
  b(60, 'Sell when price touches r2 pivot on audusd 5min, buy at s2, tp at the pivot', {
    symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['R2', 'S2'],
  }),
  b(61, 'usdcad 15: buy when price crosses above 50 sma, sell when crosses below, skip monday, 8-17 gmt', {
    symbol: 'USDCAD', timeframe: '15min', direction: 'both', columns: ['sma_50'], entryLong: true, entryShort: true, skipDays: ['mon'], session: [8, 17],
  }),
  b(62, 'long only GU 1h — hammer candle at the 100 ema', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'long', columns: ['ema_100'], mentions: ['hammer'],
  }),
  b(63, 'morning star pattern + rsi under 35 on fiber 15 min, buy', {
    symbol: 'EURUSD', timeframe: '15min', direction: 'long', mentions: ['morning star', '35'],
  }),
  b(64, 'stoch rsi cross up from below 20 on usdjpy 5m, both ways mirrored', {
    symbol: 'USDJPY', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, mentions: ['stoch'],
  }),
  b(65, 'i want to sell every time rsi(21) crosses under 50 on the loonie hourly, and buy back when it crosses over 50. shorts only obviously', {
    symbol: 'USDCAD', timeframe: '1h', direction: 'short', columns: ['rsi_21'], entryLong: false, entryShort: true, exitShort: true,
  }),
  b(66, 'EURUSD 15min. No entry rules, just give me an extra trees model on rsi, atr and ema 50, 100 and 200', {
    symbol: 'EURUSD', timeframe: '15min', model: 'ExtraTreesClassifier', columns: ['ema_50', 'ema_100', 'ema_200'], entryLong: false, entryShort: false,
  }),
  b(67, 'gradient boosting, aud/usd, m5, features macd + bollinger. model decides', {
    symbol: 'AUDUSD', timeframe: '5min', model: 'GradientBoostingClassifier', entryLong: false, entryShort: false,
  }),
  b(68, 'trade the kiwi on 1m charts between 21 and 23 utc only (rollover), rsi 3 extremes 5/95', {
    symbol: 'NZDUSD', timeframe: '1min', direction: 'both', columns: ['rsi_3'], entryLong: true, entryShort: true, session: [21, 23],
  }),
  b(69, 'no trading 22-02 utc, cable m5 ema 50 bounce longs + shorts', {
    symbol: 'GBPUSD', timeframe: '5min', direction: 'both', columns: ['ema_50'], entryLong: true, entryShort: true, session: [2, 22],
  }),
  b(70, 'Short GBP/USD when the fractal low breaks, 1hr', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'short', mentions: ['fractal'],
  }),
  b(71, 'buy usdjpy on a cci(14) cross above +100, sell on a cross below -100 (momentum style). 15 mins. 2 trades max', {
    symbol: 'USDJPY', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, mentions: ['CCI', '-100'],
  }),
  b(72, 'daily pivots: buy when price holds above P, sell under P. fiber 15m', {
    symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['pivot'],
  }),
  b(73, 'weekly chart eurusd trend following', {
    symbol: 'EURUSD', remarks: ['weekly'],
  }),
  b(74, "m15 eurusd, long when wma 10 crosses above wma 30, short the reverse. close everything friday? nah just don't open new trades on friday", {
    symbol: 'EURUSD', timeframe: '15min', direction: 'both', columns: ['wma_10', 'wma_30'], entryLong: true, entryShort: true, skipDays: ['fri'],
    absent: ['sma_10', 'sma_30'],
  }),
  b(75, '3 green candles in a row on aussie 1 min = sell (exhaustion fade). sl 6 pips tp 6 pips. only during tokyo', {
    symbol: 'AUDUSD', timeframe: '1min', direction: 'short', columns: ['candle_run'], entryLong: false, entryShort: true,
  }),
  b(76, 'momentum(10) > 0 and rsi > 55 buy 1h cable, opposite sell (momentum < 0 and rsi < 45)', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['momentum', '55', '45'],
  }),
  b(77, 'I trade USDJPY off the 1 hour using Hull MA 55 direction, green = long red = short. Trail 25 pips.', {
    symbol: 'USDJPY', timeframe: '1h', direction: 'both', trailingStop: { pips: 25 }, mentions: ['Hull'],
  }),
  b(78, 'dont want any longs on eu. sell rallies to the 21 ema when price < 200 ema, m15, session 7-20 utc', {
    symbol: 'EURUSD', timeframe: '15min', direction: 'short', columns: ['ema_21', 'ema_200'], entryLong: false, entryShort: true, session: [7, 20],
  }),
  b(79, 'buy kiwi when RSI 14 goes up through 30 but NOT if price is under the 200 sma, 5m', {
    symbol: 'NZDUSD', timeframe: '5min', direction: 'long', columns: ['rsi_14', 'sma_200'], entryLong: true, entryShort: false,
  }),
  b(80, 'double bottom on cable 15m, buy the neckline break', {
    symbol: 'GBPUSD', timeframe: '15min', direction: 'long', mentions: ['double bottom'],
  }),
  b(81, 'fiber 1 hour. sell when ADX > 30 and -DI > +DI, buy when ADX > 30 and +DI > -DI. stop 1.5 atr, target 3 atr', {
    symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, stops: ['1.5'], mentions: ['ADX', '30'],
  }),
  b(82, 'tf 5m, pair EURUSD, strat: ema 20 & 50 both sloping up + pullback into the zone between them = buy; mirror it for sells. max positions 1', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'both', columns: ['ema_20', 'ema_50'], entryLong: true, entryShort: true, maxPositions: 1,
  }),
  b(83, 'H1 cable longs: rsi(14) crossing above its 30 level while macd hist > 0. close when rsi 14 reaches 70. SL 35p', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'long', columns: ['rsi_14'], entryLong: true, entryShort: false, exitLong: true,
  }),
  b(84, 'can you do an awesome oscillator saucer strategy on usdcad 15 min', {
    symbol: 'USDCAD', timeframe: '15min', mentions: ['awesome oscillator'],
  }),
  b(85, "aussie/kiwi is my fav but since you dont have it, do aussie 1h: sell when price > upper bb(20,2) and rsi(14)>70", {
    symbol: 'AUDUSD', timeframe: '1h', direction: 'short', columns: ['bb_upper_20_2', 'rsi_14'], entryLong: false, entryShort: true,
  }),
  b(86, 'eth 5 min rsi', {
    timeframe: '5min', remarks: ['eth'],
  }),
  b(87, 'long fiber when price crosses above the 20 ema on the 1min chart, exit when it crosses back below. skip weekends obviously and fridays', {
    symbol: 'EURUSD', timeframe: '1min', direction: 'long', columns: ['ema_20'], entryLong: true, entryShort: false, exitLong: true,
    skipDays: ['fri', 'sat', 'sun'],
  }),
  b(88, 'sell usd/cad if price closes below the lower keltner (ema 20, atr 10, mult 1.5) — breakout short. trail 2 atr. 1h', {
    symbol: 'USDCAD', timeframe: '1h', direction: 'short', entryLong: false, entryShort: true, stops: ['trailing'], mentions: ['Keltner'],
  }),
  b(89, 'UCAD m5: BUY when stoch(14,3) K < 20 and RSI(14) < 30 at the same time, SELL when K > 80 and RSI > 70', {
    symbol: 'USDCAD', timeframe: '5min', direction: 'both', columns: ['stoch_k_14_3', 'rsi_14'], entryLong: true, entryShort: true,
  }),
  b(90, 'i only want shorts on usdjpy between 0 and 8 utc on the 15 minute when price is under the kijun', {
    symbol: 'USDJPY', timeframe: '15min', direction: 'short', entryLong: false, entryShort: true, session: [0, 8], mentions: ['kijun'],
  }),
  b(91, 'cable 1hr, go long when the chikou is above price from 26 bars ago and tenkan > kijun, exit on tenkan/kijun cross down', {
    symbol: 'GBPUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['chikou', 'tenkan'],
  }),
  b(92, 'EURUSD 2h chart MACD crossover', {
    symbol: 'EURUSD', remarks: ['2h'],
  }),
  b(93, 'buy when price closes above the 10 sma and the 10 sma is above the 30 sma, sell when the opposite, usdchf 15m, sl 0.5% tp 1%, random forest', {
    symbol: 'USDCHF', timeframe: '15min', direction: 'both', columns: ['sma_10', 'sma_30'], entryLong: true, entryShort: true, model: 'RandomForestClassifier',
  }),
  b(94, 'doji at the lower bb → buy. doji at the upper bb → sell. eu 5min', {
    symbol: 'EURUSD', timeframe: '5min', direction: 'both', mentions: ['doji'],
  }),
  b(95, "atr breakout: buy if the candle's range is more than 2x atr(14) and it closes green, aud 15m, long only", {
    symbol: 'AUDUSD', timeframe: '15min', direction: 'long', columns: ['atr_14'], entryLong: true, entryShort: false,
  }),
  b(96, 'nzdusd h1 - sell when price is below the cloud and the chikou is below price, buy when above the cloud and chikou above. tp 50 pips sl 25 pips, mon-thu only', {
    symbol: 'NZDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, skipDays: ['fri', 'sat', 'sun'], mentions: ['cloud', 'chikou'],
  }),
  b(97, 'GJ m15 london breakout 7-9 utc', {
    timeframe: '15min', session: [7, 9], remarks: ['GJ'],
  }),
  b(98, "Hi! I'm pretty new to algo stuff. What I do manually on EURUSD on the hourly is wait for the RSI to get oversold (under thirty), then when it comes back above thirty I buy. I never short. My stop is usually twenty pips and I take profit at forty pips.", {
    symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['RSI', '30'],
  }),
  b(99, 'USDJPY M15 SELL ONLY. EMA 50 < EMA 200. RSI 14 > 60 THEN SELL. SL 30 PIPS. TP 45 PIPS. NO TRADES FRIDAY.', {
    symbol: 'USDJPY', timeframe: '15min', direction: 'short', columns: ['ema_50', 'ema_200', 'rsi_14'], entryLong: false, entryShort: true, skipDays: ['fri'],
  }),
];
