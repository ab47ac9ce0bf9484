/**
 * The market facts the generator converts with: each symbol's typical price and pip size, a
 * typical per-bar volatility, and bar lengths. strategy_config expresses stops and targets as
 * decimal ratios of the entry price, so amounts asked in pips or dollars are converted here at
 * the symbol's typical price (the instrument table's level; the train request's stop_loss /
 * take_profit in risk_unit pips/usd/pct overrides them exactly, per trade, at the real price).
 */
import type { Symbol, Timeframe } from '../../../schemas/common.ts';
import { INSTRUMENTS } from '../../lib/instruments.ts';
import { TIMEFRAME_MS } from '../../lib/timeframes.ts';

/** Schema bounds of stop_loss / take_profit (exclusive 0, inclusive 0.2). */
export const MAX_RATIO = 0.2;
export const MIN_RATIO = 1e-5;

export const barMinutes = (tf: Timeframe): number => TIMEFRAME_MS[tf] / 60_000;

export interface MarketFacts {
  price: number;
  pip: number;
  /** Units per standard lot (100,000; 1 for BTCUSD). */
  lot: number;
  /** The quote currency is USD (EURUSD) rather than the base (USDJPY). */
  usdQuoted: boolean;
  /** Typical standard deviation of one bar's return (annual volatility scaled to the bar). */
  sigma: number;
}

export function marketFacts(symbol: Symbol, timeframe: Timeframe): MarketFacts {
  const inst = INSTRUMENTS[symbol];
  const openMinutesPerYear = (inst.weekends ? 365.25 : 260) * 1440;
  const barsPerYear = openMinutesPerYear / barMinutes(timeframe);
  return {
    price: inst.synthetic.price,
    pip: inst.pipSize,
    lot: inst.base === 'BTC' ? 1 : 100_000,
    usdQuoted: inst.quote === 'USD',
    sigma: inst.synthetic.annualVol / Math.sqrt(barsPerYear),
  };
}

/** Rounds to `digits` significant digits (deterministic, stable output for the code). */
export function sig(x: number, digits = 4): number {
  if (x === 0 || !Number.isFinite(x)) return x;
  return Number(x.toPrecision(digits));
}

/**
 * A typical ATR(14) as a ratio of price: the mean true range of a random walk is about 1.6 σ
 * of the bar's return (the expected high-low range of Brownian motion).
 */
export const typicalAtrRatio = (m: MarketFacts): number => 1.6 * m.sigma;

/**
 * An amount in a unit → decimal ratio of the typical price:
 *   pips: amount × pip / price;  pct: amount / 100;  ratio: as is;
 *   usd: the move at which one standard lot gains or loses that many dollars (USD-quoted:
 *        d = usd / units, ratio = d / price; USD-based, P&L ÷ price: ratio ≈ usd / units);
 *   atr: amount × the typical ATR(14) ratio.
 */
export function toRatio(amount: number, unit: 'pips' | 'pct' | 'usd' | 'atr' | 'ratio', m: MarketFacts): number {
  switch (unit) {
    case 'pips':
      return (amount * m.pip) / m.price;
    case 'pct':
      return amount / 100;
    case 'usd':
      return m.usdQuoted ? amount / m.lot / m.price : amount / m.lot;
    case 'atr':
      return amount * typicalAtrRatio(m);
    case 'ratio':
      return amount;
  }
}

export const ratioToPips = (ratio: number, m: MarketFacts): number => (ratio * m.price) / m.pip;

/** A ratio clamped into the schema's (0, 0.2], with a remark when it moved. */
export function clampRatio(ratio: number, what: string, remarks: string[]): number {
  if (ratio > MAX_RATIO) {
    remarks.push(`${what} of ${sig(ratio * 100, 3)}% is beyond the 20% limit; set to 20%`);
    return MAX_RATIO;
  }
  if (ratio < MIN_RATIO) {
    remarks.push(`${what} of ${sig(ratio * 100, 3)}% is below 0.001%; raised to 0.001%`);
    return MIN_RATIO;
  }
  return sig(ratio, 4);
}

/** Default target horizon in bars per timeframe (4 × 15 min = the contract's "about 1 hour"). */
export const DEFAULT_HORIZON: Record<Timeframe, number> = { '1min': 10, '5min': 6, '15min': 4, '1h': 3 };

/** Bars covering `minutes` of time on this timeframe (at least 1, rounded to the nearest bar). */
export const minutesToBars = (minutes: number, tf: Timeframe): number => Math.max(1, Math.round(minutes / barMinutes(tf)));

/**
 * Default stop when none is asked: 2.5 σ·√h (h the target horizon), the take 1.5 × the stop;
 * e.g. EURUSD 15min, h = 4: about 22 pips stop, 33 pips take.
 */
export const defaultStopRatio = (m: MarketFacts, horizon: number): number => 2.5 * m.sigma * Math.sqrt(horizon);
export const DEFAULT_REWARD_RISK = 1.5;

/** The volatility filter's default: 0.75 × the typical NATR(14) in percent. */
export const defaultMinAtr = (m: MarketFacts): number => sig(0.75 * typicalAtrRatio(m) * 100, 2);
