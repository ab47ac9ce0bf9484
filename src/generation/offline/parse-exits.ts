/**
 * Targets and stops named by an indicator rather than a distance, and trailing stops, in one
 * normalised text. The strategy model has fixed stop/take distances and exit columns, so an
 * indicator level becomes an exit rule on the close (closing at the next open) — the closest it
 * can express:
 * - "target the EMA" / "take profit at the middle band": longs close on a close above it,
 *   shorts on a close below it;
 * - "stop below the last swing low" / "stop under the 20 bar low": longs close on a close below
 *   it (a swing low is the 10-bar low); "stop above the swing high" likewise for shorts.
 * Trailing stops are the position engine's own (strategy_config trailing_stop), exactly:
 * "trail by 2 ATR" (ATR(14), or "2 ATR(20)"), "trailing stop 1%", "trail the stop 30 pips",
 * "25 pip trailing stop"; a bare "trailing stop" has no distance (`default`: the stop's).
 * Their words are consumed (`trail[].at/phrase`): the other parsers read the text without them,
 * so "2 ATR" there is not an ATR(2) and "stop 30 pips" not also a fixed stop.
 * Days: "no Fridays", "don't trade on Mondays", "weekdays only", "only on Tuesdays" → skip_days.
 */
import type { Weekday } from '../../../schemas/strategy.ts';
import { WEEKDAYS } from '../../../schemas/strategy.ts';
import type { Approximation, LevelUnit } from './intent.ts';
import type { Finding } from './parse-rules.ts';
import type { Draft } from './parse-conditions.ts';
import { findMentions, type Mention } from './parse-indicators.ts';
import { lex } from './text.ts';

export interface ExitFindings {
  drafts: Draft[];
  mentions: Mention[];
  approximations: Approximation[];
  /** Trailing stops asked, in text order: a distance, or `default` when none was given. */
  trail: Finding<TrailAsked>[];
  /** An indicator target was found (no fixed take unless a distance is also given). */
  target: boolean;
  skipDays: Array<{ value: Weekday[]; at: number; phrase: string }>;
}

const TARGET =
  /\b(?:target(?:ing)?|take profits?|profit target|tp|exit at|take profit at|cover(?: the shorts?| shorts?)? (?:at|on|near)|close (?:all |the |my |any )?(?:trades?|positions?|longs?|shorts?|out) at|take (?:both |it |them |all |everything |profits? )?off at)(?: at| on| near| is| of| =)? (?:the |a )?(?:return to (?:the )?|touch of (?:the )?|retest of (?:the )?)?([a-z](?:[a-z0-9 ()]|\.(?=\d)){0,40})/g;
const STOP =
  /\b(?:stop(?: loss)?|sl|stops)(?: is| goes| placed| sits| set)? ?(?:just |a bit |a few pips )?(below|under|above|beyond|at|behind) (?:the )?(?:last |recent |previous |prior |nearest )?([a-z0-9 ]{1,30})/g;
/** A trailing distance as asked: `amount` in ATRs (of `period`, default 14), percent of price or pips. */
export type TrailAsked = { amount: number; unit: LevelUnit; period?: number } | 'default';

const TRAIL_UNIT = '(atrs?|pips?|points|%|percent)(?:\\((\\d{1,3})\\))?(?![a-z0-9])';
const TRAIL = [
  new RegExp(
    `\\btrail(?:ing)?(?: the| my| your| a| it)?(?: stops?)?(?: loss(?:es)?)?(?: by| of| at| with| =| to)? (\\d+(?:\\.\\d+)?) ?(?:x |times )?${TRAIL_UNIT}`,
    'g',
  ),
  // "atr trailing stop 3x": the multiple after.
  /\b(atr) trailing stops?(?: of| at| =)? (\d+(?:\.\d+)?) ?(?:x|times)\b()/g,
  new RegExp(
    `\\b(\\d+(?:\\.\\d+)?) ?(?:x |times )?${TRAIL_UNIT} trail(?:ing)?(?: stops?)?(?: loss(?:es)?)?\\b(?! ?(?:by |of |at |= )?\\d)`,
    'g',
  ),
  /\btrail(?:ing)?(?: stops?)?(?: by| of| at| =)? (\d+(?:\.\d+)?)()()(?= *(?:$|[.;,!?]| and\b| then\b))/g,
];
/** "trailing stop", "trail the stop", "an ATR trailing stop": a trailing stop without a distance. */
const TRAIL_BARE = /\b(?:(atr) )?(?:trailing stops?(?: loss(?:es)?)?|trail(?:ing)? (?:the |my |your )?stops?)\b/g;
const UNITS: Record<string, LevelUnit> = { atr: 'atr', atrs: 'atr', pip: 'pips', pips: 'pips', points: 'pips', '%': 'pct', percent: 'pct' };
/** An ATR trailing stop named without a multiple trails by this many ATR(14). */
export const DEFAULT_TRAIL_ATR = 2;

