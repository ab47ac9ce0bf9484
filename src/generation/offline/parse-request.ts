/**
 * Reads every text field of a generate request once: normalised text, clauses, indicator
 * mentions, condition drafts, trend phrases, and the regex findings of the rules, sessions,
 * risk and model parsers. What wins where fields disagree is decided later (settings.ts).
 */
import type { Timeframe } from '../../../schemas/common.ts';
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { TEXT_FIELDS, type TextField } from './intent.ts';
import {
  flipOf,
  parseClause,
  sideOf,
  usedMentions,
  type Carry,
  type ClauseResult,
  type DCondition,
  type Draft,
} from './parse-conditions.ts';
import { MIRROR_CUE, mirrorCondition, NOT_ENTRY } from './parse-mirror.ts';
import { findMentions, type Mention, type PToken } from './parse-indicators.ts';
import { parseModel, type ModelFindings } from './parse-model.ts';
import { parseRisk, type RiskFindings } from './parse-risk.ts';
import { parseRules, type Finding, type RuleFindings } from './parse-rules.ts';
import { parseSessions, type SessionValue } from './parse-sessions.ts';
import { clauses, lex, normalize } from './text.ts';
import type { Approximation, Role } from './intent.ts';
import { parseExits, withoutTrails, type ExitFindings } from './parse-exits.ts';
import { markLevels, rewriteLevels } from './parse-levels.ts';
import { roleSegments } from './parse-roles.ts';
import { rewriteRibbons } from './parse-ribbons.ts';
import { rewriteSessionRanges } from './parse-session-ranges.ts';

export interface FieldParse {
  field: TextField;
  text: string;
  norm: string;
  mentions: Mention[];
  /** The indicators the words name (not those implied by a phrase like "golden cross"): what the coverage check checks. */
  named: Mention[];
  drafts: Draft[];
  trends: Array<{ m: Mention | null; phrase: string; at: number }>;
  rules: RuleFindings;
  sessions: Finding<SessionValue>[];
  risk: RiskFindings;
  model: ModelFindings;
  /** Indicator targets and stops, trailing stops, day filters. */
  exits: ExitFindings;
  /** Named things the conditions read as something close to them. */
  approximations: Approximation[];
  /** Words naming things the generator cannot compute (volume, Fibonacci…), for a remark. */
  unsupported: string[];
  /** Parts worded as a condition that no rule was read from: said in a remark, never dropped in silence. */
  unread: string[];
  /** "and"/"or" parts of a clause that did give conditions, worded as a condition themselves, that gave none ("…, price is below it"). */
  unreadParts: string[];
}

/** Words of a condition; risk, session, day and model statements are read by their own parsers. */
const CONDITION_WORDS =
  /\b(above|below|over|under|cross(?:es|ing|ed)?|touch(?:es|ing)?|break(?:s|ing|out|outs)?|flips?|engulf\w*|pin bars?|inside bars?|regime|deviations?|z-?score|within|rises?|rising|falls?|falling|turns?|divergences?|stars?|tweezers?)\b/;
const READ_ELSEWHERE =
  /\b(stops?|sl|targets?|tp|take|profit|trail\w*|session|hours?|utc|gmt|london|new ?york|asian|tokyo|sydney|monday|tuesday|wednesday|thursday|friday|mondays|fridays|weekends?|positions?|trades? open|threshold|probability|horizon|lots?|risk)\b/;

// What has no column here (candle patterns beyond those in trader-indicators.ts): said, never dropped in silence.
const UNSUPPORTED =
  /\b(volume|obv|fibonacci|fib|renko|news|sentiment|order ?book|hidden divergence|doji|elliott|harmonic|funding(?: rates?)?|saucer|harami|marubozu|hanging man|abandoned baby|double (?:top|bottom)s?|head and shoulders)\b/g;

