import type { Instrument } from '../../lib/instruments.ts';
import { nextTradingTime, tradesAt } from '../../lib/market-hours.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;

/**
 * Relative market activity by UTC hour on a weekday: quiet Asia, a busy London morning, the
 * busiest London/New York overlap, a fading New York afternoon and the thin rollover hour.
 * It scales tick arrival, volatility and (inversely) the spread. Averages to ~1 over a day.
 */
const FX_ACTIVITY = [
  0.5,
  0.55,
  0.55,
  0.55,
  0.5,
  0.55, // 00-05 Tokyo
  0.8, // 06 pre-London
  1.35,
  1.45,
  1.3,
  1.2,
  1.15, // 07-11 London
  1.55,
  1.75,
  1.7,
  1.5, // 12-15 London / New York overlap
  1.1,
  0.95,
  0.85,
  0.75, // 16-19 New York
  0.6,
  0.35, // 20-21 late New York, rollover
  0.35,
  0.45, // 22-23 Sydney open
].map((v) => v / 0.9583);

/** Pairs with an Asia-Pacific leg trade more actively in the Tokyo session. */
const ASIA_ACTIVE = new Set(['JPY', 'AUD', 'NZD']);

/** Crypto trades around the clock, busier in US hours and a little quieter at weekends. */
const CRYPTO_ACTIVITY = [
  0.85, 0.8, 0.8, 0.8, 0.8, 0.8, 0.85, 0.9, 0.95, 1.0, 1.0, 1.05, 1.15, 1.25, 1.3, 1.25, 1.2, 1.1, 1.05, 1.0, 0.95, 0.9, 0.9, 0.9,
].map((v) => v / 0.9875);

/** FX closes from Friday 22:00 UTC until Sunday 22:00 UTC (the platform's one rule: src/lib/market-hours.ts). */
export const isOpen = (instrument: Instrument, ts: number): boolean => tradesAt(instrument.weekends, ts);

/** The next time at or after `ts` when the market is open. */
export const nextOpen = (instrument: Instrument, ts: number): number => nextTradingTime(instrument.weekends, ts);

export function activity(instrument: Instrument, ts: number): number {
  const hour = Math.floor((ts % DAY_MS) / HOUR_MS);
  if (instrument.weekends) {
    const day = new Date(ts).getUTCDay();
    return CRYPTO_ACTIVITY[hour]! * (day === 0 || day === 6 ? 0.75 : 1);
  }
  const base = FX_ACTIVITY[hour]!;
  if (hour < 6 && (ASIA_ACTIVE.has(instrument.base) || ASIA_ACTIVE.has(instrument.quote))) return base * 1.6;
  return base;
}

/** Spreads widen when the market is thin (Asia, and most of all the rollover hour). */
export function spreadFactor(instrument: Instrument, ts: number): number {
  const hour = Math.floor((ts % DAY_MS) / HOUR_MS);
  if (!instrument.weekends && (hour === 21 || hour === 22)) return 3.5;
  return Math.min(2.5, Math.max(0.85, 1 / Math.sqrt(activity(instrument, ts))));
}
