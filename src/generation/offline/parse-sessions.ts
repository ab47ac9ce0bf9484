/**
 * Trading sessions and hours in normalised text → session_filter [start_hour, end_hour) UTC.
 *
 * Sessions (UTC, no daylight saving): London / European 07-16, New York / US 12-21, Asian /
 * Tokyo 00-09, Sydney 21-06, the London-New York overlap 12-16; "<session> open" is its first
 * three hours. Several sessions in one phrase give the shortest span of hours covering all of
 * them ("London and New York" → [7, 21]). "avoid / no / outside / except <session>" gives the
 * hours outside it. Explicit hours need a time marker (13:00, 1pm, UTC/GMT/…, 13h): "between
 * 13:00 and 17:00 UTC" → [13, 17]; minutes round outwards to whole hours; EST/ET is UTC-5, CET
 * UTC+1, CEST UTC+2, BST UTC+1, JST UTC+9 (fixed offsets). "all hours", "24/5" → null.
 */
import { findAll, type Finding } from './parse-rules.ts';

export interface SessionValue {
  hours: [number, number] | null;
  label: string;
}

export const SESSIONS: Record<string, { hours: [number, number]; label: string }> = {
  london: { hours: [7, 16], label: 'London' },
  european: { hours: [7, 16], label: 'European' },
  europe: { hours: [7, 16], label: 'European' },
  frankfurt: { hours: [6, 15], label: 'Frankfurt' },
  newyork: { hours: [12, 21], label: 'New York' },
  us: { hours: [12, 21], label: 'US' },
  american: { hours: [12, 21], label: 'US' },
  asian: { hours: [0, 9], label: 'Asian' },
  tokyo: { hours: [0, 9], label: 'Tokyo' },
  sydney: { hours: [21, 6], label: 'Sydney' },
  overlap: { hours: [12, 16], label: 'London-New York overlap' },
};

const NAME = '(london|european|europe|frankfurt|newyork|us|american|asian|tokyo|sydney|overlap)';
const SESSION_PHRASE = new RegExp(
  `\\b(avoid(?:ing)?|no|not|not during|except|excluding|outside(?: of)?|skip(?:ping)?|without|never during|never trade(?: during| in)?|don't trade(?: during| in)?)?(?: the)? ?${NAME}((?: ?(?:and|&|\\/|or|,|to|-|plus)? (?:the )?${NAME})*)( (?:trading )?(?:sessions?|hours|open|market|time|overlap))?\\b`,
);
const ALL_HOURS =
  /\b(?:all (?:sessions|hours|day)|24 ?(?:hours|h)|24 ?\/ ?[57]|around the clock|any ?time|no session filter|every session|all day long)\b/;

const TZ: Record<string, number> = {
  utc: 0,
  gmt: 0,
  z: 0,
  est: -5,
  edt: -4,
  et: -5,
  'newyork time': -5,
  cet: 1,
  cest: 2,
  bst: 1,
  'london time': 0,
  jst: 9,
  'tokyo time': 9,
};
const TZ_RE = '(utc|gmt|z|est|edt|et|cet|cest|bst|jst|newyork time|london time|tokyo time)';
const TIME = "(\\d{1,2})(?::(\\d{2}))? ?(am|pm|h|o'clock)?";
const RANGE = new RegExp(
  `\\b(?:(between|from|hours?|only|trade|trading)\\s+)?${TIME} ?(?:-|to|and|until|till|through) ?${TIME} ?${TZ_RE}?\\b`,
);
const BOUND = new RegExp(`\\b(after|before|from|until|till|starting at|not before|not after) ${TIME} ?${TZ_RE}?\\b`);

/** Shortest run of hours (circular) covering every hour in the set: [start, end). */
function cover(hours: boolean[]): [number, number] | null {
  if (hours.every(Boolean) || !hours.some(Boolean)) return null;
  // The longest run of uncovered hours is what the span leaves out.
  let bestStart = 0;
  let bestLen = 0;
  for (let s = 0; s < 24; s++) {
    if (hours[s] || !hours[(s + 23) % 24]) continue;
    let len = 0;
    while (len < 24 && !hours[(s + len) % 24]) len++;
    if (len > bestLen) [bestStart, bestLen] = [s, len];
  }
  return [(bestStart + bestLen) % 24, bestStart];
}

function hoursOf(range: [number, number]): boolean[] {
  const set = new Array<boolean>(24).fill(false);
  for (let h = range[0]; h !== range[1]; h = (h + 1) % 24) set[h] = true;
  return set;
}

