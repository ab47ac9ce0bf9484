/**
 * What a Claude call costs us, from the token counts the API reports. USD per million tokens;
 * `cacheWrite` is the 5-minute prompt-cache write, `cacheRead` a cache hit. Exact model ids first,
 * then the family named in the id; an id we do not know is priced as Opus, so an unknown model
 * can only over-count the cost guard, never under-count it.
 */
export interface TokenPrices {
  input: number;
  output: number;
  cacheWrite: number;
  cacheRead: number;
}

/** The token counts of one reply (the API's `usage`). */
export interface TokenUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}

/** Published list prices (platform.claude.com pricing, checked for the 5.5 models). */
export const PRICES: Readonly<Record<string, TokenPrices>> = {
  'claude-opus-5-5': { input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 },
  'claude-sonnet-5-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 },
  // Haiku 5.5 below 100k prompt tokens (our prompts are a few thousand).
  'claude-haiku-5-5': { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 },
  'claude-opus-5': { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  'claude-sonnet-5': { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 },
};

/** By family, at the older (higher) list prices: used for ids not in PRICES. */
const FAMILY: Readonly<Record<'opus' | 'sonnet' | 'haiku', TokenPrices>> = {
  opus: { input: 5, output: 25, cacheWrite: 6.25, cacheRead: 0.5 },
  sonnet: { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 },
  haiku: { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.1 },
};

export function pricesFor(modelId: string): TokenPrices {
  const exact = PRICES[modelId];
  if (exact) return exact;
  const id = modelId.toLowerCase();
  if (id.includes('haiku')) return FAMILY.haiku;
  if (id.includes('sonnet')) return FAMILY.sonnet;
  return FAMILY.opus;
}

/** USD of one reply: every token class at its own price. */
export function costUsd(modelId: string, usage: TokenUsage): number {
  const p = pricesFor(modelId);
  const usd =
    usage.input_tokens * p.input +
    usage.output_tokens * p.output +
    (usage.cache_creation_input_tokens ?? 0) * p.cacheWrite +
    (usage.cache_read_input_tokens ?? 0) * p.cacheRead;
  return usd / 1_000_000;
}