export function parseField(field: TextField, text: string, timeframe: Timeframe): FieldParse {
  const norm = normalize(text);
  const exits = parseExits(norm);
  // The trailing-stop words are the exits parser's: the others read the text without them.
  const approximations: Approximation[] = [];
  const rest = rewriteRibbons(rewriteSessionRanges(namedAsOthers(withoutTrails(norm, exits.trail), approximations)));
  const mentions: Mention[] = [];
  const named: Mention[] = [];
  const unreadParts: string[] = [];
  const drafts: Draft[] = [];
  const trends: FieldParse['trends'] = [];
  const carry: Carry = { subject: null };
  let offset = 0;
  let role: Role = 'entry';
  const unread: string[] = [];
  const flippers: Array<{ m: Mention; phrase: string }> = [];
  // Statements: each "or"-part of a clause segment. A side-less clause after a comma continues the
  // side of the clause before ("Buy when RSI is below 30, MACD above signal": both for the buy).
  let stmt = 0;
  let lastSide: Draft['side'] = null;
  // Side-less entry drafts of the sentence so far: "when RSI drops below 30, …, so I want to buy" gives them the buy.
  let pending: Draft[] = [];
  // The last entry statement's drafts: a side-only clause after it ("…, short on the opposite") takes them mirrored.
  let lastEntry: Draft[] = [];
  for (const clause of clauses(rest)) {
    const at = rest.indexOf(clause, offset);
    offset = at >= 0 ? at + clause.length : offset;
    const afterComma = at > 0 && /,\s*$/.test(rest.slice(0, at));
    if (!afterComma) {
      lastSide = null;
      pending = [];
    }
    for (const segment of roleSegments(rewriteLevels(clause), role)) {
      const tokens = findMentions(markLevels(lex(segment.text)));
      const result = parseClause(tokens, segment.text, carry);
      // "exit at the other extreme" names the entries' levels, each for the other side: not the oscillator's two extremes for both.
      const other = segment.role === 'exit' ? otherExtreme(segment.text, drafts) : [];
      if (other.length) result.drafts.splice(0, result.drafts.length, ...other);
      const mirrored = segment.role === 'entry' ? mirrorOf(tokens, segment.text, result, lastEntry) : [];
      if (mirrored.length) {
        const s = stmt++;
        const placed = mirrored.map((d) => ({ ...d, stmt: s, orJoin: false }));
        drafts.push(...placed);
        lastEntry = placed;
        lastSide = placed[0]!.side;
        role = segment.role;
        continue;
      }
      if (segment.role === 'entry') flippers.push(...result.flippers.map((m) => ({ m, phrase: segment.text })));
      mentions.push(...tokens.filter((t): t is Mention => t.t === 'ind'), ...result.implied);
      approximations.push(...result.approximations);
      named.push(...tokens.filter((t): t is Mention => t.t === 'ind'));
      if (result.drafts.length) unreadParts.push(...partsWithout(tokens, result.drafts));
      // "only when price is above the 200 SMA" is the trend filter (longs above, shorts below): not also a gate on both sides.
      const trendRule = (d: Draft) =>
        result.trend !== null &&
        d.cond.kind === 'compare' &&
        d.cond.left.kind === 'price' &&
        d.cond.right.kind === 'mention' &&
        ['sma', 'ema', 'wma'].includes(d.cond.right.m.name);
      const opensWithOr = /^\s*or\b/.test(segment.text);
      const base = stmt;
      drafts.push(
        ...result.drafts.map((d) => {
          const alt = d.alt ?? 0;
          stmt = Math.max(stmt, base + alt + 1);
          const side = d.side ?? (segment.role === 'entry' ? lastSide : null);
          const placed = { ...d, side, stmt: base + alt, orJoin: alt > 0 || opensWithOr };
          return segment.role === 'filter' && trendRule(d)
            ? { ...placed, role: 'entry' as const }
            : { ...placed, role: segment.role, negate: segment.negate };
        }),
      );
      const sided = result.drafts.find((d) => d.side !== null);
      if (segment.role === 'entry' && sided) lastSide = sided.side;
      if (segment.role === 'entry' && result.drafts.length) lastEntry = drafts.slice(drafts.length - result.drafts.length);
      if (segment.role === 'entry') {
        const added = drafts.slice(drafts.length - result.drafts.length);
        const said = result.drafts.length === 0 ? sideOf(tokens) : null;
        if (said) {
          for (const d of pending) d.side = said;
          pending = [];
          lastSide = said;
        } else pending.push(...added.filter((d) => d.side === null));
      }
      if (result.trend) trends.push({ ...result.trend, at: Math.max(0, at) });
      if (
        result.drafts.length === 0 &&
        !result.trend &&
        result.implied.length === 0 &&
        !tokens.some((t) => t.t === 'ind') &&
        CONDITION_WORDS.test(segment.text) &&
        !READ_ELSEWHERE.test(segment.text)
      )
        unread.push(segment.text.trim());
      role = segment.role;
    }
  }
  // "psar both directions": a SAR or SuperTrend named for entries that no clause says anything of is its flip.
  const said = new Set([...usedMentions(drafts)].map((m) => m.name));
  for (const { m, phrase } of flippers) {
    if (said.has(m.name)) continue;
    said.add(m.name);
    drafts.push({ cond: flipOf(m), side: null, phrase, role: 'entry', negate: false, stmt: stmt++, orJoin: false });
  }
  mentions.push(...exits.mentions);
  // A clause the exits parser read as a stop or target ("stop below the swing low", "exit at the pivot") is its exit, not also an entry or a second exit.
  const entriesKept = drafts.filter((d) => d.role === 'filter' || !exits.drafts.some((e) => e.phrase === d.phrase.trim()));
  drafts.length = 0;
  drafts.push(...entriesKept, ...exits.drafts);
  // "divergence" in "moving average convergence divergence" is MACD's name, not a pattern.
  const plain = norm.replace(/\bmoving average convergence divergence\b/g, 'macd');
  const unsupported = [...new Set([...plain.matchAll(UNSUPPORTED)].map((m) => m[1]!))];
  return {
    field,
    text,
    norm,
    mentions,
    named,
    drafts,
    trends,
    rules: parseRules(rest, timeframe),
    sessions: parseSessions(rest),
    risk: parseRisk(rest),
    model: parseModel(rest, timeframe, field === 'optimization'),
    exits,
    approximations: [...approximations, ...exits.approximations],
    unsupported,
    // A clause the exits parser read (a target, a swing-low stop) is not unread.
    unread: unread.filter((u) => !exits.drafts.some((d) => u.includes(d.phrase) || d.phrase.includes(u))),
    unreadParts: unreadParts.filter((u) => !exits.drafts.some((d) => d.phrase.includes(u))),
  };
}

