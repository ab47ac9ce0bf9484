/**
 * The offline generator: a generate request → strategy code, with no API key and no network.
 * Pure, synchronous and deterministic (the same request gives the same bytes).
 */
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { buildIntent } from './build-intent.ts';
import { writeCode } from './code-writer.ts';
import { planFeatures } from './features.ts';
import { marketFacts } from './market.ts';
import type { StrategyIntent } from './intent.ts';

export interface OfflineGeneration {
  /** The strategy code: `# signalforge:` header, comment block, feature_engineering, strategy_config. */
  code: string;
  /** What was understood from the request. */
  intent: StrategyIntent;
}

/** Writes strategy code for the request. Symbol and timeframe default to EURUSD and 15min when absent. */
export function generateOffline(request: GenerateRequest): OfflineGeneration {
  const intent = buildIntent(request);
  const trend = intent.config.trend_filter;
  const plan = planFeatures(
    intent.instances,
    intent.conditions.map((c) => c.condition),
    marketFacts(intent.symbol, intent.timeframe).pip,
    intent.roles,
    trend ? [trend] : [],
  );
  return { code: writeCode(request, intent, plan), intent };
}

/** Largest chunk streamed as one token. */
const CHUNK = 24;

/**
 * The code as stream tokens: pieces of a few characters up to a line each (whole words, leading
 * spaces kept), whose concatenation is exactly `code`.
 */
export function* offlineTokens(code: string): Generator<string> {
  let piece = '';
  for (const word of code.match(/[^\S\n]*[^\s]+|[^\S\n]*\n|[^\S\n]+$/g) ?? []) {
    // A word longer than a chunk (a long expression) goes out in chunk-sized slices.
    for (let at = 0; at < word.length; at += CHUNK) {
      const part = word.slice(at, at + CHUNK);
      if (piece && piece.length + part.length > CHUNK) {
        yield piece;
        piece = '';
      }
      piece += part;
      if (part.endsWith('\n')) {
        yield piece;
        piece = '';
      }
    }
  }
  if (piece) yield piece;
}