/** Trailing stops in the text: with a distance, else bare (a bare one inside a measured one is the same). */
function trails(text: string): Finding<TrailAsked>[] {
  const out: Finding<TrailAsked>[] = [];
  const inside = (at: number) => out.some((f) => at >= f.at && at < f.at + f.phrase.length);
  for (const re of TRAIL) {
    for (const m of text.matchAll(re)) {
      const [amountText, unitWord] = m[1] === 'atr' ? [m[2], 'atr'] : [m[1], m[2]];
      const amount = Number(amountText);
      if (!(amount > 0) || inside(m.index)) continue;
      // "sl 15 pips trail 10": a distance with no unit is in pips, as traders of forex count.
      const unit = unitWord ? UNITS[unitWord]! : 'pips';
      const period = unit === 'atr' && m[3] ? Number(m[3]) : undefined;
      out.push({ value: { amount, unit, ...(period ? { period } : {}) }, at: m.index, phrase: m[0] });
    }
  }
  for (const m of text.matchAll(TRAIL_BARE)) {
    if (out.some((f) => m.index < f.at + f.phrase.length && f.at < m.index + m[0].length)) continue;
    out.push({ value: m[1] ? { amount: DEFAULT_TRAIL_ATR, unit: 'atr' } : 'default', at: m.index, phrase: m[0] });
  }
  return out.sort((a, b) => a.at - b.at);
}

/** The text with the trailing-stop phrases blanked (same length, so offsets still hold). */
export const withoutTrails = (text: string, found: readonly Finding<TrailAsked>[]): string =>
  found.reduce((t, f) => t.slice(0, f.at) + ' '.repeat(f.phrase.length) + t.slice(f.at + f.phrase.length), text);

const mentionsOf = (fragment: string): Mention[] =>
  findMentions(lex(fragment.split(/ (?:and|with|stop|target|then|or|but|on|for) /)[0]!)).filter((t): t is Mention => t.t === 'ind');
const mention = (name: Mention['name'], params: Record<string, number>, output: number | null): Mention => ({
  t: 'ind',
  name,
  params,
  output,
  qualifier: null,
  levels: null,
  signalLine: false,
  days: false,
});
const op = (m: Mention, output = m.output ?? 0) => ({ kind: 'mention' as const, m, output });

// Longest first, to a word's end: "thursdays or fridays" is not "thu" and a stray "rsdays".
const DAY = '(mon|tues|tue|wednes|wed|thurs|thur|thu|fri|satur|sat|sun)(?:day)?s?\\b';
// "only tuesdays to thursdays": a range of days, each day between.
const DAYS = new RegExp(
  `\\b(?:(no|not on|avoid|skip(?:ping)?|except|excluding|never on|(?:do not|don'?t|dont|never) trade(?: on)?|no trad(?:es|e|ing)(?: on)?|no entries on|only on|only|only\\b[^.;,]{0,40}?\\bon)\\s+${DAY}((?:(?:\\s*(?:,|and|or|&|\\/|to|through|thru|till|until|-)\\s*|\\s+)${DAY})*)|${DAY} only\\b|\\bweekdays only|\\bonly (?:on )?weekdays|\\b(?:no|(?:do not|don'?t|dont|never) trade(?: on)?(?: the)?) weekends?\\b(?! hold\\w*| positions?| exposure| gaps?)|(?<=(?:^|[,.;:] ?|utc |gmt )(?:only )?)${DAY} ?(?:-|to|through|thru) ?${DAY}\\b(?! (?:high|low|range))(?<only>))`,
  'g',
);

