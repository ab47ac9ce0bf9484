/**
 * What each part of a clause is for: an entry (the default), an exit ("exit on a close below the
 * 20 EMA", "close when RSI crosses 50", "get out if…") or a filter ("only when ADX > 25", "as
 * long as", "unless…", "no trades when…"). A clause is cut where such words start; a clause
 * opening with "or"/"and" and no words of its own continues the role of the one before.
 */
import type { Role } from './intent.ts';

export interface Segment {
  text: string;
  role: Role;
  /** A filter worded as a prohibition ("unless", "no trades when"): entries where it does not hold. */
  negate: boolean;
}

const EXIT = String.raw`exit(?:s|ing)?|get out|(?:go |get |be )?flat(?:ten)? (?:when|if|once|as soon as)|(?<!break |breaks |breaking |broke )out (?:at|when|if|once|on)|take (?:the )?profits? (?:when|if|once|on|at)|cover (?:the )?(?:shorts? )?(?:when|if|once)|close (?:the |all |my |any |our )?(?:positions?|trades?|longs?|shorts?|it|out)? ?(?:when|if|once|as soon as)`;
const FILTER = String.raw`only (?:when|if|while)|but only|provided(?: that)?|as long as|filter(?:ed)? (?:by|on|when)|only trade (?:when|if)`;
const FORBID = String.raw`unless|no (?:trades?|entries|trading) (?:when|if|while)|(?:do not|don't|dont|never) (?:trade|enter) (?:when|if|while)|avoid (?:trading |entries )?(?:when|if)|skip (?:trades |entries )?(?:when|if)|not when`;
const MARKER = new RegExp(String.raw`\b(?:(${EXIT})|(${FILTER})|(${FORBID}))\b`, 'g');
/** Confidence and session words after "only when" are settings, not conditions: the segment still parses, harmlessly. */

/** Cuts a normalised clause into role segments; `previous` is the last role of the clause before. */
/** A side verb and nothing else before "only when". */
const SIDE_ONLY = /(?:^|,|\band |\bthen )\s*(?:i |we )?(?:go |will |'ll )?(?:buy|sell|long|short)s?\s*$/;

/** "when ADX > 20 don't trade": the prohibition said after its condition. */
const FORBID_AFTER = /^(?:when|if|while|whenever)\b.*\b(?:do not|don'?t|dont|never|no) (?:trade|trading|trades|enter|entries)\s*$/;

/** "death cross close it", "rsi 50 = exit": the exit said after its condition. */
const EXIT_AFTER =
  /\s(?:=\s*|to |and |then |as (?:the |an |my )?|[-:]\s*)?(?:close (?:it|them|out|all|(?:the |my )?(?:trade|position|long|short|buy|sell)s?)|exit(?:s)?(?: (?:it|them|all|the (?:trade|position|long|short)s?))?|get out|cover)\s*$/;

export function roleSegments(clause: string, previous: Role): Segment[] {
  if (FORBID_AFTER.test(clause.trim())) return [{ text: clause, role: 'filter', negate: true }];
  if (EXIT_AFTER.test(clause) && clause.replace(EXIT_AFTER, '').search(MARKER) < 0)
    return [{ text: clause.replace(EXIT_AFTER, ''), role: 'exit', negate: false }];
  const cuts: Array<{ at: number; role: Role; negate: boolean }> = [];
  for (const m of clause.matchAll(MARKER)) {
    // "buy only when CCI crosses up through -100": the side's own entry, not a gate on both sides.
    if (m[2] && SIDE_ONLY.test(clause.slice(0, m.index))) continue;
    cuts.push({ at: m.index ?? 0, role: m[1] ? 'exit' : 'filter', negate: m[3] !== undefined });
  }
  const continues = /^(?:or|and|also|or when|and when)\b/.test(clause) && (cuts.length === 0 || cuts[0]!.at > 0);
  const first: Segment = { text: clause.slice(0, cuts[0]?.at ?? clause.length), role: continues ? previous : 'entry', negate: false };
  const out = first.text.trim() ? [first] : [];
  cuts.forEach((c, k) => {
    const text = clause.slice(c.at, cuts[k + 1]?.at ?? clause.length);
    if (text.trim()) out.push({ text, role: c.role, negate: c.negate });
  });
  return out;
}
