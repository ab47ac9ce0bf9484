/**
 * Ready-made prompts: the example strategies of GET /examples (by category) and the short
 * prompt chips of GET /presets a web app shows under its prompt box. Every one of them is in the
 * generator's test corpus, so each is known to give valid code.
 */

export const EXAMPLE_CATEGORIES = ['momentum', 'mean-reversion', 'breakout', 'trend', 'scalping', 'risk'] as const;
export type ExampleCategory = (typeof EXAMPLE_CATEGORIES)[number];

export interface ExamplePrompt {
  category: ExampleCategory;
  prompt: string;
}

export const EXAMPLE_PROMPTS: ReadonlyArray<ExamplePrompt> = [
  {
    category: 'momentum',
    prompt: 'Buy when the MACD histogram turns positive and sell when it turns negative, xgboost, stop 25 pips, take profit 50 pips',
  },
  {
    category: 'momentum',
    prompt: 'Fast EMA 12 crossing above slow EMA 26 to go long, crossing below to go short, reverse on the opposite signal',
  },
  { category: 'momentum', prompt: 'MACD(8,21,5) crossing its signal line with RSI(14) above 50, gradient boosting, predict the next hour' },
  { category: 'momentum', prompt: 'Stochastic %K crosses above %D below 20 to buy, above 80 crossing down to sell, max 2 positions' },
  { category: 'mean-reversion', prompt: 'RSI(7) below 25, long only, London session, stop 20 pips, xgboost' },
  {
    category: 'mean-reversion',
    prompt:
      'Fade moves outside the 2-sigma Bollinger band: buy below the lower band, sell above the upper band, close only on an opposite signal',
  },
  {
    category: 'mean-reversion',
    prompt:
      'RSI 14 oversold under 30 and overbought over 70 with a 20-period Bollinger band filter, random forest, wait 3 bars after a trade',
  },
  {
    category: 'mean-reversion',
    prompt: 'Buy when the stochastic is oversold and price is below the lower band, sell when it is overbought, avoid the Asian session',
  },
  {
    category: 'breakout',
    prompt: 'Breakout of the 20-bar high or low during the London open with ATR(14) above 8 pips, stop 1.5 x ATR, 2:1 reward to risk',
  },
  { category: 'breakout', prompt: 'Donchian 50 channel breakout with a volatility filter, extra trees, hold for about 2 hours' },
  {
    category: 'breakout',
    prompt: 'Bollinger squeeze breakout: price breaks above the upper band (20, 2.5) after quiet hours, New York session',
  },
  { category: 'trend', prompt: 'Golden cross of the 50 and 200 SMA, only trade with the trend, long and short, stop 1%, take profit 2%' },
  {
    category: 'trend',
    prompt: 'Price above the 100 EMA for longs and below it for shorts, MACD above zero, logistic regression, 60% confidence',
  },
  {
    category: 'trend',
    prompt: 'EMA 20/50 trend following with a 200-day moving average filter, predict the next 4 hours, cooldown 2 bars',
  },
  { category: 'scalping', prompt: 'Scalp the London-New York overlap: EMA 5 crossing EMA 13, stop 5 pips, target 8 pips, next 15 minutes' },
  {
    category: 'scalping',
    prompt: 'Scalper with RSI(5) crossing 50 and stochastic 5 3, only between 13:00 and 17:00 UTC, one trade at a time',
  },
  { category: 'scalping', prompt: 'Quick scalps on %K over %D with WMA 10, adaboost, 55% confidence, no cooldown' },
  {
    category: 'risk',
    prompt: 'Conservative long only: RSI below 35 above the 200 SMA, stop $50, take profit $100, only when 65% confident',
  },
  { category: 'risk', prompt: 'Both directions with a 0.5% stop, 1:3 risk reward, max 1 position, just close on an opposite signal' },
  {
    category: 'risk',
    prompt: 'Trade only when volatility is high, skip the Asian session, stop loss 30 pips, take profit 45 pips, no pyramiding',
  },
];

/** A prompt chip: a short label and the text it puts in the prompt box. */
export interface ChipPreset {
  label: string;
  text: string;
}

export const CHIP_PRESETS: ReadonlyArray<ChipPreset> = [
  { label: 'RSI dip buyer', text: 'RSI(14) below 30, long only' },
  { label: 'EMA crossover', text: 'EMA 12 crossing EMA 26, reverse on opposite signal' },
  { label: 'MACD momentum', text: 'MACD histogram turning positive to buy, negative to sell' },
  { label: 'Bollinger fade', text: 'Price outside the 2-sigma Bollinger band, fade it' },
  { label: 'Stochastic cross', text: 'Stochastic %K crossing %D, oversold below 20' },
  { label: 'Breakout', text: '20-bar high/low breakout with a volatility filter' },
  { label: 'Trend filter', text: 'only trade with the trend above the 200 SMA' },
  { label: 'London session', text: 'London session only' },
  { label: 'New York session', text: 'New York session only' },
  { label: 'Long only', text: 'long only' },
  { label: 'Short only', text: 'shorts only' },
  { label: 'Stop 20 pips', text: 'stop loss 20 pips, take profit 40 pips' },
  { label: '1:2 risk/reward', text: 'stop 1%, 1:2 risk reward' },
  { label: 'Cooldown', text: 'wait 3 bars after a trade' },
  { label: 'XGBoost', text: 'use xgboost' },
  { label: 'Random forest', text: 'use a random forest' },
  { label: 'Next hour', text: 'predict the next hour' },
  { label: 'High confidence', text: 'only when 60% confident' },
];