function dayOf(word: string): Weekday {
  return WEEKDAYS.find((d) => word.startsWith(d)) ?? (word.startsWith('th') ? 'thu' : 'tue');
}

/** The days a phrase names, a range ("tue to thu", "mon-wed") with every day between. */
function daysNamed(phrase: string): Weekday[] {
  const found = [...phrase.matchAll(new RegExp(`\\b${DAY}|\\b(to|through|thru|till|until|-)(?=\\s*${DAY})`, 'g'))];
  const out: Weekday[] = [];
  for (let k = 0; k < found.length; k++) {
    const day = found[k]![1];
    if (day) {
      out.push(dayOf(day));
      continue;
    }
    const [from, to] = [out[out.length - 1], found[k + 1]?.[1]];
    if (!from || !to) continue;
    const [a, b] = [WEEKDAYS.indexOf(from), WEEKDAYS.indexOf(dayOf(to))];
    for (let d = a + 1; d < b; d++) out.push(WEEKDAYS[d]!);
  }
  return out;
}

function skipDays(text: string): ExitFindings['skipDays'] {
  const out: ExitFindings['skipDays'] = [];
  for (const m of text.matchAll(DAYS)) {
    const phrase = m[0].trim();
    if (/weekday|weekend/.test(phrase)) {
      out.push({ value: ['sat', 'sun'], at: m.index ?? 0, phrase });
      continue;
    }
    const named = daysNamed(phrase);
    // "9-17 utc, mon-thu": a range of days said on its own is the days traded.
    const only = /^only\b|\bonly$/.test(phrase) || m.groups?.only !== undefined;
    // "only tuesdays": every other day, the weekend too (forex opens on Sunday evening; BTCUSD trades all week).
    const value = only ? WEEKDAYS.filter((d) => !named.includes(d)) : [...new Set(named)];
    if (value.length && value.length <= 6) out.push({ value: WEEKDAYS.filter((d) => value.includes(d)), at: m.index ?? 0, phrase });
  }
  return out;
}

const N_BARS = '(\\d+) ?(?:bars? |candles? |days? |periods? )?';
const OPPOSITE_BREAK = new RegExp(
  `\\b(?:exit|exits|close|get out|out)\\b[a-z ]{0,20}? (?:on|at|with|via|after) (?:a |an |the )?(?:${N_BARS}(?:opposite|other side|reverse|counter) (?:channel|breakout|break|donchian)s?|(?:opposite|reverse|counter) ${N_BARS}(?:channel |donchian )?(?:breakout|break|channel)s?)\\b`,
  'g',
);

/** A channel's middle line by position ("Keltner 20 … exit at the middle line"): outputs of each channel's middle. */
const MIDDLE: Record<string, number> = { bb: 1, keltner: 1, donchian: 2 };
/** Entries beyond a channel's outer line, with the move: a breakout, not a fade. */
const BREAKOUT_BEFORE = /\bbreak ?outs?\b|\b(?:long|buy)\w*\b[^.;]*\babove (?:the )?upper\b/;
/** "the middle line", "the midline", "the basis": the middle of the last channel named before `at`, if any. */
function middleBefore(text: string, at: number, fragment: string): Mention[] {
  if (!/^(?:middle|mid|centre|center|basis|median)(?: ?line| band)?\b|^midline\b/.test(fragment)) return [];
  const channel = findMentions(lex(text.slice(0, at)))
    .filter((t): t is Mention => t.t === 'ind' && t.name in MIDDLE)
    .pop();
  return channel ? [{ ...channel, output: MIDDLE[channel.name]! }] : [];
}