/** Names read as a close relative, each said: the words as written, what is computed, why. */
const NAMED_AS: Array<{ re: RegExp; as: string; done: string; why: string }> = [
  {
    re: /\bstoch(?:astic)? ?rsi\b/g,
    as: 'stochastic',
    done: 'the stochastic %K of price, with the levels as written',
    why: 'there is no stochastic of RSI here',
  },
  {
    re: /\bhammers?\b|\bhanging man\b/g,
    as: 'pin bar',
    done: 'a pin bar: a lower wick two thirds of the range, the body in the top third',
    why: "the pin bar is the hammer's shape",
  },
  {
    re: /\bshooting stars?\b|\binverted hammers?\b/g,
    as: 'pin bar',
    done: 'a pin bar: an upper wick two thirds of the range, the body in the bottom third',
    why: "the pin bar is the shooting star's shape",
  },
];

/** The text with each name of NAMED_AS read as its relative, and the approximations said. */
function namedAsOthers(text: string, approximations: Approximation[]): string {
  for (const n of NAMED_AS) {
    text = text.replace(n.re, (asked) => {
      if (!approximations.some((a) => a.asked === asked)) approximations.push({ asked, done: n.done, why: n.why });
      return n.as;
    });
  }
  return text;
}

/**
 * A clause naming one side and no condition of its own, after an entry of the other side: that
 * entry mirrored for this side (parse-mirror.ts). Empty when the clause is anything else.
 */
