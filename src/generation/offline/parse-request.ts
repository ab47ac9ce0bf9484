/**
 * Reads every text field of a generate request once: normalised text, clauses, indicator
 * mentions, condition drafts, trend phrases, and the regex findings of the rules, sessions,
 * risk and model parsers. What wins where fields disagree is decided later (settings.ts).
 */
import type { Timeframe } from '../../../schemas/common.ts';
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { TEXT_FIELDS, type TextField } from './intent.ts';
import { parseClause, type Draft } from './parse-conditions.ts';
import { findMentions, type Mention } from './parse-indicators.ts';
import { parseModel, type ModelFindings } from './parse-model.ts';
import { parseRisk, type RiskFindings } from './parse-risk.ts';
import { parseRules, type Finding, type RuleFindings } from './parse-rules.ts';
import { parseSessions, type SessionValue } from './parse-sessions.ts';
import { clauses, lex, normalize } from './text.ts';

export interface FieldParse {
  field: TextField;
  text: string;
  norm: string;
  mentions: Mention[];
  drafts: Draft[];
  trends: Array<{ m: Mention | null; phrase: string; at: number }>;
  rules: RuleFindings;
  sessions: Finding<SessionValue>[];
  risk: RiskFindings;
  model: ModelFindings;
  /** Words naming things the service has no built-in for (volume, ADX…), for a remark. */
  unsupported: string[];
}

const UNSUPPORTED = /\b(volume|obv|vwap|adx|dmi|ichimoku|cci|williams|parabolic|sar|supertrend|keltner|fibonacci|fib|pivot|pivots|heikin|renko|news|sentiment|order ?book|divergence|pattern|engulfing|doji|hammer)\b/g;

export function parseField(field: TextField, text: string, timeframe: Timeframe): FieldParse {
  const norm = normalize(text);
  const mentions: Mention[] = [];
  const drafts: Draft[] = [];
  const trends: FieldParse['trends'] = [];
  const carry = { subject: null };
  let offset = 0;
  for (const clause of clauses(norm)) {
    const at = norm.indexOf(clause, offset);
    offset = at >= 0 ? at + clause.length : offset;
    const tokens = findMentions(lex(clause));
    const result = parseClause(tokens, clause, carry);
    mentions.push(...tokens.filter((t): t is Mention => t.t === 'ind'), ...result.implied);
    drafts.push(...result.drafts);
    if (result.trend) trends.push({ ...result.trend, at: Math.max(0, at) });
  }
  // "divergence" in "moving average convergence divergence" is MACD's name, not a pattern.
  const plain = norm.replace(/\bmoving average convergence divergence\b/g, 'macd');
  const unsupported = [...new Set([...plain.matchAll(UNSUPPORTED)].map((m) => m[1]!))];
  return {
    field,
    text,
    norm,
    mentions,
    drafts,
    trends,
    rules: parseRules(norm, timeframe),
    sessions: parseSessions(norm),
    risk: parseRisk(norm),
    model: parseModel(norm, timeframe, field === 'optimization'),
    unsupported,
  };
}

/** Every non-empty text field, in reading order. */
export function parseRequestText(request: GenerateRequest, timeframe: Timeframe): FieldParse[] {
  return TEXT_FIELDS.filter((f) => (request[f] ?? '').trim().length > 0).map((f) => parseField(f, request[f]!, timeframe));
}
