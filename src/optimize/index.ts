/**
 * Optimisation jobs (POST /api/v1/optimize): the search space and objective (H5a's search-space,
 * objective, sampler), trials on the position engine over walk-forward folds, the choice, PBO,
 * degradation and the chosen trial's robustness report; saving it as a model through training.
 */
import { openBucket, type Bus } from '../bus/index.ts';
import type { Metering } from '../accounts/index.ts';
import type { Deployments } from '../deployments/index.ts';
import type { Logger } from '../log.ts';
import type { BarCache } from '../market/index.ts';
import type { StrategyRuntime } from '../sandbox/index.ts';
import type { TrainingParts } from '../training/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { IndicatorRules } from '../../schemas/indicators.ts';
import { OptimizeStore } from './job-store.ts';
import { OptimizeJobs } from './optimize-jobs.ts';
import { ModelSaver } from './save-model.ts';

export { OptimizeJobs, CONCURRENT_OPTIMIZATIONS, ENGINE_TRIAL_CREDITS, MODEL_TRIAL_CREDITS, LEASE_MS, jobView } from './optimize-jobs.ts';
export { OptimizeStore, queuedRecord } from './job-store.ts';

export interface OptimizeDepsIn {
  bus: Bus;
  replicas: number;
  runtime: StrategyRuntime;
  bars: BarCache;
  metering: Metering;
  training: TrainingParts;
  deployments: Deployments;
  indicators: readonly IndicatorRules[];
  log: Logger;
}

/** Opens the job stores and builds the API facade (its recovery sweep is started by the caller). */
export async function buildOptimize(deps: OptimizeDepsIn): Promise<OptimizeJobs> {
  const [jobsKv, chunks, counters] = await Promise.all([
    openBucket(deps.bus, Buckets.optimize, deps.replicas),
    openBucket(deps.bus, Buckets.optimizeTrials, deps.replicas),
    openBucket(deps.bus, Buckets.counters, deps.replicas),
  ]);
  const store = new OptimizeStore(jobsKv, counters, chunks);
  const saver = new ModelSaver({
    training: deps.training.training,
    deployments: deps.deployments,
    log: deps.log,
    onDeployed: async (userId, id, outcome) => {
      await store.update(userId, id, (j) => (j.saved ? { ...j, saved: { ...j.saved, ...outcome } } : null));
    },
  });
  return new OptimizeJobs({
    store,
    runtime: deps.runtime,
    bars: deps.bars,
    metering: deps.metering,
    indicators: deps.indicators,
    saver,
    penalty: deps.training.penalty,
    log: deps.log,
  });
}
