/**
 * Strategy generation: who writes the code (Claude or the offline generator), what it costs in
 * credits and daily caps, and the streaming of the code as it is written.
 */
import type { Metering } from '../accounts/index.ts';
import type { Config } from '../config.ts';
import type { Logger } from '../log.ts';
import { ClaudeGenerator, strategyChecks } from './claude/index.ts';
import { generateOffline, offlineTokens, templateRequest, understand, understoodFrom } from './offline/index.ts';
import type { StrategyRuntime } from '../sandbox/index.ts';
import { costsFrom, type CostSettings } from './costs.ts';
import { Generation } from './generation.ts';

export { Generation, type GenerateStreamEvent, type GenerationDeps } from './generation.ts';
export { capFor, costsFrom, describeCosts, type GenerationCosts } from './costs.ts';
export { EventChannel } from './event-channel.ts';
export { marketMentioned, withMarket, DEFAULT_SYMBOL, DEFAULT_TIMEFRAME } from './market-mention.ts';
export { CHIP_PRESETS, EXAMPLE_CATEGORIES, EXAMPLE_PROMPTS, TEMPLATES } from './offline/index.ts';

export type GenerationConfig = CostSettings &
  Pick<
    Config,
    | 'ANTHROPIC_API_KEY'
    | 'ANTHROPIC_BASE_URL'
    | 'ANTHROPIC_MODEL_SONNET'
    | 'ANTHROPIC_MODEL_OPUS'
    | 'ANTHROPIC_MODEL_HAIKU'
    | 'ANTHROPIC_MAX_RETRIES'
    | 'ANTHROPIC_TIMEOUT_MS'
    | 'GENERATE_REPAIR_TRIES'
  >;

export interface GenerationBuildDeps {
  metering: Pick<Metering, 'charge' | 'refund' | 'useCap' | 'releaseCap' | 'aiBudgetLeft' | 'recordAiSpend'>;
  /** Runs strategy_config() of Claude's code in the sandbox (the config check). */
  runtime: Pick<StrategyRuntime, 'config'>;
  config: GenerationConfig;
  log: Logger;
}

/** Claude when ANTHROPIC_API_KEY is set; the offline generator always (and as the fallback). */
export function buildGeneration({ metering, runtime, config, log }: GenerationBuildDeps): Generation {
  const claude = config.ANTHROPIC_API_KEY
    ? new ClaudeGenerator(
        {
          apiKey: config.ANTHROPIC_API_KEY,
          baseURL: config.ANTHROPIC_BASE_URL,
          models: { sonnet: config.ANTHROPIC_MODEL_SONNET, opus: config.ANTHROPIC_MODEL_OPUS, haiku: config.ANTHROPIC_MODEL_HAIKU },
          repairTries: config.GENERATE_REPAIR_TRIES,
          maxRetries: config.ANTHROPIC_MAX_RETRIES,
          timeoutMs: config.ANTHROPIC_TIMEOUT_MS,
        },
        { check: strategyChecks(runtime), recordSpend: (usd) => metering.recordAiSpend(usd), log: log.child({ component: 'claude' }) },
      )
    : null;
  return new Generation({
    metering,
    claude,
    offline: {
      generate: (request) => {
        const { code, intent } = generateOffline(request);
        return { code, understood: understoodFrom(intent) };
      },
      tokens: offlineTokens,
    },
    templateRequest,
    understand,
    costs: costsFrom(config),
    log: log.child({ component: 'generation' }),
  });
}
export {
  buildCustomIndicators,
  ClaudePineWriter,
  CustomIndicators,
  CUSTOM_INDICATOR_CREDITS,
  looksLikePine,
  pineFromText,
  type CustomBars,
  type CustomTimings,
  type CustomIndicatorsBuild,
} from './pine/index.ts';
