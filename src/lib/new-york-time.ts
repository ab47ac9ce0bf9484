/**
 * New York wall-clock time → UTC, with the US daylight-saving rules written out by hand.
 *
 * Why not Intl: Intl only goes UTC → local; local → UTC would need a guess-and-check of
 * `formatToParts` calls (microseconds each) on every row, and results would depend on the ICU
 * build. The US rule is two lines per era; test/lib/new-york-time.test.ts checks it
 * against Intl's America/New_York hour by hour around every transition from 1987 to 2037.
 *
 *   2007 →     EDT from the 2nd Sunday of March 02:00 EST to the 1st Sunday of November 02:00 EDT
 *   1987–2006  EDT from the 1st Sunday of April 02:00 EST to the last Sunday of October 02:00 EDT
 */

const HOUR = 3_600_000;

/** The first year the rules above cover; earlier rows are refused rather than guessed. */
export const NEW_YORK_FIRST_YEAR = 1987;

interface YearRule {
  /** wall time (ms, as if UTC) at which clocks jump 02:00 → 03:00 */
  springForward: number;
  /** wall time at which clocks fall back 02:00 → 01:00 */
  fallBack: number;
}

const sundayOnOrAfter = (y: number, month0: number, day: number): number => {
  const dow = new Date(Date.UTC(y, month0, day)).getUTCDay();
  return day + ((7 - dow) % 7);
};
const lastSunday = (y: number, month0: number): number => {
  const last = new Date(Date.UTC(y, month0 + 1, 0)).getUTCDate();
  return last - new Date(Date.UTC(y, month0, last)).getUTCDay();
};

const rules = new Map<number, YearRule>();
function ruleFor(y: number): YearRule {
  let rule = rules.get(y);
  if (!rule) {
    rule =
      y >= 2007
        ? { springForward: Date.UTC(y, 2, sundayOnOrAfter(y, 2, 8), 2), fallBack: Date.UTC(y, 10, sundayOnOrAfter(y, 10, 1), 2) }
        : { springForward: Date.UTC(y, 3, sundayOnOrAfter(y, 3, 1), 2), fallBack: Date.UTC(y, 9, lastSunday(y, 9), 2) };
    rules.set(y, rule);
  }
  return rule;
}

/**
 * `wall` = the New York local time's fields encoded as if they were UTC (Date.UTC of them), year
 * ≥ NEW_YORK_FIRST_YEAR. Returns epoch ms UTC, or NaN when the wall time does not exist (the
 * skipped hour 02:00–02:59 on the spring-forward Sunday). The repeated hour 01:00–01:59 on the
 * fall-back Sunday is read as EDT, its first occurrence (the FX market is shut then anyway).
 */
export function newYorkWallToUtc(wall: number, year: number): number {
  const { springForward, fallBack } = ruleFor(year);
  if (wall >= springForward && wall < springForward + HOUR) return NaN;
  const dst = wall >= springForward + HOUR && wall < fallBack;
  return wall + (dst ? 4 : 5) * HOUR;
}
