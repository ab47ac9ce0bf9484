/**
 * When the platform's markets trade: forex from Sunday 22:00 to Friday 22:00 UTC, BTCUSD every
 * hour of every day. The one rule behind the synthetic feed's hours and what a user is told about
 * the next bar (the deploy answer, one_shot's `done`, the model page), so the two cannot disagree.
 * (The backtest's rollovers and next-open, src/backtest/market-hours.ts, follow New York's 17:00
 * instead, which moves with daylight saving: that is about swaps, not about when bars exist.)
 */
import type { Symbol } from '../../schemas/common.ts';
import { instrument } from './instruments.ts';
import { TIMEFRAME_MS, type Timeframe } from './timeframes.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** The weekly close and reopen of forex: Friday and Sunday, 22:00 UTC. */
const FX_CLOSE_DAY = 5;
const FX_OPEN_DAY = 0;
const FX_HOUR = 22;

/** Whether an instrument that closes at weekends (`weekends` false) trades at ts. */
export function tradesAt(weekends: boolean, ts: number): boolean {
  if (weekends) return true;
  const day = new Date(ts).getUTCDay();
  const hour = Math.floor((ts % DAY_MS) / HOUR_MS);
  if (day === 6) return false;
  if (day === FX_CLOSE_DAY && hour >= FX_HOUR) return false;
  if (day === FX_OPEN_DAY && hour < FX_HOUR) return false;
  return true;
}

/** The first time at or after ts at which it trades: ts itself when open, else the Sunday 22:00 UTC reopening. */
export function nextTradingTime(weekends: boolean, ts: number): number {
  if (tradesAt(weekends, ts)) return ts;
  const sundayMidnight = ts - (ts % DAY_MS) + ((7 - new Date(ts).getUTCDay()) % 7) * DAY_MS;
  return sundayMidnight + FX_HOUR * HOUR_MS;
}

export interface NextBar {
  /** When the next bar of the series closes (epoch ms): the bar running now, or the first after the weekend. */
  closesAt: number;
  /** Set when the market is shut now: when it reopens (epoch ms). */
  reopensAt: number | null;
}

/**
 * The next bar of symbol and timeframe to close after `now`: the one running now when its market
 * trades, else the first bar after it reopens. Holidays and a feed's own gaps may move it later.
 */
export function nextBarClose(symbol: Symbol, timeframe: Timeframe, now: number): NextBar {
  const size = TIMEFRAME_MS[timeframe];
  const weekends = instrument(symbol).weekends;
  const from = nextTradingTime(weekends, now);
  return { closesAt: Math.floor(from / size) * size + size, reopensAt: from === now ? null : from };
}

const utcText = (ms: number) => `${new Date(ms).toUTCString().slice(0, 22)} UTC`;

/**
 * What a user deploying now is told: `next_bar_at` (ISO), and `note` in plain words when the
 * market is shut, so a deploy on a Saturday is not met with silence until Sunday night.
 */
export function nextBarNotice(symbol: Symbol, timeframe: Timeframe, now: number): { next_bar_at: string; note?: string } {
  const { closesAt, reopensAt } = nextBarClose(symbol, timeframe, now);
  const next_bar_at = new Date(closesAt).toISOString();
  if (reopensAt === null) return { next_bar_at };
  return {
    next_bar_at,
    note: `The ${symbol} market is shut for the weekend (forex trades Sunday 22:00 to Friday 22:00 UTC): it reopens ${utcText(reopensAt)}, and the first ${timeframe} bar, with the first signal it may bring, closes ${utcText(closesAt)}.`,
  };
}
