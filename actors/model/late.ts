import { TIMEFRAME_MS, type Timeframe } from '../../src/lib/timeframes.ts';

/** A signal sent more than this after its bar closed is a catch-up (an actor that restarted). */
export const LATE_AFTER_MS = 30_000;

/**
 * Whether a signal is a catch-up rather than news: its bar closed before the deployment existed
 * (a new deployment starts on the last closed bar, so its position is known at once), or more
 * than LATE_AFTER_MS before it is sent (an actor catching up after a restart). A late signal
 * carries `late: true` and `due_at`, the bar's close: when it would have been sent.
 */
export function lateness(barTs: number, timeframe: Timeframe, deployedAt: number, now: number): { late: true; due_at: number } | null {
  const closedAt = barTs + TIMEFRAME_MS[timeframe];
  return closedAt <= deployedAt || now - closedAt > LATE_AFTER_MS ? { late: true, due_at: closedAt } : null;
}
