import { openBucket, type Bus } from '../bus/index.ts';
import type { Metering } from '../accounts/index.ts';
import type { Logger } from '../log.ts';
import type { BarCache } from '../market/index.ts';
import type { StrategyRuntime } from '../sandbox/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { ModelRecord } from '../../schemas/training.ts';
import { JobStore } from './job-store.ts';
import { ModelStore } from './model-store.ts';
import { OverrunPenalty } from './overrun-penalty.ts';
import { trainPipeline, type TrainPipeline } from './pipeline.ts';
import { TrainQueue } from './train-queue.ts';
import { Training } from './training.ts';
import { TrialCounter } from './trial-count.ts';

export { JobStore, jobView } from './job-store.ts';
export { ModelStore, modelStem } from './model-store.ts';
export { TrainQueue } from './train-queue.ts';
export { Training } from './training.ts';
export { trainPipeline, type TrainPipeline, type TrainOutcome } from './pipeline.ts';
export { TrialCounter } from './trial-count.ts';
export { walkForward, foldRuns, foldOptions, embargoBars, type FoldRuns, type WalkForwardInput } from './walk-forward.ts';
export { modelSettings } from './strategy-rules.ts';
export { DEFAULT_SPAN_DAYS, resolveSpan } from './bar-span.ts';
// Optimisation jobs (src/optimize) fit and check strategies under the train job's budgets.
export { withinBudget, trainBudget, configBudget, analyzeBudget, type Budget, type JobOwner } from './time-budget.ts';
export { OverrunPenalty, OVERRUN_NICE, OVERRUN_WINDOW_MS } from './overrun-penalty.ts';
// A job's failure in the strategy's own code (its message is the user's to read).
export { StrategyJobError } from '../sandbox/index.ts';
// The market a request with code runs on (the request's, else the code header's): one_shot's own code goes by it too.
export { resolveMarket } from '../sandbox/index.ts';

export interface TrainingParts {
  training: Training;
  jobs: JobStore;
  models: ModelStore;
  queue: TrainQueue;
  pipeline: TrainPipeline;
  /** Users whose jobs overran lately: the pipeline lowers their CPU priority, the trainer serves them last. */
  penalty: OverrunPenalty;
}

export interface TrainingDepsIn {
  bus: Bus;
  metering: Metering;
  bars: BarCache;
  runtime: StrategyRuntime;
  log: Logger;
  replicas: number;
  ackWaitMs: number;
  undeploy?: (record: ModelRecord) => Promise<boolean>;
}

/** Opens the job and model stores, the work queue, and the API facade over them. */
export async function buildTraining(deps: TrainingDepsIn): Promise<TrainingParts> {
  const r = deps.replicas;
  const [jobsKv, counters, modelsKv, signalsKv] = await Promise.all([
    openBucket(deps.bus, Buckets.jobs, r),
    openBucket(deps.bus, Buckets.counters, r),
    openBucket(deps.bus, Buckets.models, r),
    openBucket(deps.bus, Buckets.signals, r),
  ]);
  const jobs = new JobStore(jobsKv, counters);
  const models = await ModelStore.open(deps.bus, modelsKv, signalsKv, r);
  const queue = await TrainQueue.open(deps.bus, { ackWaitMs: deps.ackWaitMs, replicas: r });
  const penalty = new OverrunPenalty();
  // N of each model's deflated Sharpe: the account's variants of the same code (trial-count.ts).
  const trials = new TrialCounter({ jobs, models });
  const pipeline = trainPipeline({ runtime: deps.runtime, bars: deps.bars, penalty, trials: (job) => trials.count(job) });
  const training = new Training({
    jobs,
    models,
    queue,
    metering: deps.metering,
    bars: deps.bars,
    runtime: deps.runtime,
    log: deps.log,
    penalty,
    ...(deps.undeploy ? { undeploy: deps.undeploy } : {}),
  });
  return { training, jobs, models, queue, pipeline, penalty };
}
