/**
 * Swap rollovers: 17:00 New York time, when the FX trading day ends. A position pays (or earns)
 * swap for each rollover R with entry time < R ≤ exit time (times = bar open times, and R always
 * falls on a bar boundary for bars of one hour or less, so a position exiting at the open of the
 * bar that starts at R was held over it).
 *
 *   FX pairs: the rollovers of Monday to Friday, Wednesday's counting 3 nights (the weekend's
 *             value days), the others 1 — 7 nights a week.
 *   instruments trading weekends (BTCUSD): every day's rollover, 1 night each.
 */
import { newYorkWallToUtc } from '../lib/new-york-time.ts';

const DAY = 86_400_000;

/** Nights a rollover on this UTC weekday (0 = Sunday) counts for. */
export function nightsOnWeekday(weekday: number, weekends: boolean): number {
  if (weekends) return 1;
  if (weekday === 0 || weekday === 6) return 0;
  return weekday === 3 ? 3 : 1;
}

/** Rollovers already worked out, by day: every live model asks for the same few days on every bar. */
const rollovers = new Map<number, number>();
const ROLLOVERS_KEPT = 4096;

/** 17:00 New York on the calendar day (UTC midnight `dayStart`), as epoch ms UTC. */
export function rolloverOn(dayStart: number): number {
  let at = rollovers.get(dayStart);
  if (at === undefined) {
    const d = new Date(dayStart);
    const year = d.getUTCFullYear();
    at = newYorkWallToUtc(Date.UTC(year, d.getUTCMonth(), d.getUTCDate(), 17), year);
    if (rollovers.size >= ROLLOVERS_KEPT) rollovers.clear();
    rollovers.set(dayStart, at);
  }
  return at;
}

/**
 * The first rollover strictly after `t` that counts at least one night, and how many it counts.
 * (17:00 New York is 21:00 or 22:00 UTC of the same calendar day, so the day of `t` is the
 * earliest candidate.)
 */
export function nextRollover(t: number, weekends: boolean): { at: number; nights: number } {
  let day = Math.floor(t / DAY) * DAY;
  for (;;) {
    const at = rolloverOn(day);
    if (at > t) {
      const nights = nightsOnWeekday(new Date(day).getUTCDay(), weekends);
      if (nights > 0) return { at, nights };
    }
    day += DAY;
  }
}

/** UTC weekday (0 = Sunday) of an epoch-ms time, without a Date (1970-01-01 was a Thursday). */
export const weekdayUtc = (t: number): number => (Math.floor(t / DAY) + 4) % 7;

/** nextRollover(at).at per `weekends`, remembered (bounded): every engine of a sweep asks for the same days. */
const remembered = [new Map<number, number>(), new Map<number, number>()] as const;
const REMEMBER_AT_MOST = 50_000;

/** The rollover after rollover `at`: nextRollover(at, weekends).at, computed once per day. */
export function rolloverAfter(at: number, weekends: boolean): number {
  const memo = remembered[weekends ? 1 : 0];
  let next = memo.get(at);
  if (next === undefined) {
    next = nextRollover(at, weekends).at;
    if (memo.size >= REMEMBER_AT_MOST) memo.clear();
    memo.set(at, next);
  }
  return next;
}

/** Nights charged to a position entered at `entryTs` and closed at `exitTs` (see the rule above). */
export function nightsBetween(entryTs: number, exitTs: number, weekends: boolean): number {
  let nights = 0;
  for (let r = nextRollover(entryTs, weekends); r.at <= exitTs; r = nextRollover(r.at, weekends)) nights += r.nights;
  return nights;
}