function mirrorOf(tokens: readonly PToken[], text: string, result: ClauseResult, last: readonly Draft[]): Draft[] {
  if (result.drafts.length || result.trend || tokens.some((t) => t.t === 'ind') || !last.length) return [];
  const side = sideOf(tokens);
  if (!side || !MIRROR_CUE.test(text) || NOT_ENTRY.test(text)) return [];
  if (!last.every((d) => d.side !== null && d.side !== side)) return [];
  return last.map((d) => ({ ...d, cond: mirrorCondition(d.cond), side, phrase: text.trim(), alt: 0, part: 0 }));
}

const OTHER_EXTREME = /\b(?:other|opposite) (?:extreme|level|zone|threshold|end)s?\b/;

/**
 * "buy when %R crosses up through -80, sell down through -20, exit when it hits the other
 * extreme": longs close in the short entry's zone (its oscillator above its level), shorts in the
 * long entry's (below it).
 */
function otherExtreme(text: string, drafts: readonly Draft[]): Draft[] {
  if (!OTHER_EXTREME.test(text)) return [];
  const levels = drafts.filter(
    (d) =>
      d.role === 'entry' && d.side !== null && d.cond.kind === 'compare' && d.cond.left.kind === 'mention' && d.cond.right.kind === 'value',
  );
  return levels.map((d) => {
    const cond = d.cond as Extract<DCondition, { kind: 'compare' }>;
    const side = d.side === 'long' ? 'short' : 'long';
    return { ...d, cond: { ...cond, relation: d.side === 'short' ? 'above' : 'below' }, side, role: 'exit', phrase: text, alt: 0, part: 0 };
  });
}

/** Words of a relation a part of a clause would be read for. */
const PART_RELATION = /\b(above|below|over|under|beneath|cross(?:es|ing|ed)?|breaks?|flips?|touch(?:es|ing)?|inside|outside|within)\b/;

/**
 * The "and"/"or" parts of a clause that read as a condition but gave none, where other parts did
 * ("sell when RSI is above 70 and price is below it": the second part). Numbers joined by "and"
 * ("between 30 and 70") carry no relation of their own, so they are never reported.
 */
function partsWithout(tokens: readonly PToken[], drafts: readonly Draft[]): string[] {
  if (drafts.some((d) => d.part === undefined)) return [];
  const read = new Set(drafts.map((d) => d.part));
  // Split where parseClause counts parts: at the "and"/"or" words left between mentions.
  const parts: string[][] = [[]];
  for (const t of tokens) {
    if (t.t === 'word' && (t.w === 'and' || t.w === 'or')) parts.push([]);
    else parts[parts.length - 1]!.push(t.t === 'word' ? t.w : t.t === 'num' ? t.raw : t.t === 'sym' ? t.s : t.t === 'ind' ? t.name : '');
  }
  return parts
    .map((p, k) => ({ p: p.join(' ').trim(), k }))
    .filter(
      ({ p, k }) => !read.has(k) && PART_RELATION.test(p) && !READ_ELSEWHERE.test(p) && !/^(?:the )?(?:above|below|over|under)$/.test(p),
    )
    .map(({ p }) => p);
}

/** Every non-empty text field, in reading order. */
export function parseRequestText(request: GenerateRequest, timeframe: Timeframe): FieldParse[] {
  return TEXT_FIELDS.filter((f) => (request[f] ?? '').trim().length > 0).map((f) => parseField(f, request[f]!, timeframe));
}
