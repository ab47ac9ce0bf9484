/**
 * When a position may open, by the open time (UTC) of the bar it opens at — the fill bar, not the
 * bar whose close gave the signal: "no trading on Fridays" must not open at Friday 00:00 on
 * Thursday 23:45's signal. strategy_config's session_filter and skip_days, as one table of the
 * 168 hours of a week, so the engine's check is one lookup.
 */
import { WEEKDAYS, type Weekday } from '../../schemas/strategy.ts';

const HOUR = 3_600_000;
const WEEK_HOURS = 168;

/** session_filter and skip_days as the engine takes them (EngineOptions.entryTimes). */
export interface EntryTimes {
  /** [startHour, endHour) UTC of the fill bar's open time; wraps past midnight when start > end; null = all hours. */
  session: readonly [number, number] | null;
  /** UTC weekdays of the fill bar's open time on which nothing opens. */
  skipDays: readonly Weekday[];
}

/** Hour of the week of an epoch-ms time: 0 = Thursday 00:00 UTC (1970-01-01 was a Thursday). */
export const hourOfWeek = (ts: number): number => ((Math.floor(ts / HOUR) % WEEK_HOURS) + WEEK_HOURS) % WEEK_HOURS;

/** UTC weekday of an epoch-ms time as skip_days names it. */
export const weekdayOf = (ts: number): Weekday => WEEKDAYS[(Math.floor(hourOfWeek(ts) / 24) + 3) % 7]!;

/** Throws a RangeError naming what is wrong with the entry times. */
export function checkEntryTimes(t: EntryTimes | null | undefined): void {
  if (t == null) return;
  if (t.session !== null) {
    const [start, end] = t.session;
    const hour = (h: number) => Number.isInteger(h) && h >= 0 && h <= 23;
    if (!hour(start) || !hour(end) || start === end)
      throw new RangeError(`entryTimes.session must be two differing whole hours in [0, 23] (null = all hours), got [${start}, ${end}]`);
  }
  for (const d of t.skipDays)
    if (!WEEKDAYS.includes(d)) throw new RangeError(`entryTimes.skipDays: ${String(d)} is not one of ${WEEKDAYS.join(', ')}`);
}

/** Per hour of the week (hourOfWeek): 1 = a position may open at a bar opening then; null when every hour may. */
export function entryHourTable(t: EntryTimes | null | undefined): Uint8Array | null {
  if (t == null || (t.session === null && t.skipDays.length === 0)) return null;
  const table = new Uint8Array(WEEK_HOURS);
  const skip = new Set(t.skipDays);
  for (let k = 0; k < WEEK_HOURS; k++) {
    const h = k % 24;
    let inside = true;
    if (t.session !== null) {
      const [start, end] = t.session;
      inside = start > end ? h >= start || h < end : h >= start && h < end;
    }
    table[k] = inside && !skip.has(WEEKDAYS[(Math.floor(k / 24) + 3) % 7]!) ? 1 : 0;
  }
  return table;
}
