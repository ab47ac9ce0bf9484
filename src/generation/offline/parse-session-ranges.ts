/**
 * A session's range as a price level: "the Asian high", "high of the London session", "the
 * 7-8 UTC range", "the first hour's high", "opening range". Rewritten in the normalised text as
 * the `sessrange <start> <end>` indicator (trader-indicators.ts: the high and low of the day's
 * bars in those UTC hours, known once the window has closed), which the mention parser reads like
 * any other, with `high` / `low` after it as its output. A session named for its range is then no
 * longer a session filter. Hours are the sessions parser's (parse-sessions.ts).
 */
import { SESSIONS } from './parse-sessions.ts';

const NAME = '(london|european|europe|frankfurt|newyork|us|american|asian|tokyo|sydney)';
const HL = '(highs?|lows?|range|box)';
/** An opening range: the session's first hour (of the hours the request trades, else London's). */
const OPENING =
  /\b(?:the )?(?:(london|newyork|frankfurt|tokyo|asian|us) )?(?:opening range|open(?:ing)? range|first hour(?:'s| of)?(?: the)?(?: session| trading)?|first (?:30|15|60) ?minutes?(?:'s)?)( highs?| lows?)?\b/g;
const EXPLICIT = /\b(\d{1,2})(?::00)? ?(?:-|to) ?(\d{1,2})(?::00)? ?(?:utc|gmt)? (?:range|box)( highs?| lows?)?\b/g;
const NAMED_FIRST = new RegExp(`\\b${NAME}(?: session| sessions)?(?:'s)? ${HL}\\b(?: ?(?:\\/|and|or|&) ?(highs?|lows?)\\b)?`, 'g');
const NAMED_AFTER = new RegExp(`\\b(highs?|lows?) of (?:the )?${NAME}(?: session| range)?\\b`, 'g');
/** Words that make a session's "range" a level: broken, faded, compared with. */
const LEVEL_CUE = /\b(?:break\w*|above|below|over|under|fade|fading|outside|inside|beyond|through|top|bottom|highs?|lows?)\b/;
/** Explicit trading hours elsewhere in the request ("only 7 to 15 utc"): where an opening range starts. */
const TRADING_FROM = /\b(\d{1,2})(?::00)? ?(?:-|to|until) ?\d{1,2}(?::00)? ?(?:utc|gmt)\b/;

const hoursOf = (name: string): [number, number] => SESSIONS[name]!.hours;
const level = (start: number, end: number, hl: string | undefined) => {
  const which = hl?.trim().replace(/s$/, '');
  return `sessrange ${start} ${end}${which === 'high' || which === 'low' ? ` ${which}` : ''}`;
};
/** "asian high/low" → both levels, each with its own name, so a rule can read either. */
const both = (start: number, end: number, first: string, second: string | undefined) =>
  second ? `${level(start, end, first)} / ${level(start, end, second)}` : level(start, end, first);

export function rewriteSessionRanges(text: string): string {
  const tradingFrom = TRADING_FROM.exec(text);
  return text
    .replace(EXPLICIT, (_, a: string, b: string, hl?: string) =>
      Number(a) < 24 && Number(b) <= 24 && a !== b ? level(Number(a), Number(b) % 24, hl) : _,
    )
    .replace(NAMED_AFTER, (_, hl: string, name: string) => {
      const [s, e] = hoursOf(name);
      return level(s, e, hl);
    })
    .replace(NAMED_FIRST, (found: string, name: string, hl: string, second: string | undefined, at: number, all: string) => {
      // "Asian session range" alone is the hours traded; a range broken, faded or compared with is the level.
      if ((hl === 'range' || hl === 'box') && !LEVEL_CUE.test(all.slice(Math.max(0, at - 30), at + found.length + 30))) return found;
      const [s, e] = hoursOf(name);
      return both(s, e, hl, second);
    })
    .replace(OPENING, (_, name: string | undefined, hl?: string) => {
      const start = name ? hoursOf(name)[0] : tradingFrom ? Number(tradingFrom[1]) % 24 : hoursOf('london')[0];
      return level(start, (start + 1) % 24, hl);
    });
}
