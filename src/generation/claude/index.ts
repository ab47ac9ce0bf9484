/**
 * The Claude generator: strategy code from the Anthropic Messages API (streaming, the contract as
 * a cached system prompt, checked and repaired), with the offline generator as the fallback.
 */
export {
  ClaudeGenerator,
  DEFAULT_MODEL_IDS,
  describeApiError,
  modelPlan,
  type ClaudeChoice,
  type ClaudeDeps,
  type ClaudeModelIds,
  type ClaudeOutcome,
  type ClaudeSettings,
  type WriteHooks,
} from './claude-generator.ts';
export { strategyChecks, type StrategyCheck } from './checks.ts';
export { CodeExtractor, extractCode } from './extract.ts';
export { costUsd, pricesFor, PRICES, type TokenPrices, type TokenUsage } from './pricing.ts';
export { repairPrompt, requestPrompt } from './prompts.ts';
export { systemPrompt } from './system-prompt.ts';
export { GenerationAbortedError, writeStrategy, type OfflineGenerator, type WriteOptions, type WrittenStrategy } from './writer.ts';