/** Indicator targets and stops, trailing stops and day filters of one normalised text. */
export function parseExits(text: string): ExitFindings {
  const trail = trails(text);
  const out: ExitFindings = { drafts: [], mentions: [], approximations: [], trail, target: false, skipDays: skipDays(text) };
  text = withoutTrails(text, trail);
  const exit = (draft: Omit<Draft, 'role' | 'negate'>) => out.drafts.push({ ...draft, role: 'exit', negate: false });
  for (const m of text.matchAll(TARGET)) {
    const fragment = m[1]!;
    if (/^\d/.test(fragment)) continue;
    const opposite = /^opposite (?:bollinger )?band/.test(fragment);
    // "buy at s1 …, exit at p": the pivot itself, where the text trades its levels.
    const pivotP = /^pp?\b/.test(fragment) && /\b(?:[rs] ?[123]|pivots?)\b/.test(text);
    const [first] = pivotP
      ? [mention('pivot', {}, 0)]
      : opposite
        ? [mention('bb', {}, null)]
        : mentionsOf(fragment).length
          ? mentionsOf(fragment)
          : middleBefore(text, m.index, fragment);
    if (!first) continue;
    out.mentions.push(first);
    out.target = true;
    const phrase = m[0].trim();
    // A channel's middle after a breakout beyond its lines ("long above the upper Keltner … exit at the middle line") is where the move fails: longs close below it.
    const fails = first.name in MIDDLE && first.output === MIDDLE[first.name] && BREAKOUT_BEFORE.test(text.slice(0, m.index));
    const [up, down] = fails ? (['below', 'above'] as const) : (['above', 'below'] as const);
    // The opposite band: the upper for a long, the lower for a short.
    exit({
      cond: {
        kind: 'compare',
        left: { kind: 'price' },
        relation: up,
        right: op(first, opposite ? 0 : first.name === 'bb' && first.output === null ? 1 : undefined),
      },
      side: 'long',
      phrase,
    });
    exit({
      cond: {
        kind: 'compare',
        left: { kind: 'price' },
        relation: down,
        right: op(first, opposite ? 2 : first.name === 'bb' && first.output === null ? 1 : undefined),
      },
      side: 'short',
      phrase,
    });
    out.approximations.push({
      asked: phrase,
      done: `an exit rule: longs close on a close ${up} it, shorts on a close ${down} it (at the next open); no fixed take profit`,
      why: 'take_profit is a fixed distance; a moving target is an exit column',
    });
  }
  // Turtle exits: "exit on the 20 bar opposite channel" — longs close below the prior 20-bar low, shorts above its high.
  for (const m of text.matchAll(OPPOSITE_BREAK)) {
    const period = Number(m[1] ?? m[2]);
    if (!(period >= 2 && period <= 500)) continue;
    const phrase = m[0].trim();
    const [high, low] = [mention('hhll', { period }, 0), mention('hhll', { period }, 1)];
    out.mentions.push(high, low);
    exit({ cond: { kind: 'compare', left: { kind: 'price' }, relation: 'below', right: op(low) }, side: 'long', phrase });
    exit({ cond: { kind: 'compare', left: { kind: 'price' }, relation: 'above', right: op(high) }, side: 'short', phrase });
    out.approximations.push({
      asked: phrase,
      done: `an exit rule: longs close on a close below the prior ${period}-bar low, shorts on a close above the prior ${period}-bar high (at the next open)`,
      why: 'a breakout the other way is an exit column, not a fixed distance',
    });
  }
  for (const m of text.matchAll(STOP)) {
    const where = m[1]!;
    const fragment = m[2]!;
    if (/^\d/.test(fragment)) continue;
    const swing = /^swing (high|low)s?\b/.exec(fragment);
    const [first] = swing ? [mention('hhll', { period: 10 }, swing[1] === 'high' ? 0 : 1)] : mentionsOf(fragment);
    if (!first) continue;
    out.mentions.push(first);
    const low = first.name === 'hhll' ? (first.output ?? 1) === 1 : where === 'below' || where === 'under';
    const side =
      where === 'above' || where === 'beyond' ? 'short' : where === 'below' || where === 'under' ? 'long' : low ? 'long' : 'short';
    const phrase = m[0].trim();
    const output = first.name === 'hhll' ? (side === 'long' ? 1 : 0) : (first.output ?? 0);
    exit({
      cond: { kind: 'compare', left: { kind: 'price' }, relation: side === 'long' ? 'below' : 'above', right: op(first, output) },
      side,
      phrase,
    });
    out.approximations.push({
      asked: phrase,
      done: `an exit rule: ${side === 'long' ? 'longs close on a close below' : 'shorts close on a close above'} it (at the next open); the fixed stop stays as a hard stop`,
      why: 'stop_loss is a fixed distance from the entry; a level that moves is an exit column',
    });
  }
  return out;
}
