/**
 * A fourth blind set (issue 35): trader prompts in their own words — chat, forum posts, prop-firm
 * notes, beginners' questions, typos, slang, numbers in words — written by someone who had read
 * neither the parser nor the earlier sets, and kept apart from the tuning corpus. Expectations
 * say what the words mean, literally; a field is left out where the words leave it open.
 * Do not tune the generator to these prompts: they measure how fresh words are read.
 */
import type { Expect, IntentCase } from './intent-corpus.ts';

const cases: Array<[string, Expect]> = [
  [
    'buy eurusd 15m when rsi drops under 30, tp 40 pips sl 20. longs only',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: false, mentions: ['RSI', '30'] },
  ],
  [
    'cable 1h - short when price closes below the lower bollinger band and rsi is under 50. close the short when price gets back to the middle band. no longs',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'short', entryShort: true, entryLong: false, exitShort: true, mentions: ['Bollinger', 'RSI'] },
  ],
  [
    'Looking for a simple ema cross on fiber, 5 min chart. 9 ema crosess above 21 ema = buy, crosses below = sell. Both directions. max 1 trade at a time',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 1, mentions: ['EMA 9', 'EMA 21'] },
  ],
  [
    'hey guys new here. how would i make a bot that buys gold when macd crosses up on the 4h? only buys',
    { symbol: 'EURUSD', timeframe: '15min', remarks: ['gold', '4h'], direction: 'long', entryLong: true, entryShort: false, mentions: ['MACD'] },
  ],
  [
    'uj 15min: go long if price is above the 200 sma and stochastic %K crosses above %D below 20. stop 15 pips, trail 10 pips once in profit. sessions 0-8 utc (tokyo)',
    { symbol: 'USDJPY', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, trailingStop: { pips: 10 }, session: [0, 8], mentions: ['SMA 200', 'stoch', '20'] },
  ],
  [
    'Aussie 1H. Ichimoku: long when price breaks above the cloud and tenkan is above kijun, short when price breaks below the cloud and tenkan below kijun. Exit when price re-enters the cloud. Random forest pls',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, model: 'RandomForestClassifier', mentions: ['cloud', 'kijun'] },
  ],
  [
    'supertrend flip strategy on btc 1h. buy when supertrend turns green, sell short when it turns red. always in the market basically. no tp, let winners run',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, takeProfit: null, mentions: ['supertrend'] },
  ],
  [
    'kiwi five minute chart, sell when williams %r goes above -20 and then crosses back under it. only shorts. skip fridays',
    { symbol: 'NZDUSD', timeframe: '5min', direction: 'short', entryShort: true, entryLong: false, skipDays: ['fri'], mentions: ['Williams', '-20'] },
  ],
  [
    'I want to trade the London open breakout on GBPUSD: mark the high and low of the Asian session (0-7 UTC) and buy a break above the high, sell a break below the low, only between 7 and 10 UTC. SL at the other side of the range. Max 2 positions',
    { symbol: 'GBPUSD', direction: 'both', entryLong: true, entryShort: true, session: [7, 10], maxPositions: 2, mentions: ['Asian'] },
  ],
  [
    'dollar cad 15 min, CCI(20) crosses above -100 go long, crosses below +100 go short. close longs when cci > 100, close shorts when cci < -100. xgboost',
    { symbol: 'USDCAD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, model: 'XGBClassifier', mentions: ['CCI', '-100'] },
  ],
  [
    'swissy hourly. adx above 25 and +di above -di → buy. adx above 25 and -di above +di → sell. trailing stop 2 atr',
    { symbol: 'USDCHF', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, trailingStop: { atr: 2, period: 14 }, mentions: ['ADX', '25'] },
  ],
  [
    'EU M15 mean reversion: zscore of close vs 50 period mean below -2 = long, above 2 = short, exit when zscore comes back to 0',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['zscore', '-2'] },
  ],
  [
    'Trading US30 on the 5 min, buy when price above vwap and rsi above 50',
    { symbol: 'EURUSD', remarks: ['us30'], timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, mentions: ['VWAP', 'RSI'] },
  ],
  [
    'pivot point bounce on cable 15m. long at S1 if a bullish engulfing prints there, short at R1 on a bearish engulfing. tp at the pivot. no trades mon',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, skipDays: ['mon'], mentions: ['S1', 'R1', 'engulfing'] },
  ],
  [
    'donchian 20 breakout, turtle style. buy new 20 bar high, short new 20 bar low, exit longs on a 10 bar low, exit shorts on a 10 bar high. 1h eurusd',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['Donchian'] },
  ],
  [
    'parabolic sar + 200 ema on aud/usd 1h. long when price above 200 ema and sar dots flip below price. trail with the sar',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['SAR', 'EMA 200'] },
  ],
  [
    'Can someone build me a strategy that just uses RSI, MACD and ATR as features and lets the model decide when to buy or sell? EURUSD 1h, gradient boosting',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: false, entryShort: false, model: 'GradientBoostingClassifier' },
  ],
  [
    'short only on gu when the 50 ema is below the 200 and price pulls back to the 50 ema. 15 min. tp 30 sl 15',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'short', entryShort: true, entryLong: false, exitShort: false, mentions: ['EMA 50', 'EMA 200'] },
  ],
  [
    'bitcoin 5m scalps, buy when price closes above upper keltner channel, no shorts, trailling 1.5 atr, max 3 open',
    { symbol: 'BTCUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, trailingStop: { atr: 1.5, period: 14 }, maxPositions: 3, mentions: ['Keltner'] },
  ],
  [
    'inside bar breakout on the daily for eurusd. buy the break of mother bar high, sell break of mother bar low',
    { symbol: 'EURUSD', timeframe: '15min', remarks: ['daily'], direction: 'both', entryLong: true, entryShort: true, mentions: ['inside bar'] },
  ],
  [
    'looking for smthing like: if rsi(14) on usdjpy 1hr chart is overbought (>70) AND price touches upper bolinger, then short. opposite for long. dont trade between 20:00 and 23:00 utc',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, session: [23, 20], mentions: ['RSI', '70', 'Bollinger'] },
  ],
  [
    'Trade fiber. MACD histogram turns positive → long. Turns negative → short. Only London session 07-16 UTC, skip mondays and fridays, logistic regression',
    { symbol: 'EURUSD', direction: 'both', entryLong: true, entryShort: true, session: [7, 16], skipDays: ['mon', 'fri'], model: 'LogisticRegression', mentions: ['MACD'] },
  ],
  [
    'Gold scalping 1m, buy dips to the 20 ema in uptrend',
    { symbol: 'EURUSD', remarks: ['gold'], timeframe: '1min', direction: 'long', entryLong: true, entryShort: false, mentions: ['EMA 20'] },
  ],
  [
    '3 white soldiers = buy, 3 black crows = sell. cable 1h. one position max.',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, maxPositions: 1, mentions: ['soldiers', 'crows'] },
  ],
  [
    'hammer candle at the lower bollinger band on loonie 15m → long. shooting star at upper band → short. sl 12 pips, tp 24',
    { symbol: 'USDCAD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, mentions: ['hammer', 'shooting star', 'Bollinger'] },
  ],
  [
    'prop firm challenge rules: max 2 positions, no trading fridays, no weekend holding. Strategy: stoch rsi cross up from below 20 on EU 15m for buys, cross down from above 80 for sells',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, skipDays: ['fri'], mentions: ['stoch', '20', '80'] },
  ],
  [
    'what about roc? buy when 10 period rate of change crosses above zero on nzdusd hourly, close when it crosses back below zero. longs only pls',
    { symbol: 'NZDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['ROC'] },
  ],
  [
    'EURJPY 15 min: short when price below ichimoku cloud',
    { symbol: 'EURUSD', remarks: ['eurjpy'], timeframe: '15min', direction: 'short', entryShort: true, entryLong: false, mentions: ['cloud'] },
  ],
  [
    'momentum trading on swissy 5min, buy when momentum(10) > 0 and price > sma 50, sell when momentum < 0 and price < sma 50, trailing stop 8 pips',
    { symbol: 'USDCHF', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, trailingStop: { pips: 8 }, mentions: ['momentum', 'SMA 50'] },
  ],
  [
    'Yo, wanna run xgb on cable 15 mins with ema 8/21 crossover for entries both ways, exit when price closes back thru the 21',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, model: 'XGBClassifier', mentions: ['EMA 8', 'EMA 21'] },
  ],
  [
    'i only want sells on uj when rsi is above seventy and the candle is a bearish engulfing. stop twenty pips. one trade at a time',
    { symbol: 'USDJPY', direction: 'short', entryShort: true, entryLong: false, maxPositions: 1, mentions: ['RSI', '70', 'engulfing'] },
  ],
  [
    "atr breakout: if a candle's range is more than 2x atr(14) and closes green, buy. if it closes red, sell. aussie 15min",
    { symbol: 'AUDUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['ATR'] },
  ],
  [
    'Please make a 30m chart strategy on gbpusd with sma 10 and sma 30 crossover, both sides',
    { symbol: 'GBPUSD', timeframe: '15min', remarks: ['30m'], direction: 'both', entryLong: true, entryShort: true, mentions: ['SMA 10', 'SMA 30'] },
  ],
  [
    'doji after a strong down move near support → buy, EURUSD H1. max positions two, no tp, trail twenty five pips',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, maxPositions: 2, takeProfit: null, trailingStop: { pips: 25 }, mentions: ['doji'] },
  ],
  [
    'short fiber when price touches R2 pivot, long when it touches S2, 15m, sessions 12-20 utc',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, session: [12, 20], mentions: ['R2', 'S2'] },
  ],
  [
    'BTC 1 hour: long if close > vwap and volume above average, short if close < vwap and volume above average',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['VWAP', 'volume'] },
  ],
  [
    'macd divergence on usdcad 1h. bullish divergence buy, bearish divergence sell',
    { symbol: 'USDCAD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['MACD', 'divergence'] },
  ],
  [
    "new to algo trading. what i do manually: wait for price to pull back to the 50 EMA in an uptrend (50 above 200) on EUR/USD 15 minute chart and then buy when RSI turns back up above 40. I close when RSI gets above 70. I don't sell short.",
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['EMA 50', 'RSI', '40', '70'] },
  ],
  [
    'GBPJPY aka the beast, 5 min, sell when stoch is above 80 and crosses down',
    { symbol: 'EURUSD', remarks: ['gbpjpy'], timeframe: '5min', direction: 'short', entryShort: true, entryLong: false, mentions: ['stoch', '80'] },
  ],
  [
    'keltner squeeze: when bollinger bands go inside the keltner channel and then expand, trade in the direction of the breakout. eurusd 15m. random forest',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, model: 'RandomForestClassifier', mentions: ['Keltner', 'Bollinger'] },
  ],
  [
    "trade only tuesdays to thursdays on cable, 1h, buy above the previous day's high, sell below previous day's low",
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, skipDays: ['mon', 'fri', 'sat', 'sun'] },
  ],
  [
    'ema ribbon on usdchf 15min — 8,13,21,34,55 all stacked bullish → long; all stacked bearish → short',
    { symbol: 'USDCHF', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['EMA 8', 'EMA 55'] },
  ],
  [
    'Could you code: when price closes outside the lower bb(20,2) and the next candle closes back inside, buy. Reverse for shorts. Exit at middle band. Aud/usd 5min. no trading after 18 utc',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, session: [0, 18], mentions: ['Bollinger'] },
  ],
  [
    'kiwi 1h, let the model decide, features: rsi, adx, cci, atr. xgboost. max 1 position, trailing stop 1 atr',
    { symbol: 'NZDUSD', timeframe: '1h', entryLong: false, entryShort: false, model: 'XGBClassifier', maxPositions: 1, trailingStop: { atr: 1, period: 14 } },
  ],
  [
    'NAS100 15m opening range breakout at 13:30 utc',
    { symbol: 'EURUSD', remarks: ['nas100'], timeframe: '15min' },
  ],
  [
    'sell eurusd when the 1h rsi crosess below 50 from above and price is under the 100 sma, close the short when rsi goes back above 50',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'short', entryShort: true, entryLong: false, exitShort: true, mentions: ['RSI', '50', 'SMA 100'] },
  ],
  [
    'buy when price is 2 standard deviations below the 20 sma (like lower bollinger) and sell short at 2 std devs above. GU 5m. Only 8 to 17 utc. Close all trades at the 20 sma',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, session: [8, 17], mentions: ['SMA 20'] },
  ],
  [
    'Dollar yen 15m, trend following. Only longs when ADX > 20 and price above 50 EMA. Trailing stop 3 ATR, no take profit',
    { symbol: 'USDJPY', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, trailingStop: { atr: 3, period: 14 }, takeProfit: null, mentions: ['ADX', '20', 'EMA 50'] },
  ],
  [
    'daily pivot strategy 4hr chart: long above pivot short below',
    { timeframe: '15min', remarks: ['4hr'], direction: 'both', entryLong: true, entryShort: true, mentions: ['pivot'] },
  ],
  [
    'morning star pattern → long, evening star → short, cable 1h, random forrest model',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, model: 'RandomForestClassifier', mentions: ['morning star', 'evening star'] },
  ],
  [
    'BUY LOONIE WHEN RSI UNDER 25 ON 5 MIN. SELL (SHORT) WHEN OVER 75. SL 10 TP 15. NO TRADES ON MONDAY OR FRIDAY',
    { symbol: 'USDCAD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, skipDays: ['mon', 'fri'], mentions: ['RSI', '25', '75'] },
  ],
  [
    'Can u trade EUR/GBP? looking to fade moves with williams r, m15',
    { symbol: 'EURUSD', remarks: ['eur/gbp'], timeframe: '15min', mentions: ['Williams'] },
  ],
  [
    'heikin ashi: 2 green HA candles in a row after a red one, buy. 2 red after a green, sell. eurusd 15 min. exit on first opposite colour candle',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['heikin'] },
  ],
  [
    'trade aussie only in the asian session 22:00-06:00 utc, buy when price bounces off the lower keltner band, no shorts',
    { symbol: 'AUDUSD', session: [22, 6], direction: 'long', entryLong: true, entryShort: false, mentions: ['Keltner'] },
  ],
  [
    'weekly chart btc, buy when price above 20 week ma',
    { symbol: 'BTCUSD', timeframe: '15min', remarks: ['weekly'], direction: 'long', entryLong: true, entryShort: false },
  ],
  [
    "Hey, I'm doing FTMO. Strategy: EURUSD 5 min, MACD crosses above signal while below zero line → buy. MACD crosses below signal above zero → sell. SL 8 pips, TP 16. Max 1 open trade. No trading 21-23 UTC (spreads).",
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: false, exitShort: false, maxPositions: 1, session: [23, 21], mentions: ['MACD'] },
  ],
  [
    'stochastic 5 3 3 on cable 15m. long: %k crosses %d under 20. short: crosses over 80. Trail 15 pips. Skip Wednesdays (news)',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, trailingStop: { pips: 15 }, skipDays: ['wed'], mentions: ['stoch', '20', '80'] },
  ],
  [
    'just want a model, no rules: uj 5m, gradient boosting, features whatever you think',
    { symbol: 'USDJPY', timeframe: '5min', entryLong: false, entryShort: false, model: 'GradientBoostingClassifier' },
  ],
  [
    'double bottom on eurusd hourly → buy the neckline break',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['double bottom'] },
  ],
  [
    'oil 15m rsi 2 strategy, buy rsi(2) < 10, sell rsi(2) > 90',
    { symbol: 'EURUSD', remarks: ['oil'], timeframe: '15min', mentions: ['RSI 2', '10', '90'] },
  ],
  [
    'fibre 1hr: go long on a close above the 20-period high (donchian upper), go short on a close below the 20 period low. 2 positions max. xgboost',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, model: 'XGBClassifier', mentions: ['Donchian'] },
  ],
  [
    'cci below minus two hundred then back above → long on kiwi 15min',
    { symbol: 'NZDUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, mentions: ['CCI', '-200'] },
  ],
  [
    'Trade USD/CHF on M5: when the 5 EMA crosses the 13 EMA upward and RSI(7) > 50 go long; opposite for short. Close trades at 17:00 UTC. Only trade 08:00-17:00 UTC.',
    { symbol: 'USDCHF', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, session: [8, 17], mentions: ['EMA 5', 'EMA 13', 'RSI'] },
  ],
  [
    'is it possible to short btcusd when funding is high? lol. otherwise just short when price under 200 sma on 1h',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'short', entryShort: true, entryLong: false, mentions: ['funding', 'SMA 200'] },
  ],
  [
    'supertrend(10,3) + adx filter. long when supertrend bullish and adx above 25. short when bearish and adx above 25. exit when supertrend flips. gu 15m',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['supertrend', 'ADX', '25'] },
  ],
  [
    'fade the 3rd consecutive green candle on uj 5m — short it. tp 10 pips sl 10 pips',
    { symbol: 'USDJPY', timeframe: '5min', direction: 'short', entryShort: true, entryLong: false, exitShort: false },
  ],
  [
    'buy the dip: eurusd 15 minute, when price falls 3 candles in a row and RSI < 35, buy. sell when rsi > 55. no shorting',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['RSI', '35', '55'] },
  ],
  [
    'Aussie/kiwi pair? AUDNZD 1h mean reversion with bollinger',
    { symbol: 'EURUSD', remarks: ['audnzd'], timeframe: '1h', mentions: ['Bollinger'] },
  ],
  [
    'trade cable 1m scalping between 12 and 15 utc only, ema 3 crosses ema 8 both ways, max 1 trade, tp 5 pips, sl 5',
    { symbol: 'GBPUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, session: [12, 15], maxPositions: 1, mentions: ['EMA 3', 'EMA 8'] },
  ],
  [
    'i want the model to decide (random forest) but only take longs, only when price is above the 200 ema. eurusd 1h',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: false, entryShort: false, entryFilter: true, model: 'RandomForestClassifier', mentions: ['EMA 200'] },
  ],
  [
    'Parabolic SAR on USDCAD 15m: long when dots below price, short when above. trailing stop 20 pips. skip monday',
    { symbol: 'USDCAD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, trailingStop: { pips: 20 }, skipDays: ['mon'], mentions: ['SAR'] },
  ],
  [
    'vwap reversion on btc 5 min: if price is more than 2% below vwap go long, exit at vwap',
    { symbol: 'BTCUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['VWAP'] },
  ],
  [
    'EMA200 + RSI pullback, GBPUSD 15m. Long only above EMA200 when RSI dips under 40 then crosses back above 40. Short only below EMA200 when RSI pops over 60 then crosses back under 60. logistic regression. dont trade fridays after... actually just skip fridays',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, model: 'LogisticRegression', skipDays: ['fri'], mentions: ['EMA 200', 'RSI', '40', '60'] },
  ],
  [
    'tweezer bottoms on swissy 1h = buy, tweezer tops = sell',
    { symbol: 'USDCHF', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['tweezer'] },
  ],
  [
    'Trading the DAX at open, 9am frankfurt. 15min chart. buy breakout of first candle high',
    { symbol: 'EURUSD', remarks: ['dax'], timeframe: '15min', direction: 'long', entryLong: true, entryShort: false },
  ],
  [
    "kiwi: buy when the 10 sma is above the 50 sma and price closes above yesterday's high. no sells. h1. trailing stop of one and a half atr",
    { symbol: 'NZDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, trailingStop: { atr: 1.5, period: 14 }, mentions: ['SMA 10', 'SMA 50'] },
  ],
  [
    'eu 15m: short when price closes below the 50 sma and macd is below zero, long when price closes above 50 sma and macd above zero. close shorts when macd crosses above signal line, close longs when it crosses below. max three trades open',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, maxPositions: 3, mentions: ['SMA 50', 'MACD'] },
  ],
  [
    'pin bar at the 21 ema on cable hourly, bullish pin = long, bearish pin = short',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['pin bar', 'EMA 21'] },
  ],
  [
    'Looking for aussie 5 min, rsi 14 crosses 50 upward buy, downward sell short, only between 23 and 7 utc, skip sunday',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, session: [23, 7], skipDays: ['sun'], mentions: ['RSI', '50'] },
  ],
  [
    'ETHUSD 1h supertrend long only',
    { symbol: 'EURUSD', remarks: ['ethusd'], timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['supertrend'] },
  ],
  [
    'dollar swiss 15m: when the bollinger bandwidth hits its lowest in 100 bars, trade the breakout either way. trail 2 atr',
    { symbol: 'USDCHF', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, trailingStop: { atr: 2, period: 14 }, mentions: ['Bollinger'] },
  ],
  [
    'awesome oscillator saucer buy signals only on gbpusd 5m',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, mentions: ['awesome'] },
  ],
  [
    'fiber 1h: buy if price above ichimoku cloud and chikou span above price 26 bars ago; sell if below cloud and chikou below. close when tenkan crosses kijun against the trade',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['cloud', 'chikou'] },
  ],
  [
    'Uj hourly — short when RSI(14) > 70 AND price is above upper Bollinger, long when RSI < 30 AND below lower Bollinger. Exit when RSI returns to 50. TP none, trailing 30 pips. Max 2.',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, takeProfit: null, trailingStop: { pips: 30 }, maxPositions: 2, mentions: ['RSI', '70', '30', 'Bollinger'] },
  ],
  [
    'cable 15m, only trade 13-17 utc on tue wed thu. long when price above vwap and ema 9 > ema 20. no shorts. sl 15 pips trail 10',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, session: [13, 17], skipDays: ['mon', 'fri', 'sat', 'sun'], trailingStop: { pips: 10 }, mentions: ['VWAP', 'EMA 9', 'EMA 20'] },
  ],
  [
    "GBP/USD 1 minute chart. Scalping with the 'Williams %R' indicator: buy below -80 crossing up, sell above -20 crossing down (short). Don't trade on Mondays. Gradient boosting.",
    { symbol: 'GBPUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, skipDays: ['mon'], model: 'GradientBoostingClassifier', mentions: ['Williams', '-80', '-20'] },
  ],
  [
    'hi i trade NZD/USD on the 15m, i want to buy when price makes a higher low above the 100 ema and sell short when lower high below 100 ema',
    { symbol: 'NZDUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['EMA 100'] },
  ],
  [
    'Hourly EURUSD, use ROC(12), CCI(20) and Stoch as features and let the model figure out the direction (long or short), RF. only trade 6-22 utc',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: false, entryShort: false, model: 'RandomForestClassifier', session: [6, 22] },
  ],
  [
    'Mean reversion on EUR/USD 5 min using a 20 period z-score: buy under minus 2.5, sell short over plus 2.5, exit at zero',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true, mentions: ['-2.5'] },
  ],
  [
    'Trading 2h chart on aussie, macd + ema 50',
    { symbol: 'AUDUSD', timeframe: '15min', remarks: ['2h'] },
  ],
  [
    'sell only. usdcad 1h. when price rejects the upper keltner channel with a bearish candle and cci above 100. skip fri. max 1',
    { symbol: 'USDCAD', timeframe: '1h', direction: 'short', entryShort: true, entryLong: false, skipDays: ['fri'], maxPositions: 1, mentions: ['Keltner', 'CCI', '100'] },
  ],
  [
    'xauusd m5 scalping bot — ema 9/21 cross, both sides',
    { symbol: 'EURUSD', remarks: ['xauusd'], timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, mentions: ['EMA 9', 'EMA 21'] },
  ],
];

export const BLIND_SET_4: IntentCase[] = cases.map(([prompt, expect], i) => ({ id: `fourth-${i + 1}`, category: 'blind', prompt, expect }));
