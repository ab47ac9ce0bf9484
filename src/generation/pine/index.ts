/** Custom indicators (POST /indicators/custom): Pine from text, the worker pool, the charging flow. */
import { availableParallelism } from 'node:os';
import type { Metering } from '../../accounts/index.ts';
import type { Config } from '../../config.ts';
import { PinePool } from '../../pine/index.ts';
import type { Logger } from '../../log.ts';
import { ClaudePineWriter } from './claude-pine.ts';
import { CustomIndicators } from './custom-indicators.ts';

export { CustomIndicators, CUSTOM_INDICATOR_CREDITS, looksLikePine, type CustomBars, type CustomTimings } from './custom-indicators.ts';
export { pineFromText } from './from-text.ts';
export { ClaudePineWriter } from './claude-pine.ts';

/**
 * Pine runs: one worker thread per core but one (a core stays with the event loop, so keyed reads
 * keep answering under a burst of scripts) and never fewer than two (one user runs one script at
 * a time, and a user whose script used up its budget runs only on an idle pool: a second worker
 * is always there for everyone else), 3 s per run, 64 waiting at most and 4 per user, 512 MB heap
 * each, at nice 19, the lowest (the loop, at the process's priority, takes a core from a script the
 * moment it needs one: under 20 scripts in flight its keyed reads' p99 measured 12.3 ms at nice 10, 9.7 at 19).
 */
export const PINE_POOL = {
  size: Math.max(2, availableParallelism() - 1),
  wallMs: 3000,
  maxQueue: 64,
  heapMb: 512,
  nice: 19,
  perUser: 1,
  maxWaitingPerUser: 4,
};

export interface CustomIndicatorsBuild {
  indicators: CustomIndicators;
  close(): Promise<void>;
}

export function buildCustomIndicators({
  metering,
  config,
  log,
}: {
  metering: Pick<Metering, 'lastSeenBalance' | 'charge' | 'refund' | 'recordAiSpend' | 'aiBudgetLeft' | 'useCap' | 'releaseCap'>;
  config: Pick<
    Config,
    | 'ANTHROPIC_API_KEY'
    | 'ANTHROPIC_BASE_URL'
    | 'ANTHROPIC_MODEL_SONNET'
    | 'ANTHROPIC_MODEL_HAIKU'
    | 'ANTHROPIC_MAX_RETRIES'
    | 'ANTHROPIC_TIMEOUT_MS'
    | 'GENERATE_REPAIR_TRIES'
  >;
  log: Logger;
}): CustomIndicatorsBuild {
  const pool = new PinePool(PINE_POOL);
  const claude = config.ANTHROPIC_API_KEY
    ? new ClaudePineWriter(
        {
          apiKey: config.ANTHROPIC_API_KEY,
          baseURL: config.ANTHROPIC_BASE_URL,
          models: { haiku: config.ANTHROPIC_MODEL_HAIKU, sonnet: config.ANTHROPIC_MODEL_SONNET },
          repairTries: config.GENERATE_REPAIR_TRIES,
          maxRetries: config.ANTHROPIC_MAX_RETRIES,
          timeoutMs: config.ANTHROPIC_TIMEOUT_MS,
        },
        { log, recordSpend: (usd) => metering.recordAiSpend(usd) },
      )
    : null;
  return {
    indicators: new CustomIndicators({ metering, pool, claude, log: log.child({ component: 'custom-indicators' }) }),
    close: () => pool.close(),
  };
}
