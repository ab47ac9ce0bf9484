/**
 * Fixed-layout timestamp parsing shared by the formats. Hand-written digit reading instead of
 * Date.parse or regexes: it is strict (Date.parse accepts and "fixes" 31.02) and several times
 * faster, which matters on files of hundreds of millions of rows.
 */

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeap = (y: number): boolean => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;

/** The unsigned integer written with exactly `len` digits at `at`, or -1. */
export function digits(s: string, at: number, len: number): number {
  if (at + len > s.length) return -1;
  let n = 0;
  for (let i = at; i < at + len; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Milliseconds of a fraction written after a '.' at `at` (1+ digits; beyond ms is truncated), and where it ends. */
export function fraction(s: string, at: number): { ms: number; end: number } | null {
  let end = at;
  while (end < s.length && s.charCodeAt(end) >= 48 && s.charCodeAt(end) <= 57) end++;
  if (end === at) return null;
  let ms = 0;
  for (let i = at; i < at + 3; i++) ms = ms * 10 + (i < end ? s.charCodeAt(i) - 48 : 0);
  return { ms, end };
}

// Rows come in time order, so consecutive rows nearly always share a day: caching its start
// skips Date.UTC, the costliest step of reading a timestamp.
let cachedDay = -1;
let cachedDayMs = 0;

/** Epoch ms of calendar fields read as UTC, or NaN when a field is out of range (month 13, 31.04, 24:00…). */
export function utcFromFields(y: number, mo: number, d: number, h: number, mi: number, s: number, ms: number): number {
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h < 0 || h > 23 || mi < 0 || mi > 59 || s < 0 || s > 59 || ms < 0) return NaN;
  const day = (y * 100 + mo) * 100 + d;
  if (day !== cachedDay) {
    const dim = mo === 2 && isLeap(y) ? 29 : (DAYS_IN_MONTH[mo - 1] ?? 0);
    if (d > dim) return NaN;
    cachedDay = day;
    cachedDayMs = Date.UTC(y, mo - 1, d);
  }
  return cachedDayMs + ((h * 60 + mi) * 60 + s) * 1000 + ms;
}

/**
 * `YYYY-MM-DD[T or space]HH:MM:SS[.fff…](Z|±HH:MM)` → epoch ms. A zone is required: a bare local
 * time could be anything. Fractions beyond the millisecond are truncated (Tick.ts is integer ms).
 */
export function parseIsoWithZone(s: string): number {
  if (s.length < 20 || s[4] !== '-' || s[7] !== '-' || (s[10] !== 'T' && s[10] !== ' ') || s[13] !== ':' || s[16] !== ':') return NaN;
  let ms = 0;
  let at = 19;
  if (s[at] === '.') {
    const f = fraction(s, at + 1);
    if (!f) return NaN;
    ms = f.ms;
    at = f.end;
  }
  let offsetMin = 0;
  const zone = s[at];
  if (zone === 'Z' && at + 1 === s.length) offsetMin = 0;
  else if ((zone === '+' || zone === '-') && at + 6 === s.length && s[at + 3] === ':') {
    const oh = digits(s, at + 1, 2);
    const om = digits(s, at + 4, 2);
    if (oh < 0 || om < 0 || oh > 14 || om > 59) return NaN;
    offsetMin = (zone === '+' ? 1 : -1) * (oh * 60 + om);
  } else return NaN;
  const t = utcFromFields(digits(s, 0, 4), digits(s, 5, 2), digits(s, 8, 2), digits(s, 11, 2), digits(s, 14, 2), digits(s, 17, 2), ms);
  return t - offsetMin * 60_000;
}

/** For error messages: an epoch-ms value as ISO, or the raw number when it is not a valid date. */
export const iso = (ts: number): string => (Number.isFinite(ts) && Math.abs(ts) < 8.64e15 ? new Date(ts).toISOString() : String(ts));
