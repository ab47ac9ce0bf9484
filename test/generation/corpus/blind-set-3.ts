/**
 * A third blind set (issue 35): prompts typed the way retail forex traders write in chats,
 * Discord and Telegram groups, forum posts, prop-firm notes and beginners' questions, written
 * after the entry-rules change by someone who had not read the parser nor the earlier blind sets.
 * Each expectation is what the trader means: a market or timeframe with no bars falls back to
 * EURUSD / 15min and must be said in a remark; a field the words leave genuinely open is left out.
 * Kept apart from the tuning corpus: do not tune the generator to these prompts.
 */
import type { Expect, IntentCase } from './intent-corpus.ts';

const atr = (k: number) => ({ atr: k, period: 14 });

const PROMPTS: ReadonlyArray<readonly [string, Expect]> = [
  [
    'cable 15m, short when rsi goes above 70 and price is under the 200 ema. tp 30 pips sl 15',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'short', entryShort: true, entryLong: false, mentions: ['RSI', 'EMA 200'] },
  ],
  [
    'looking for a simple one on eu 5min: buy when macd crosses above signal line, sell when it crosses below. no trades on friday pls',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, skipDays: ['fri'], mentions: ['MACD'] },
  ],
  [
    'uj hourly - go long if price closes above upper keltner channel, exit when it closes back under the middle line. long only',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Keltner'] },
  ],
  [
    'gold 1h breakout strat, donchian 20 break up = buy, break down = sell',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, remarks: ['gold'], mentions: ['Donchian'] },
  ],
  [
    'aussie 15 min, fade moves outside the bollinger bands (20,2) both sides, take profit at the middle band',
    {
      symbol: 'AUDUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['Bollinger'],
    },
  ],
  [
    'i want to trade the london open only, 7 to 10 utc, on gbpusd 5m. buy when stoch %k crosses up under 20, sell when it crosses down above 80',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'both', session: [7, 10], entryLong: true, entryShort: true, mentions: ['stoch'] },
  ],
  [
    'kiwi h1 short only. enter short when supertrend flips red, close when it flips green again',
    {
      symbol: 'NZDUSD',
      timeframe: '1h',
      direction: 'short',
      entryShort: true,
      entryLong: false,
      exitShort: true,
      mentions: ['SuperTrend'],
    },
  ],
  [
    'loonie 1 min scalps, buy when price crosses above vwap and rsi > 50, trail stop 10 pips, no tp just let it run',
    {
      symbol: 'USDCAD',
      timeframe: '1min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: { pips: 10 },
      takeProfit: null,
      mentions: ['VWAP'],
    },
  ],
  [
    'swissie 15m just throw rsi macd and atr in as features and let the model decide, random forest',
    { symbol: 'USDCHF', timeframe: '15min', direction: 'both', entryLong: false, entryShort: false, model: 'RandomForestClassifier' },
  ],
  [
    'btc hourly, go long when price is above the ichimoku cloud and tenkan crosses above kijun. no shorts',
    { symbol: 'BTCUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['Ichimoku'] },
  ],
  [
    'eurusd 15 min parabolic sar flip strategy both ways',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['SAR'] },
  ],
  [
    'GU 5min: sell if williams %r is above -20 and price under 50 sma. only between 12 and 16 utc. max 1 trade at a time',
    {
      symbol: 'GBPUSD',
      timeframe: '5min',
      direction: 'short',
      entryShort: true,
      entryLong: false,
      session: [12, 16],
      maxPositions: 1,
      mentions: ['Williams', '-20'],
    },
  ],
  [
    'anyone got a cci strat? mine: buy when cci 20 crosses up through -100, sell when it crosses down through +100, eur/usd 1hr',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['CCI'] },
  ],
  [
    'trade usdjpy on the 4h chart, buy pullbacks to the 50 ema when adx is over 25',
    {
      symbol: 'USDJPY',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      remarks: ['4h'],
      mentions: ['ADX', 'EMA 50'],
    },
  ],
  [
    'nas100 scalping with rsi 2, below 10 buy above 90 sell, 5 min',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, remarks: ['nas100'], mentions: ['RSI'] },
  ],
  [
    'long only on aud/usd 15m when +di crosses above -di and adx rising. exit when -di crosses back above +di. trailing stop 2 atr, no take profit',
    {
      symbol: 'AUDUSD',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      trailingStop: atr(2),
      takeProfit: null,
      mentions: ['ADX'],
    },
  ],
  [
    'eurusd m15 sell the rallies: short when price tags the r1 pivot and rsi is over 60',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'short', entryShort: true, entryLong: false, mentions: ['R1', 'RSI'] },
  ],
  [
    'USDCAD hourly — momentum: buy when roc(10) above 0.5, sell when below -0.5, skip mondays and fridays',
    {
      symbol: 'USDCAD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['mon', 'fri'],
      mentions: ['ROC'],
    },
  ],
  [
    'bullish engulfing on the 15m chart eu = buy. bearish engulfing = sell. sl 20 pips tp 40',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['engulfing'] },
  ],
  [
    'pin bar at the lower bollinger band, long only, cable 1h',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['pin bar', 'Bollinger'] },
  ],
  [
    'inside bar breakout on kiwi 15min, buy the break of the mother bar high, sell the break of the low',
    { symbol: 'NZDUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['inside bar'] },
  ],
  [
    'z-score of price vs 50 sma: buy when z < -2, sell when z > 2, exit both when it gets back to 0. eurusd 5 min',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, exitLong: true, exitShort: true },
  ],
  [
    'golden cross 50/200 sma on usdchf 1h go long, death cross close it. dont short',
    { symbol: 'USDCHF', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true },
  ],
  [
    'when the 20 ema slopes up and price pulls back to it buy, when it slopes down and price rallies into it sell. gbp usd fifteen minute',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['EMA 20'] },
  ],
  [
    'let the ml model pick the trades, i dont have rules. usdjpy five min, xgboost, max three positions',
    { symbol: 'USDJPY', timeframe: '5min', entryLong: false, entryShort: false, model: 'XGBClassifier', maxPositions: 3 },
  ],
  [
    'crude oil hourly, buy when macd histogram flips positive',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, remarks: ['oil'], mentions: ['MACD'] },
  ],
  [
    'sell eurusd when rsi(14) over 75 on 1 minute, buy back when rsi back under 50',
    { symbol: 'EURUSD', timeframe: '1min', direction: 'short', entryShort: true, entryLong: false, exitShort: true, mentions: ['RSI'] },
  ],
  [
    'i scalp aussie on m5 between 0 and 6 utc (asia). fade bollinger 20 2 touches both ways',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', session: [0, 6], entryLong: true, entryShort: true, mentions: ['Bollinger'] },
  ],
  [
    'trend following on btc 15m: supertrend 10 3 green = long, red = short, trail with 3 atr and let it ride',
    {
      symbol: 'BTCUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: atr(3),
      takeProfit: null,
      mentions: ['SuperTrend'],
    },
  ],
  [
    'buy the dip on gbpusd hourly — when price drops 3 atr below the 20 ema. no sells. close when price gets back to the ema',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['EMA 20'] },
  ],
  [
    'donchian 55 breakout turtle style, long and short, exit on a 20 bar opposite breakout, usd/chf 1h',
    {
      symbol: 'USDCHF',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['Donchian'],
    },
  ],
  [
    'short only eu 15m, price below ichimoku cloud and chikou below price, sl above the cloud',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'short', entryShort: true, entryLong: false, mentions: ['Ichimoku'] },
  ],
  [
    'wanna try williams r on uj 1h, buy when it comes up out of oversold (-80), sell when it drops from overbought -20',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['Williams', '-80', '-20'] },
  ],
  [
    'daily chart eurusd, buy when rsi below 30',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, remarks: ['daily'], mentions: ['RSI'] },
  ],
  [
    'eurjpy 15 min short when stoch above 80 and price under 200 ema',
    {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'short',
      entryShort: true,
      entryLong: false,
      remarks: ['eurjpy'],
      mentions: ['stoch'],
    },
  ],
  [
    'ok so my idea: on cable 15m, when macd crosses above zero AND rsi > 50 go long, when macd crosses below zero and rsi < 50 go short. but not on fridays. and only london, 7-16 utc',
    {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['fri'],
      session: [7, 16],
      mentions: ['MACD', 'RSI'],
    },
  ],
  [
    'sell kiwi 1 hr when the 9 ema crosses under the 21 ema, buy back when it crosses back over. shorts only',
    { symbol: 'NZDUSD', timeframe: '1h', direction: 'short', entryShort: true, entryLong: false, exitShort: true, mentions: ['EMA 9'] },
  ],
  [
    'loonie 5 min - price closes below lower keltner = buy (mean reversion), closes above upper = sell, exit at the middle line',
    {
      symbol: 'USDCAD',
      timeframe: '5min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['Keltner'],
    },
  ],
  [
    'btc 1m, buy when price bounces off vwap from above, trailing stop 1.5 atr',
    {
      symbol: 'BTCUSD',
      timeframe: '1min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: atr(1.5),
      mentions: ['VWAP'],
    },
  ],
  [
    'prop challenge notes: eurusd 15m, max 2 open trades, no trading mon, entries = rsi 14 cross up 30 for longs / cross down 70 for shorts, hard sl 10 pips',
    {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      maxPositions: 2,
      skipDays: ['mon'],
      mentions: ['RSI'],
    },
  ],
  [
    'gbpusd 1 hour CCI above 100 and ADX > 30 -> long. thats it no shorts',
    { symbol: 'GBPUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['CCI', 'ADX'] },
  ],
  [
    'fiber 5min: when price is above the 200 sma only take longs on a stochastic cross up from oversold, below it only shorts on a cross down from overbought',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, mentions: ['SMA 200', 'stoch'] },
  ],
  [
    'just tell the model to trade usdjpy 15m with gradient boosting, no rules from me',
    { symbol: 'USDJPY', timeframe: '15min', entryLong: false, entryShort: false, model: 'GradientBoostingClassifier' },
  ],
  [
    'aussie 1h: bearish engulfing at r2 = short. long? nah',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'short', entryShort: true, entryLong: false, mentions: ['engulfing', 'R2'] },
  ],
  [
    'hey guys beginner here, how would i make a bot that buys eurusd when the price goes above the 50 moving average on the 15 minute chart and sells when it goes back below?',
    { symbol: 'EURUSD', timeframe: '15min', entryLong: true, mentions: ['MA 50'] },
  ],
  [
    'swissie 15m adx under 20 = range, so fade it: rsi < 25 buy, rsi > 75 sell. only when adx < 20',
    { symbol: 'USDCHF', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['ADX', 'RSI'] },
  ],
  [
    'trade between 13:00 and 17:00 utc only on eur usd 5m, macd signal line cross both directions',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', session: [13, 17], entryLong: true, entryShort: true, mentions: ['MACD'] },
  ],
  [
    'gu h1 long when price closes above the 20 period high (donchian) and rsi above 55, trail 40 pips and no tp',
    {
      symbol: 'GBPUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: { pips: 40 },
      takeProfit: null,
      mentions: ['Donchian'],
    },
  ],
  [
    'sell usdcad fifteen min when psar dots go above price and macd is below zero',
    { symbol: 'USDCAD', timeframe: '15min', direction: 'short', entryShort: true, entryLong: false, mentions: ['SAR', 'MACD'] },
  ],
  [
    'kiwi 5m buy when rsi two is under five. exit when close above the 5 sma',
    { symbol: 'NZDUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, exitLong: true },
  ],
  [
    'aud usd hrly, momentum > 0 and price above 100 ema buy; momentum < 0 and below 100 ema sell; no trades fridays',
    { symbol: 'AUDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, skipDays: ['fri'], mentions: ['EMA 100'] },
  ],
  ['gbpjpy 15min supertrend strat', { symbol: 'EURUSD', timeframe: '15min', remarks: ['gbpjpy'], mentions: ['SuperTrend'] }],
  [
    'xauusd 5 min, buy when price above vwap and rsi crosses 50 up, sell the opposite',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, remarks: ['xauusd'] },
  ],
  [
    'i only want longs on usdjpy 1h when price is above the ichimoku cloud, close the long when price closes back inside the cloud',
    { symbol: 'USDJPY', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['Ichimoku'] },
  ],
  [
    'eurusd 15m, bb squeeze: when bollinger bandwidth is at a 50 bar low and price breaks above the upper band buy, below the lower band sell',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['Bollinger'] },
  ],
  [
    'extra trees model on cable 5m, features: cci, williams, adx. model decides direction, longs and shorts',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'both', entryLong: false, entryShort: false, model: 'ExtraTreesClassifier' },
  ],
  [
    'eu 15m buy when rsi below 30, no wait make it 25, exit at rsi 50',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['RSI'] },
  ],
  [
    'short cable on the 1 min when williams %r crosses below -80?? no sorry -20, longs never',
    { symbol: 'GBPUSD', timeframe: '1min', direction: 'short', entryShort: true, entryLong: false, mentions: ['Williams'] },
  ],
  [
    'usdchf 1h: sell the rip when price is 2 atr above the 20 sma, buy the dip when 2 atr below it. one position max',
    { symbol: 'USDCHF', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, maxPositions: 1, mentions: ['SMA 20'] },
  ],
  [
    'looking at trading btcusd 15 minute with a cci(14) cross above zero for buys, stop 1 atr trailing, let winners run',
    {
      symbol: 'BTCUSD',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: atr(1),
      takeProfit: null,
      mentions: ['CCI'],
    },
  ],
  [
    'dax 1h, buy when macd crosses up',
    { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, remarks: ['dax'], mentions: ['MACD'] },
  ],
  [
    'nzdusd 15 min, go long when the 10 ema crosses above the 30 ema and price above the pivot, go short on the opposite cross below the pivot. from 6 to 18 utc',
    {
      symbol: 'NZDUSD',
      timeframe: '15min',
      direction: 'both',
      session: [6, 18],
      entryLong: true,
      entryShort: true,
      mentions: ['EMA 10', 'pivot'],
    },
  ],
  [
    'eu 1m scalp: rsi 7 > 80 short, < 20 long, tp 5 pips sl 5 pips, max 3 trades',
    { symbol: 'EURUSD', timeframe: '1min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 3, mentions: ['RSI'] },
  ],
  [
    'trading the ny session only (13-21 utc) on usdcad 5min, short when price rejects the upper keltner band with a pin bar',
    {
      symbol: 'USDCAD',
      timeframe: '5min',
      direction: 'short',
      session: [13, 21],
      entryShort: true,
      entryLong: false,
      mentions: ['Keltner', 'pin bar'],
    },
  ],
  [
    'aussie 15m long when stochastic %k crosses over %d and both under twenty, exit when stoch goes above eighty',
    { symbol: 'AUDUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, exitLong: true, mentions: ['stoch'] },
  ],
  [
    'gbpusd 5 min, i want logistic regression on rsi and bollinger %b, no manual entries',
    { symbol: 'GBPUSD', timeframe: '5min', entryLong: false, entryShort: false, model: 'LogisticRegression' },
  ],
  [
    'usdjpy 15m sell when price closes below the lower donchian 20 and adx over 20, cover when price closes above the 10 bar high',
    {
      symbol: 'USDJPY',
      timeframe: '15min',
      direction: 'short',
      entryShort: true,
      entryLong: false,
      exitShort: true,
      mentions: ['Donchian', 'ADX'],
    },
  ],
  [
    'eurusd hourly trend: buy when the 50 ema is sloping up (higher than 5 bars ago) and price crosses above it. sell the mirror. trail 2.5 atr let it ride no tp',
    {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: atr(2.5),
      takeProfit: null,
      mentions: ['EMA 50'],
    },
  ],
  [
    'gu 15 min between 22:00 and 06:00 utc, fade moves beyond 2 std dev from the 20 sma (zscore) both sides',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', session: [22, 6], entryLong: true, entryShort: true },
  ],
  [
    '4hr cable, buy on macd cross up',
    { symbol: 'GBPUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, remarks: ['4hr'], mentions: ['MACD'] },
  ],
  [
    'swissy 1 hour: buy if price closes above the r1 pivot, sell if it closes below s1, no trades tuesday',
    { symbol: 'USDCHF', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, skipDays: ['tue'], mentions: ['R1', 'S1'] },
  ],
  [
    'adaboost on kiwi hourly, let it pick longs/shorts, only trade 8-17 utc',
    {
      symbol: 'NZDUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: false,
      entryShort: false,
      model: 'AdaBoostClassifier',
      session: [8, 17],
    },
  ],
  [
    'eu 5m: three white soldiers = long',
    { symbol: 'EURUSD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, mentions: ['soldiers'] },
  ],
  [
    'usd/jpy 1min buy when price above vwap and cci > 0 but not if adx below 15; sl 8 pips trailing',
    {
      symbol: 'USDJPY',
      timeframe: '1min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: { pips: 8 },
      mentions: ['VWAP', 'CCI', 'ADX'],
    },
  ],
  [
    'short bitcoin 5 minute when rsi(14) crosses under 50 from above and the macd histogram is negative. close short when rsi crosses back above 50',
    {
      symbol: 'BTCUSD',
      timeframe: '5min',
      direction: 'short',
      entryShort: true,
      entryLong: false,
      exitShort: true,
      mentions: ['RSI', 'MACD'],
    },
  ],
  [
    'cable 15min, donchian 20 midline cross for entries both ways, dont trade thursdays or fridays',
    {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['thu', 'fri'],
      mentions: ['Donchian'],
    },
  ],
  [
    'hourly eurusd keltner breakout long only trail 30 pips let it run',
    {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: { pips: 30 },
      takeProfit: null,
      mentions: ['Keltner'],
    },
  ],
  [
    'eurusd 15 min, buy wen the rsi is bellow thirty and price abve the 200 ema, sel when rsi above seventy and below the 200',
    { symbol: 'EURUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['RSI'] },
  ],
  [
    'gbp/usd 5 mins bolinger band breakout long and short, max two trades',
    { symbol: 'GBPUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, maxPositions: 2, mentions: ['Bollinger'] },
  ],
  [
    'usdcad 1hr, go long on a bulish engulfing when price is above the 50 ema, exit when rsi hits 70',
    {
      symbol: 'USDCAD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      mentions: ['engulfing', 'EMA 50'],
    },
  ],
  [
    'audusd 5 minute short when the cci drops below minus one hundred, long when it goes above plus one hundred, trailing stop of 2 atr',
    { symbol: 'AUDUSD', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, trailingStop: atr(2), mentions: ['CCI'] },
  ],
];

export const BLIND_SET_3: readonly IntentCase[] = PROMPTS.map(([prompt, expect], i) => ({
  id: `third-${i + 1}`,
  category: 'blind',
  prompt,
  expect,
}));
