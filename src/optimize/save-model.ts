/**
 * Saving an optimisation's chosen trial as a model: a train job through the same queue, trainer
 * and pipeline as POST /train (one training-compute run of the daily cap), on the same span, with
 * the trial's engine settings in the request and its model class, hyperparameters and pos_rules /
 * filters as the job's overrides; deployed when it is trained, when asked.
 */
import type { Deployments } from '../deployments/index.ts';
import type { Logger } from '../log.ts';
import type { Training } from '../training/index.ts';
import type { Caller } from '../../schemas/account-records.ts';
import type { OptimizeRecord, OptimizeSaveRequest, OptimizeTrial } from '../../schemas/optimize.ts';
import { TrainRequest, type JobRecord } from '../../schemas/training.ts';
import { applyEngineParams } from './engine-trial.ts';
import { modelOverrides } from './runner.ts';
import type { z } from 'zod';
import type { SavedModel } from '../../schemas/optimize.ts';

export interface ModelSaverDeps {
  training: Pick<Training, 'submit' | 'finished'>;
  deployments: Pick<Deployments, 'deploy'>;
  log: Logger;
  /** Called when a deploy asked for with the save ends (the job's record keeps its outcome). */
  onDeployed?: (
    userId: number,
    optimizeId: number,
    outcome: { deployment_id?: string; webhook_secret_set?: true; deploy_error?: string },
  ) => Promise<void>;
}

/** A threshold no trial sets (theirs are 0.5–0.99): still this after the trial's parameters, the code's signal_threshold stays. */
const UNSET_THRESHOLD = -1;
/** TrainRequest's default split: applyEngineParams wants whole settings, and the train request below gets its own default. */
const DEFAULT_TRAIN_SPLIT = 0.7;

/** The strategy_config keys an engine parameter may change. */
const ENGINE_CONFIG_KEYS = [
  'cooldown',
  'direction',
  'max_positions',
  'on_opposite',
  'session_filter',
  'skip_days',
  'min_atr',
  'trailing_stop',
] as const;

export class ModelSaver {
  constructor(private readonly deps: ModelSaverDeps) {}

  async save(caller: Caller, job: OptimizeRecord, trial: OptimizeTrial, request: OptimizeSaveRequest): Promise<z.infer<typeof SavedModel>> {
    const r = job.request;
    // The trial's settings as a train request: levels and threshold are request fields already.
    const base = {
      symbol: r.symbol,
      timeframe: r.timeframe,
      config: {} as never,
      settings: { ...r, confidence_threshold: UNSET_THRESHOLD, train_split: DEFAULT_TRAIN_SPLIT } as never,
    };
    const applied = applyEngineParams(base, trial.params);
    const settings = applied.settings as unknown as Record<string, unknown>;
    const train = TrainRequest.parse({
      code: r.code,
      symbol: r.symbol,
      timeframe: r.timeframe,
      ...(r.start_date ? { start_date: r.start_date } : {}),
      ...(r.end_date ? { end_date: r.end_date } : {}),
      model_name: request.model_name,
      capital: r.capital,
      lot_size: r.lot_size,
      ...(r.leverage !== undefined ? { leverage: r.leverage } : {}),
      commission: r.commission,
      swap_long: r.swap_long,
      swap_short: r.swap_short,
      risk_unit: r.risk_unit,
      fill_at_bid_ask: r.fill_at_bid_ask,
      intrabar: r.intrabar,
      ...(settings.stop_loss !== undefined ? { stop_loss: settings.stop_loss } : {}),
      ...(settings.take_profit !== undefined ? { take_profit: settings.take_profit } : {}),
      ...(settings.confidence_threshold !== UNSET_THRESHOLD ? { confidence_threshold: settings.confidence_threshold } : {}),
    });
    const config: Record<string, unknown> = {};
    for (const k of ENGINE_CONFIG_KEYS)
      if ((applied.config as Record<string, unknown>)[k] !== undefined) config[k] = (applied.config as Record<string, unknown>)[k];
    const model = modelOverrides(trial.params);
    const overrides: NonNullable<JobRecord['overrides']> = {
      ...(model ? { model } : {}),
      ...(Object.keys(config).length ? { config } : {}),
    };

    // The model's N counts the optimisation's trials (trial-count.ts): it is the best of them.
    const from = { optimize_id: job.optimize_id, trial: trial.trial, trials_run: Math.max(1, job.trials_run) };
    const { job_id: jobId, model_stem: stem } = await this.deps.training.submit(caller, train, overrides, from);
    if (request.deploy) void this.deployWhenTrained(caller, job.optimize_id, jobId, request);
    return { model_name: request.model_name, model_stem: stem, train_job_id: jobId };
  }

  /** Waits for the train job, then deploys its model; the outcome goes to the optimisation's record. */
  private async deployWhenTrained(caller: Caller, optimizeId: number, jobId: number, request: OptimizeSaveRequest): Promise<void> {
    const deploy = request.deploy!;
    let outcome: { deployment_id?: string; webhook_secret_set?: true; deploy_error?: string };
    try {
      const trained = await this.deps.training.finished(caller.user_id, jobId);
      if (trained.status !== 'done') throw new Error(`the model was not trained: ${trained.error ?? trained.status}`);
      // Every destination field as POST /deploy takes it (absent ones stay absent).
      const d = await this.deps.deployments.deploy(caller, { model_name: request.model_name, ...deploy });
      // The job's record says a secret exists, never what it is: its view is read again and again (the deployment keeps the secret).
      outcome = { deployment_id: d.deployment_id, ...(d.webhook_secret ? { webhook_secret_set: true as const } : {}) };
    } catch (err) {
      outcome = { deploy_error: err instanceof Error ? err.message : String(err) };
      this.deps.log.warn({ optimize_id: optimizeId, err }, 'optimisation: deploying the saved model failed');
    }
    await this.deps.onDeployed?.(caller.user_id, optimizeId, outcome);
  }
}
