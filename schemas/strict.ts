import { z } from 'zod';

/**
 * Request bodies are strict: a field the endpoint does not know is refused (400) by name, with
 * the known field it most likely meant — a misspelt or misnamed field is never silently dropped
 * (a `/generate` with `prompt` instead of `description` would otherwise be charged and answered
 * with the default strategy).
 */

/** Names clients use for a field under another name; each group is one meaning. */
const SYNONYMS: readonly (readonly string[])[] = [
  ['description', 'prompt', 'idea', 'text', 'query', 'message', 'strategy_description'],
  ['model_name', 'model', 'name', 'model_id', 'stem', 'model_stem'],
  ['take_profit', 'tp', 'target', 'profit_target'],
  ['stop_loss', 'sl', 'stop', 'stoploss'],
  ['lot_size', 'lots', 'size', 'volume', 'quantity'],
  ['timeframe', 'interval', 'tf', 'period', 'resolution', 'granularity'],
  ['symbol', 'pair', 'instrument', 'ticker', 'market'],
  ['webhook_url', 'url', 'callback', 'callback_url', 'webhook'],
  ['code', 'source', 'strategy', 'strategy_code', 'python'],
  ['username', 'user', 'handle', 'user_name', 'login'],
  ['ai_model', 'llm', 'ai', 'claude_model'],
  ['confidence_threshold', 'threshold', 'signal_threshold', 'confidence'],
  ['capital', 'balance', 'equity', 'account_balance'],
  ['deliver_to', 'delivery', 'deliver'],
];

/** Lower case without separators: `takeProfit`, `take-profit` and `take_profit` are one name. */
const normalise = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

/** Levenshtein distance (insertions, deletions, substitutions). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * The known field an unknown one most likely means: the same name spelt another way, then a
 * synonym, then the nearest by edit distance (at most a third of its length, and 2 at least).
 */
export function closestField(unknown: string, known: readonly string[]): string | null {
  const plain = normalise(unknown);
  const sameName = known.find((k) => normalise(k) === plain);
  if (sameName) return sameName;
  for (const group of SYNONYMS) {
    if (!group.some((word) => normalise(word) === plain)) continue;
    const match = group.find((word) => word !== unknown && known.includes(word));
    if (match) return match;
  }
  let best: string | null = null;
  let bestDistance = Math.max(2, Math.floor(plain.length / 3)) + 1;
  for (const k of known) {
    const d = editDistance(plain, normalise(k));
    if (d < bestDistance) [best, bestDistance] = [k, d];
  }
  return best;
}

/** "unknown field prompt; did you mean description?" for each key, or the list of known fields. */
export function unknownFieldsMessage(keys: readonly string[], known: readonly string[]): string {
  return keys
    .map((key) => {
      const guess = closestField(key, known);
      if (guess) return `unknown field ${key}; did you mean ${guess}?`;
      return known.length
        ? `unknown field ${key}; the fields are ${known.join(', ')}`
        : `unknown field ${key}; this endpoint takes no fields`;
    })
    .join('. ');
}

/** A strict object whose unknown-key error names each unknown field and the field it likely meant. */
export function strictObject<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  const known = Object.keys(shape);
  return z.strictObject(shape, {
    error: (issue) => (issue.code === 'unrecognized_keys' ? unknownFieldsMessage(issue.keys, known) : undefined),
  });
}
