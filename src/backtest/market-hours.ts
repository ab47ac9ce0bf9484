/**
 * When the next bar is expected to open: what a live actor needs at a bar's close to say whether
 * its signal will open at the next open, before that bar exists (its time filters apply to it:
 * entry-times.ts). FX trades from Sunday 17:00 to Friday 17:00 New York time (the weekly open
 * and close the rollovers are counted from); instruments trading weekends never close.
 */
import { rolloverOn, weekdayUtc } from './rollover.ts';

const DAY = 86_400_000;

/**
 * Open time of the bar expected after the bar opening at `ts`: the next bar of the timeframe, or,
 * when that falls in the weekend close, the bar holding the weekly reopening (bars are stamped at
 * multiples of the timeframe). A gap in the feed or a holiday close moves the real next bar later;
 * the engine always checks the bar that came.
 */
export function expectedNextOpen(ts: number, timeframeMs: number, weekends: boolean): number {
  const next = ts + timeframeMs;
  if (weekends) return next;
  // The Friday on or before `next` (UTC calendar days; 17:00 New York falls on the same day).
  const friday = Math.floor(next / DAY) * DAY - ((weekdayUtc(next) + 2) % 7) * DAY;
  const close = rolloverOn(friday);
  const reopen = rolloverOn(friday + 2 * DAY);
  if (next < close || next >= reopen) return next;
  return Math.floor(reopen / timeframeMs) * timeframeMs;
}