const toHour = (h: string, min: string | undefined, ampm: string | undefined, up: boolean): number | null => {
  let hour = Number(h);
  if (ampm === 'pm' && hour < 12) hour += 12;
  if (ampm === 'am' && hour === 12) hour = 0;
  if (hour > 24) return null;
  const minutes = Number(min ?? 0);
  if (minutes >= 60) return null;
  return up && minutes > 0 ? hour + 1 : hour;
};

/** A prohibition just before hours ("no trading 21-23 utc", "dont trade after 18:00"): the hours are the ones not traded. */
const FORBID_BEFORE =
  /\b(?:no|not|never|don'?t|dont|do not|avoid|except|excluding|outside(?: of)?|skip(?:ping)?)(?: (?:trad\w*|entries|entry|trades?|positions?|new|any|open\w*|anything))*\s*$/;
const forbidden = (m: RegExpMatchArray): boolean =>
  m.input !== undefined && m.index !== undefined && FORBID_BEFORE.test(m.input.slice(Math.max(0, m.index - 40), m.index));

/** The hours outside a forbidden window. */
function outside(v: SessionValue | null): SessionValue | null {
  if (!v?.hours) return v;
  return { hours: [v.hours[1], v.hours[0]], label: `outside ${v.label}` };
}

function explicit(m: RegExpMatchArray): SessionValue | null {
  return forbidden(m) ? outside(allowed(m)) : allowed(m);
}

function allowed(m: RegExpMatchArray): SessionValue | null {
  const [, lead, h1, m1, a1, h2, m2, a2, tz] = m;
  const marked = m1 !== undefined || m2 !== undefined || a1 || a2 || tz !== undefined || lead === 'hours' || lead === 'hour';
  if (!marked || !h1 || !h2) return null;
  // "8-4pm": the first hour takes the second's am/pm when it has none and comes out later.
  let start = toHour(h1, m1, a1 ?? (a2 === 'pm' && Number(h1) < Number(h2) ? 'pm' : a2 === 'am' ? 'am' : undefined), false);
  let end = toHour(h2, m2, a2, true);
  if (start === null || end === null) return null;
  const shift = TZ[tz ?? 'utc'] ?? 0;
  start = (((start - shift) % 24) + 24) % 24;
  end = (((end - shift) % 24) + 24) % 24;
  if (start === end) return { hours: null, label: 'all hours' };
  const pad = (x: number) => String(x).padStart(2, '0');
  return { hours: [start, end], label: `${pad(start)}:00-${pad(end)}:00 UTC` };
}

function bound(m: RegExpMatchArray): SessionValue | null {
  const [, word, h, min, ampm, tz] = m;
  if (min === undefined && !ampm && tz === undefined) return null;
  const after = word === 'after' || word === 'from' || word === 'starting at' || word === 'not before';
  const hour = toHour(h!, min, ampm, !after);
  if (hour === null) return null;
  const x = (((hour - (TZ[tz ?? 'utc'] ?? 0)) % 24) + 24) % 24;
  // "no trading after 18 utc" is trading until 18.
  const from = after !== forbidden(m);
  const hours: [number, number] = from ? [x, 0] : [0, x];
  if (hours[0] === hours[1]) return null;
  return { hours, label: from ? `from ${x}:00 UTC` : `until ${x}:00 UTC` };
}

/** "not on fridays or during the asian session": a negation earlier in the clause, carried over "or". */
const NEGATED_BEFORE =
  /\b(?:not|no|never|avoid(?:ing)?|don't|do not|except|excluding|outside(?: of)?)\b[^.;!?]{0,60}\bor (?:during |in )?(?:the )?$/;

function named(m: RegExpMatchArray): SessionValue | null {
  const before =
    m.input === undefined || m.index === undefined
      ? ''
      : m.input.slice(Math.max(0, m.index - 80), m.index + (m[0].length - m[0].trimStart().length));
  const negated = m[1] !== undefined || NEGATED_BEFORE.test(before);
  const names = [m[2]!, ...[...(m[3] ?? '').matchAll(new RegExp(NAME, 'g'))].map((x) => x[1]!)];
  const suffix = (m[5] ?? '').trim();
  if (names.includes('us') && names.length === 1 && !suffix) return null; // "us" is only the US with "session/hours/market"
  let hours = new Array<boolean>(24).fill(false);
  let label: string;
  if (names.includes('overlap') || suffix === 'overlap') {
    hours = hoursOf(SESSIONS.overlap!.hours);
    label = SESSIONS.overlap!.label;
  } else if (suffix === 'open') {
    const first = SESSIONS[names[0]!]!;
    hours = hoursOf([first.hours[0], (first.hours[0] + 3) % 24]);
    label = `${first.label} open`;
  } else {
    for (const n of names) hoursOf(SESSIONS[n]!.hours).forEach((on, h) => (hours[h] ||= on));
    label = [...new Set(names.map((n) => SESSIONS[n]!.label))].join(' + ');
  }
  if (negated) {
    hours = hours.map((on) => !on);
    label = `outside ${label}`;
  }
  return { hours: cover(hours), label };
}

/** "no trading before 7 or after 19 utc": the hours between the two bounds. */
const FORBID_BOUNDS = new RegExp(
  `\\b(?:no|not|never|don't|dont|do not|avoid)\\b[^.;]{0,30}?\\bbefore ${TIME} ?${TZ_RE}?(?: or| and|,|, or)? (?:after|past) ${TIME} ?${TZ_RE}?`,
);

function forbidBounds(m: RegExpMatchArray): SessionValue | null {
  const [, h1, m1, a1, tz1, h2, m2, a2, tz2] = m;
  const shift = TZ[tz2 ?? tz1 ?? 'utc'] ?? 0;
  const start = toHour(h1!, m1, a1, false);
  const end = toHour(h2!, m2, a2, true);
  if (start === null || end === null) return null;
  const [from, to] = [(((start - shift) % 24) + 24) % 24, (((end - shift) % 24) + 24) % 24];
  if (from === to) return null;
  const pad = (x: number) => String(x).padStart(2, '0');
  return { hours: [from, to], label: `${pad(from)}:00-${pad(to)}:00 UTC` };
}

/** A session name used as a price ("above the asian high", "the london range") is no session filter. */
const PRICE_AFTER = /^ (?:highs?|lows?|range|box|extremes?)\b/;
/** "the high of the london session": a price, said before the name. */
const PRICE_BEFORE = /\b(?:highs?|lows?|range|box|extremes?|open|close) of $/;

/**
 * Session statements in one normalised text, in order (the last one wins). Explicit hours beat a
 * session's name in the same sentence ("22:00 to 06:00 utc (asia)"); a session said "only" beats
 * the names merely mentioned ("london session only … the asian high").
 */
export function parseSessions(text: string): Finding<SessionValue>[] {
  const forbidden = findAll(text, [FORBID_BOUNDS], forbidBounds);
  const within = (f: Finding<SessionValue>, list: readonly Finding<SessionValue>[]) =>
    list.some((r) => f.at >= r.at && f.at < r.at + r.phrase.length);
  const ranges = findAll(text, [RANGE], explicit).filter((f) => !within(f, forbidden));
  const bounds = findAll(text, [BOUND], bound).filter((f) => !within(f, ranges) && !within(f, forbidden));
  const hours = [...forbidden, ...ranges, ...bounds];
  const sentence = (at: number) => text.slice(0, at).split(/[.;!?]/).length;
  let names = findAll(text, [SESSION_PHRASE], named).filter(
    (f) =>
      !(new RegExp(`${NAME}$`).test(f.phrase) && PRICE_AFTER.test(text.slice(f.at + f.phrase.length))) &&
      !PRICE_BEFORE.test(text.slice(Math.max(0, f.at - 30), f.at)),
  );
  names = names.filter((f) => !hours.some((h) => sentence(h.at) === sentence(f.at)));
  const only = (f: Finding<SessionValue>) =>
    /^ only\b/.test(text.slice(f.at + f.phrase.length)) ||
    /\bonly (?:(?:the|trade|trading|during|in) )*$/.test(text.slice(Math.max(0, f.at - 30), f.at));
  if (names.some(only)) names = names.filter(only);
  return [...names, ...hours, ...findAll(text, [ALL_HOURS], () => ({ hours: null, label: 'all hours' }))].sort((a, b) => a.at - b.at);
}

export const sessionHoursLabel = (v: SessionValue): string =>
  v.hours === null
    ? 'all hours (no filter)'
    : `${v.label}: ${String(v.hours[0]).padStart(2, '0')}:00-${String(v.hours[1]).padStart(2, '0')}:00 UTC -> [${v.hours[0]}, ${v.hours[1]}]`;
