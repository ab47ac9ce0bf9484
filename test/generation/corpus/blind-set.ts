/**
 * The fresh blind set (issue 35): prompts in traders' own words, written after the entry-rule
 * change by someone who had not read the parser, from what each trader means, before the
 * generator was run on them. Kept apart from the tuning corpus (intent-corpus.ts does not import
 * it): tuning the parser on these prompts would make them no longer blind. Scored on its own by
 * blind-set.test.ts.
 *
 * Conventions of the expectations: London is 07–16 UTC; sessions are checked only where the
 * trader gives hours or says "London"; a pair or timeframe with no bars (EURJPY, gold, 4h, 30 min,
 * daily) falls back (EURUSD for the symbol, as the contract says) and must be named in a remark;
 * entry rules are expected on a side where the trader states an entry condition, none where the
 * trader does not trade that side or leaves entries to the model.
 */
import type { IntentCase } from './intent-corpus.ts';

type Blind = Omit<IntentCase, 'id' | 'category'>;

const PROMPTS: Blind[] = [
  {
    prompt:
      'cable on the 15m: buy when rsi(14) dips under 30 and crosses back up, sell when it pops over 70 and rolls over. sl 20 pips, tp 2R',
    expect: { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: true, entryShort: true, mentions: ['RSI'] },
  },
  {
    prompt: 'fiber h1 long only. go long when the 50 ema crosses above the 200 ema, close when it crosses back under. no shorts',
    expect: {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      mentions: ['EMA 50', 'EMA 200'],
    },
  },
  {
    prompt:
      'aussie 5min scalps, short only. sell when macd line crosses below signal while price is under vwap. exit on the opposite macd cross. london session only',
    expect: {
      symbol: 'AUDUSD',
      timeframe: '5min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      exitShort: true,
      session: [7, 16],
      mentions: ['MACD', 'VWAP'],
    },
  },
  {
    prompt: 'kiwi 1h — long above the ichimoku cloud, short below it. trail 2 atr, no take profit, let winners run',
    expect: {
      symbol: 'NZDUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: { atr: 2, period: 14 },
      takeProfit: null,
      mentions: ['cloud'],
    },
  },
  {
    prompt: 'loonie 15 min: buy when parabollic sar flips below price, sell when sar flips above. not on fridays',
    expect: {
      symbol: 'USDCAD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['fri'],
      mentions: ['SAR'],
    },
  },
  {
    prompt: 'swissy hourly supertrend(10,3) - go long on a green flip, short on red flip, exit when it flips back. max 1 position',
    expect: {
      symbol: 'USDCHF',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      maxPositions: 1,
      mentions: ['SuperTrend'],
    },
  },
  {
    prompt: 'eurusd 15m inside bar breakout: buy the break of the mother bar high, sell the break of the low. only 7-16 utc',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      session: [7, 16],
      mentions: ['inside bar'],
    },
  },
  {
    prompt: 'gbpusd 1h, sell bearish pin bars at the upper bollinger band, buy bullish pin bars at the lower band. sl above/below the wick',
    expect: { symbol: 'GBPUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['pin bar', 'Bollinger'] },
  },
  {
    prompt: 'usdjpy 5m bullish engulfing above 200 sma -> long. no shorts. tp 15 pips sl 10',
    expect: {
      symbol: 'USDJPY',
      timeframe: '5min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      mentions: ['engulfing', 'SMA 200'],
    },
  },
  {
    prompt: 'williams %r below -80 then back above = buy on aussie 15min, close when it gets above -20',
    expect: {
      symbol: 'AUDUSD',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      mentions: ['Williams %R', '-80', '-20'],
    },
  },
  {
    prompt: 'cci(20) crossing back above -100 is my long, crossing back below +100 my short. eurusd h1',
    expect: { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['CCI', '-100'] },
  },
  {
    prompt: 'stoch cross up under 20 = long, cross down over 80 = short. 5 min cable, only during the london/ny overlap 12-16 utc',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '5min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      session: [12, 16],
      mentions: ['stoch'],
    },
  },
  {
    prompt: 'adx over 25 and +di above -di go long, -di above +di go short. 1h loonie. trailing stop 30 pips',
    expect: {
      symbol: 'USDCAD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: { pips: 30 },
      takeProfit: null,
      mentions: ['ADX', '+DI'],
    },
  },
  {
    prompt: 'buy the s1 pivot bounce, sell the r1 rejection (daily pivots), eurusd 15m, target the central pivot',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['S1', 'R1'],
    },
  },
  {
    prompt: 'roc(10) > 0.5 go long, roc < -0.5 go short, usdchf 1h, avoid mondays and fridays',
    expect: {
      symbol: 'USDCHF',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['mon', 'fri'],
      mentions: ['ROC', '0.5'],
    },
  },
  {
    prompt: 'mean reversion on fiber: z-score of close vs the 20 sma under -2 buy, over +2 sell, exit when the z crosses 0. 15 min',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['z-score'],
    },
  },
  {
    prompt:
      'just give me a random forest on eurusd 1h with rsi, macd, atr and bollinger width as features and let the model decide when to trade',
    expect: { symbol: 'EURUSD', timeframe: '1h', direction: 'both', entryLong: false, entryShort: false, model: 'RandomForestClassifier' },
  },
  {
    prompt: 'xgboost, gbpusd 15min, features: returns over 1, 5 and 20 bars, atr, hour of day. model picks the direction, no rules from me',
    expect: { symbol: 'GBPUSD', timeframe: '15min', direction: 'both', entryLong: false, entryShort: false, model: 'XGBClassifier' },
  },
  {
    prompt: 'twenty bar donchian breakout on btc hourly, long and short, 2 atr trailing stop, no fixed tp',
    expect: {
      symbol: 'BTCUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: { atr: 2, period: 14 },
      takeProfit: null,
      mentions: ['Donchian'],
    },
  },
  {
    prompt:
      'keltner channel breakout long only on aussie 15m: close above the upper keltner (20, 2 atr) -> buy. exit when it closes back inside the channel',
    expect: {
      symbol: 'AUDUSD',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      mentions: ['Keltner'],
    },
  },
  {
    prompt: 'eurjpy 1h, buy when rsi < 30',
    expect: {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      remarks: ['EURJPY'],
      mentions: ['RSI'],
    },
  },
  {
    prompt: 'gold 15min, buy the breakout of the asian range, buys only',
    expect: { symbol: 'EURUSD', timeframe: '15min', direction: 'long', remarks: ['gold'], mentions: ['asia'] },
  },
  {
    prompt: 'gopher 5m scalp, sell under vwap',
    expect: {
      symbol: 'EURUSD',
      timeframe: '5min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      remarks: ['GBPJPY'],
      mentions: ['VWAP'],
    },
  },
  {
    prompt: 'eurusd 4h chart, long when price is above the 200 ema and the macd histogram turns positive',
    expect: { symbol: 'EURUSD', direction: 'long', entryLong: true, entryShort: false, remarks: ['4h'], mentions: ['MACD', 'EMA 200'] },
  },
  {
    prompt: 'cable 30 min chart, fade the bollinger band touches on both sides',
    expect: { symbol: 'GBPUSD', direction: 'both', entryLong: true, entryShort: true, remarks: ['30'], mentions: ['Bollinger'] },
  },
  {
    prompt: 'on the kiwi hourly go long when rsi fourteen drops below thirty, take profit when rsi reaches seventy, stop fifteen pips',
    expect: {
      symbol: 'NZDUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      mentions: ['RSI', '70'],
    },
  },
  {
    prompt: 'macd zero line cross on usdjpy 15m. buy above zero sell below. skip fridays. trail twenty pips',
    expect: {
      symbol: 'USDJPY',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['fri'],
      trailingStop: { pips: 20 },
      takeProfit: null,
      mentions: ['MACD'],
    },
  },
  {
    prompt: 'lookin to short aussie when price rejects the upper keltner and rsi > 65. m15. no longs at all',
    expect: { symbol: 'AUDUSD', timeframe: '15min', direction: 'short', entryLong: false, entryShort: true, mentions: ['Keltner', 'RSI'] },
  },
  {
    prompt: 'buy fiber when stoch < 20... actually make it 10, on the 5m no wait 15m',
    expect: { symbol: 'EURUSD', timeframe: '15min', direction: 'long', entryLong: true, entryShort: false, mentions: ['stoch'] },
  },
  {
    prompt: 'two sided ichimoku: tenkan crosses kijun above the cloud = long, below the cloud = short. usdcad 1h. sl at kijun',
    expect: {
      symbol: 'USDCAD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      mentions: ['cloud', 'tenkan', 'kijun'],
    },
  },
  {
    prompt:
      'sell eurusd when price closes below the lower bollinger band and adx is above 30 (trend continuation), 15 min, london + ny only 7-20 utc',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      session: [7, 20],
      mentions: ['Bollinger', 'ADX'],
    },
  },
  {
    prompt: 'btc 5 min. long when close > vwap and rsi > 50, short when close < vwap and rsi < 50. no weekend trading (sat, sun)',
    expect: {
      symbol: 'BTCUSD',
      timeframe: '5min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['sat', 'sun'],
      mentions: ['VWAP', 'RSI'],
    },
  },
  {
    prompt: 'gu 1h, buy pullbacks to the 21 ema when the 50 ema is above the 200 ema. sl 1.5 atr, tp 3 atr',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      mentions: ['EMA 21', 'EMA 50', 'EMA 200'],
    },
  },
  {
    prompt: 'scalp usdchf 1 min, both ways, rsi 7 extremes 20/80, max 3 positions open',
    expect: {
      symbol: 'USDCHF',
      timeframe: '1min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      maxPositions: 3,
      mentions: ['RSI'],
    },
  },
  {
    prompt: 'aussie m5 sell when williams r goes above -20 and turns down, buy when under -80 and turns up, not during asia',
    expect: {
      symbol: 'AUDUSD',
      timeframe: '5min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      mentions: ['Williams %R', '-20', '-80'],
    },
  },
  {
    prompt: 'cci below -100 sell (momentum), above +100 buy. cable 15m. exit when cci crosses back through zero',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['CCI', '-100'],
    },
  },
  {
    prompt: 'long fiber h1 when price is above the cloud and the cloud ahead is green. short never.',
    expect: { symbol: 'EURUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['cloud'] },
  },
  {
    prompt:
      'Parabolic SAR + 200 EMA: long when the sar dots flip under price and price > ema200; short on the opposite. usdjpy 1 hour. exit when the sar flips back',
    expect: {
      symbol: 'USDJPY',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['SAR', 'EMA 200'],
    },
  },
  {
    prompt: 'nzdusd 15m supertrnd long only, and only between 8 and 17 utc. exit when supertrend turns red',
    expect: {
      symbol: 'NZDUSD',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      session: [8, 17],
      mentions: ['SuperTrend'],
    },
  },
  {
    prompt: 'i want an inside bar breakout strategy on loonie, 1h, long + short, no trades on monday, max two open',
    expect: {
      symbol: 'USDCAD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['mon'],
      maxPositions: 2,
      mentions: ['inside bar'],
    },
  },
  {
    prompt: 'bearish engulfing at r2 -> sell, bullish engulfing at s2 -> buy. eurusd 15min. tp at the pivot point',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['engulfing', 'R2', 'S2'],
    },
  },
  {
    prompt:
      'Long-only trend idea on GBPUSD 1H: buy when ADX > 20 and price above the 100 SMA. Trailing stop three ATR. Let it run, no take profit.',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: { atr: 3, period: 14 },
      takeProfit: null,
      mentions: ['ADX', 'SMA 100'],
    },
  },
  {
    prompt: 'extra trees on usdcad 15m, features only: rsi, stoch, cci, adx, atr. the model decides the trades. skip fridays',
    expect: {
      symbol: 'USDCAD',
      timeframe: '15min',
      direction: 'both',
      entryLong: false,
      entryShort: false,
      model: 'ExtraTreesClassifier',
      skipDays: ['fri'],
    },
  },
  {
    prompt: 'logistic regression please, aussie 1h, let the model decide long/short from macd and ema slopes',
    expect: { symbol: 'AUDUSD', timeframe: '1h', direction: 'both', entryLong: false, entryShort: false, model: 'LogisticRegression' },
  },
  {
    prompt: 'gradient boosting on btc 15 min. buy when roc(12) crosses above zero, sell when it crosses below. trail 1.5 atr',
    expect: {
      symbol: 'BTCUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      model: 'GradientBoostingClassifier',
      trailingStop: { atr: 1.5, period: 14 },
      takeProfit: null,
      mentions: ['ROC'],
    },
  },
  {
    prompt: 'short cable when rsi crosses below 70 from above. thats it. no longs. 15m. close the short when rsi hits 40',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      exitShort: true,
      mentions: ['RSI', '70', '40'],
    },
  },
  {
    prompt: 'usd/jpy 5 minute: bolinger squeeze (bandwidth lowest in 50 bars) then trade the breakout, up = buy, down = sell',
    expect: { symbol: 'USDJPY', timeframe: '5min', direction: 'both', entryLong: true, entryShort: true, mentions: ['Bollinger'] },
  },
  {
    prompt:
      'eur/usd 1h. Long when price > VWAP and price pulls back to the 20 EMA. Short when price < VWAP and rallies to the 20 EMA. Skip Friday. Only 12 to 20 UTC.',
    expect: {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['fri'],
      session: [12, 20],
      mentions: ['VWAP', 'EMA 20'],
    },
  },
  {
    prompt: 'kiwi 15m sell only: price below the cloud, tenkan below kijun. sl 25 pips, tp 50 pips',
    expect: { symbol: 'NZDUSD', timeframe: '15min', direction: 'short', entryLong: false, entryShort: true, mentions: ['cloud'] },
  },
  {
    prompt: "loonie 5m. buy when %r crosses above -50 and cci > 0. don't short.",
    expect: { symbol: 'USDCAD', timeframe: '5min', direction: 'long', entryLong: true, entryShort: false, mentions: ['%R', 'CCI', '-50'] },
  },
  {
    prompt: 'pin bar off the 50 ema on swissy h1, both directions, ride it with a 2 atr trailing stop',
    expect: {
      symbol: 'USDCHF',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: { atr: 2, period: 14 },
      takeProfit: null,
      mentions: ['pin bar', 'EMA 50'],
    },
  },
  {
    prompt:
      'go short on aussie when macd crosses down and stoch is over 80, exit shorts when stoch < 20. 1h. no trading before 7 or after 19 utc',
    expect: {
      symbol: 'AUDUSD',
      timeframe: '1h',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      exitShort: true,
      session: [7, 19],
      mentions: ['MACD', 'stoch'],
    },
  },
  {
    prompt:
      'buy usdchf 15m when price touches the lower keltner band and rsi < 35; sell at the upper band with rsi > 65. exit at the ema middle line',
    expect: {
      symbol: 'USDCHF',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['Keltner', 'RSI'],
    },
  },
  {
    prompt: 'eurusd h1 donchian(55) breakout, long only, exit on a 20 bar low (turtle style)',
    expect: {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      exitLong: true,
      mentions: ['Donchian'],
    },
  },
  {
    prompt:
      'cable 1min scalper: buy when price is above vwap and the last candle is a bullish engulfing. sell the mirror. max one trade. 7am-11am utc only',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '1min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      maxPositions: 1,
      session: [7, 11],
      mentions: ['VWAP', 'engulfing'],
    },
  },
  {
    prompt: 'fiber 15m, no trading on wednesdays (fomc lol), buy when rsi below 25, sell when above 75',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['wed'],
      mentions: ['RSI', '25', '75'],
    },
  },
  {
    prompt: 'aussie 1h. adx < 20 means range -> fade the bands: buy the lower bolinger, sell the upper. when adx > 20 dont trade',
    expect: { symbol: 'AUDUSD', timeframe: '1h', direction: 'both', entryLong: true, entryShort: true, mentions: ['ADX', 'Bollinger'] },
  },
  {
    prompt: 'usdjpy 15min, short when price breaks below the s1 pivot, long when it breaks above r1. tp at r2/s2',
    expect: {
      symbol: 'USDJPY',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['R1', 'S1', 'R2', 'S2'],
    },
  },
  {
    prompt: 'btc 1h z-score mean reversion, lookback 50, enter long at -2 and short at +2, out at 0, 2 positions max',
    expect: {
      symbol: 'BTCUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      maxPositions: 2,
      mentions: ['z-score'],
    },
  },
  {
    prompt: 'buy cable on the 15 when the 9 ema crosses above the 21 ema, sell on the cross down; avoid fridays; trailing stop 25 pips',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      skipDays: ['fri'],
      trailingStop: { pips: 25 },
      takeProfit: null,
      mentions: ['EMA 9', 'EMA 21'],
    },
  },
  {
    prompt: 'im thinking long kiwi on 1 hour when roc 20 is above 1% and adx above 25, tp 2r, sl 1 atr',
    expect: { symbol: 'NZDUSD', timeframe: '1h', direction: 'long', entryLong: true, entryShort: false, mentions: ['ROC', 'ADX'] },
  },
  {
    prompt: 'sell gbpusd m5 when price crosses under the supertrend and macd < 0. exits: supertrend flip. new york session 13 to 21 utc',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '5min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      exitShort: true,
      session: [13, 21],
      mentions: ['SuperTrend', 'MACD'],
    },
  },
  {
    prompt: 'adaboost on eurusd 15min, no entry rules, model decides, but only trade london 7-16',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'both',
      entryLong: false,
      entryShort: false,
      model: 'AdaBoostClassifier',
      session: [7, 16],
    },
  },
  {
    prompt: 'usdcad hourly: +di crosses above -di = buy, -di crosses above +di = sell, only when adx > 20. trail by 2.5 atr',
    expect: {
      symbol: 'USDCAD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      trailingStop: { atr: 2.5, period: 14 },
      takeProfit: null,
      mentions: ['+DI', 'ADX'],
    },
  },
  {
    prompt: 'short the aussie when its below the daily pivot and rsi(14) crosses under 50. 15min. stop 20 pips, target s1',
    expect: {
      symbol: 'AUDUSD',
      timeframe: '15min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      exitShort: true,
      mentions: ['RSI', 'pivot', 'S1'],
    },
  },
  {
    prompt:
      'random forest, swissy 5 min, buy only when cci(14) crosses up through -100, sell only when cci crosses down through +100, no trades on fri',
    expect: {
      symbol: 'USDCHF',
      timeframe: '5min',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      model: 'RandomForestClassifier',
      skipDays: ['fri'],
      mentions: ['CCI', '-100'],
    },
  },
  {
    prompt: 'let it ride: fiber 1h, long when price closes above the upper donchian 20, trailing stop 50 pips, no tp. short never',
    expect: {
      symbol: 'EURUSD',
      timeframe: '1h',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      trailingStop: { pips: 50 },
      takeProfit: null,
      mentions: ['Donchian'],
    },
  },
  {
    prompt:
      "audusd 5min. I'll buy when stoch %k crosses above %d below 20 and price is above the 100 ema. No sells. Max 2 positions. Only 22:00 to 06:00 utc (asia)",
    expect: {
      symbol: 'AUDUSD',
      timeframe: '5min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      maxPositions: 2,
      session: [22, 6],
      mentions: ['stoch', 'EMA 100'],
    },
  },
  {
    prompt: 'bitcoin 15m: buy three white soldiers',
    expect: { symbol: 'BTCUSD', timeframe: '15min', direction: 'long', mentions: ['soldiers'] },
  },
  {
    prompt: 'eurusd 15m, buy when rsi crosses above 30 but NOT if price is below the 200 ema, and dont trade on friday or during asia',
    expect: {
      symbol: 'EURUSD',
      timeframe: '15min',
      direction: 'long',
      entryLong: true,
      entryShort: false,
      skipDays: ['fri'],
      mentions: ['RSI', 'EMA 200'],
    },
  },
  {
    prompt: 'ichimoku on cable 1h both sides: long above the kumo, short under the kumo, exit when price re-enters the cloud',
    expect: {
      symbol: 'GBPUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      mentions: ['cloud'],
    },
  },
  {
    prompt: 'usdjpy daily chart, trend following off the 50/200 sma, let the model decide',
    expect: { symbol: 'USDJPY', remarks: ['daily'] },
  },
  {
    prompt: 'chunnel 15m, buy when rsi < 30',
    expect: { symbol: 'EURUSD', timeframe: '15min', direction: 'long', remarks: ['EURGBP'], mentions: ['RSI'] },
  },
  {
    prompt: 'london session only, fiber 5m: sell the london open fakeout above the asian high when rsi > 70, no buys',
    expect: {
      symbol: 'EURUSD',
      timeframe: '5min',
      direction: 'short',
      entryLong: false,
      entryShort: true,
      session: [7, 16],
      mentions: ['RSI', 'asia'],
    },
  },
  {
    prompt:
      'kiwi 1h, long when price closes above upper keltner, short when below lower keltner, exit at the middle line, atr trailing stop 2x, max 2 positions',
    expect: {
      symbol: 'NZDUSD',
      timeframe: '1h',
      direction: 'both',
      entryLong: true,
      entryShort: true,
      exitLong: true,
      exitShort: true,
      trailingStop: { atr: 2, period: 14 },
      maxPositions: 2,
      mentions: ['Keltner'],
    },
  },
];

export const BLIND_SET: readonly IntentCase[] = PROMPTS.map((c, i) => ({ id: `fresh-${i + 1}`, category: 'blind', ...c }));
