import type { Metering } from '../accounts/index.ts';
import { runBacktest, toTradeRecords, tradeStats } from '../backtest/index.ts';
import {
  BadRequestError,
  JobNotFoundError,
  ModelNotFoundError,
  RateLimitedError,
  StrategyRejectedError,
  UnprocessableError,
} from '../errors.ts';
import { PoolFullError } from '../lib/fair-share.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import type { Logger } from '../log.ts';
import { sourceMix, type BarCache } from '../market/index.ts';
import { resolveSpan } from './bar-span.ts';
import { resolveMarket, checkStrategyCode, StrategyJobError, type StrategyRuntime } from '../sandbox/index.ts';
import { featuresBudget, withinBudget, type JobOwner } from './time-budget.ts';
import type { OverrunPenalty } from './overrun-penalty.ts';
import type { Caller } from '../../schemas/account-records.ts';
import type {
  DeletedModel,
  JobRecord,
  ModelCode,
  JobView,
  ModelRecord,
  PredictRequest,
  PredictResponse,
  SignalsResponse,
  TrainJobRequest,
  TrainRequest,
  TrainStart,
} from '../../schemas/training.ts';
import { jobView, type JobStore } from './job-store.ts';
import { modelStem, type ModelStore } from './model-store.ts';
import { signalPoints } from './results.ts';
import {
  engineOptions,
  intrabarResolver,
  loadModel,
  ModelRejectedError,
  scoreWindow,
  sliceBars,
  type FeatureComputer,
} from '../scoring/index.ts';
import type { TrainQueue } from './train-queue.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

export interface TrainingDeps {
  jobs: JobStore;
  models: ModelStore;
  queue: Pick<TrainQueue, 'publish'>;
  metering: Pick<Metering, 'useCap' | 'releaseCap'>;
  bars: Pick<BarCache, 'get'>;
  runtime: Pick<StrategyRuntime, 'features'>;
  log: Logger;
  /** The trainer's overrun penalty: a /predict that overruns its budget counts against the user as a train job does. */
  penalty?: OverrunPenalty;
  /** Stops a deployment of the model, if any (live signals); true when one was stopped. */
  undeploy?: (record: ModelRecord) => Promise<boolean>;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

const DAY_MS = 86_400_000;
/** Bars one /predict call scores at most. */
export const MAX_PREDICT_BARS = 50_000;
/** Retry-After of a /predict refused because the caller's earlier calls fill their queue for the runtime. */
const PREDICT_RETRY_AFTER_S = 5;

/**
 * Train jobs and trained models as the API offers them: submit, poll, list, delete, results,
 * predict, signals. A user only ever reaches their own jobs and models (404 otherwise).
 */
export class Training {
  private readonly clock: Clock;

  constructor(private readonly deps: TrainingDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  /**
   * Checks everything that can be checked at once (code, symbol, bars, daily cap), then queues
   * the job and returns; the trainer does the rest.
   */
  async submit(
    caller: Caller,
    request: TrainRequest,
    /** Set by the service only (an optimisation's chosen trial): the model and config values it trains with. */
    overrides?: JobRecord['overrides'],
    /** Set by the service only: the optimisation the trial comes from (kept on the model, counted in its N). */
    optimization?: JobRecord['optimization'],
  ): Promise<TrainStart> {
    const { jobs, metering } = this.deps;
    // The request's market, else the code header's, else the default; kept on the job resolved.
    const market = resolveMarket(request, 'train');
    const check = await checkStrategyCode(request.code);
    if (!check.ok) {
      throw new StrategyRejectedError(
        `the strategy code breaks ${check.violations.length} rule(s); see violations: ${check.violations
          .slice(0, 3)
          .map((v) => `line ${v.line}: ${v.message}`)
          .join('; ')}`,
        check.violations,
      );
    }
    const job: TrainJobRequest = { ...request, symbol: market.symbol, timeframe: market.timeframe };
    resolveSpan(await this.deps.bars.get(job.symbol, job.timeframe), job);

    const countedAt = this.clock.now();
    await metering.useCap(caller.user_id, caller.plan, 'train_compute');
    try {
      const modelName = request.model_name ?? (await this.autoName(caller.user_id));
      const jobId = await jobs.nextId();
      const stem = modelStem(caller.user_id, job.symbol, job.timeframe, modelName);
      await jobs.create({
        job_id: jobId,
        user_id: caller.user_id,
        username: caller.username,
        status: 'queued',
        model_name: modelName,
        model_stem: stem,
        request: job,
        created_at: countedAt,
        started_at: null,
        finished_at: null,
        stage: null,
        attempts: 0,
        cap_counted_at: countedAt,
        ...(overrides ? { overrides } : {}),
        ...(optimization ? { optimization } : {}),
      });
      await this.deps.queue.publish(jobId);
      return { job_id: jobId, model_name: modelName, model_stem: stem, status: 'queued', market };
    } catch (err) {
      await metering.releaseCap(caller.user_id, 'train_compute', countedAt);
      throw err;
    }
  }

  /** `Model N+1`, N = the user's models (or the last number handed out, if higher); allocated atomically. */
  private async autoName(userId: number): Promise<string> {
    const taken = new Set((await this.deps.models.list(userId)).map((m) => m.model_name.toLowerCase()));
    return `Model ${await this.deps.jobs.nextModelNumber(userId, taken)}`;
  }

  async job(userId: number, jobId: number): Promise<JobView> {
    const job = await this.deps.jobs.get(jobId);
    if (!job || job.user_id !== userId) throw new JobNotFoundError(`no train job ${jobId} for this key`);
    return jobView(job);
  }

  /**
   * Resolves with the caller's job once it is done or failed, telling `onStage` each new stage on
   * the way (a watch of the job's key: every change, none polled for).
   */
  async finished(userId: number, jobId: number, onStage: (stage: string) => void = () => undefined): Promise<JobView> {
    await this.job(userId, jobId);
    return new Promise<JobView>((resolve) => {
      let last = '';
      let done: JobView | null = null;
      let watch: { stop(): void } | null = null;
      void this.deps.jobs
        .watch(jobId, (job) => {
          if (!job || done) return;
          if (job.stage && job.stage !== last) onStage((last = job.stage));
          if (job.status === 'done' || job.status === 'failed') {
            done = jobView(job);
            watch?.stop();
            resolve(done);
          }
        })
        .then((w) => {
          watch = w;
          if (done) w.stop();
        });
    });
  }

  async model(userId: number, name: string): Promise<ModelRecord> {
    const record = await this.deps.models.resolve(userId, name);
    if (!record) throw new ModelNotFoundError(`no model "${name}" for this key: GET /api/v1/models lists yours (by stem or model_name)`);
    return record;
  }

  async list(userId: number) {
    const records = await this.deps.models.list(userId);
    return {
      count: records.length,
      models: records.map((r) => ({
        name: r.stem,
        model_name: r.model_name,
        symbol: r.symbol,
        timeframe: r.timeframe,
        model_type: r.model_type,
        title: r.title,
        trained_at: isoFromMs(r.trained_at),
        train_stats: r.train_stats,
        test_stats: r.test_stats,
        optimization: r.optimization ?? null,
      })),
    };
  }

  async delete(userId: number, name: string): Promise<DeletedModel> {
    const record = await this.model(userId, name);
    const undeployed = this.deps.undeploy ? await this.deps.undeploy(record) : false;
    await this.deps.models.delete(record);
    this.deps.log.info({ user_id: userId, model: record.stem, undeployed }, 'model deleted');
    return { deleted: true, model: record.stem, undeployed };
  }

  /** The code a model was trained from: yours only (another user's model is 404 like every model read). */
  async code(userId: number, name: string): Promise<ModelCode> {
    const record = await this.model(userId, name);
    return { model: record.stem, model_name: record.model_name, code: await this.deps.models.code(record) };
  }

  async resultsJson(userId: number, name: string): Promise<string> {
    return this.deps.models.resultsJson(await this.model(userId, name));
  }

  async signals(userId: number, name: string): Promise<SignalsResponse> {
    const record = await this.model(userId, name);
    return (
      (await this.deps.models.latestSignals(record)) ?? {
        model: record.stem,
        count: 0,
        updated_at: isoFromMs(record.trained_at),
        signals: [],
      }
    );
  }

  /**
   * Scores the model over a span (default: after the trained span up to the latest bar) the way
   * live would: features on the span plus its warm-up, ONNX, signals, the position engine.
   */
  async predict(userId: number, request: PredictRequest): Promise<PredictResponse> {
    const record = await this.model(userId, request.model_name);
    const series = await this.deps.bars.get(record.symbol, record.timeframe);
    const all = series.columns();
    const n = all.ts.length;
    const startMs = request.start_date ? Date.parse(`${request.start_date}T00:00:00Z`) : record.trained_span.to + 1;
    const endMs = request.end_date ? Date.parse(`${request.end_date}T00:00:00Z`) + DAY_MS : (n ? all.ts[n - 1]! : 0) + 1;
    const from = series.lowerBound(startMs);
    const to = series.lowerBound(endMs);
    if (to <= from)
      throw new BadRequestError(`no ${record.timeframe} bars in that span; give start_date/end_date within the stored history`);
    if (to - from > MAX_PREDICT_BARS)
      throw new BadRequestError(`${to - from} bars in that span; at most ${MAX_PREDICT_BARS}: narrow the dates`);

    const lead = Math.min(from, record.warmup);
    const bars = sliceBars(all, from - lead, to);
    const code = await this.deps.models.code(record);
    // The user's fair share of the strategy runtime, at the priority their recent overruns earned.
    const penalty = this.deps.penalty;
    const owner: JobOwner = { user: userId, nice: penalty?.niceFor(userId) ?? 0, overran: () => penalty?.overran(userId) };
    const compute: FeatureComputer = (window) =>
      withinBudget(
        featuresBudget(window.ts.length),
        (limits) => this.deps.runtime.features(code, window, limits, record.config.indicators),
        owner,
      ).catch((err: unknown) => {
        // Out of its budget is the strategy's doing: say so (422), not "internal error".
        if (err instanceof StrategyJobError && err.kind === 'timeout') throw new UnprocessableError(err.message);
        // The user's queue for the runtime is full: their own earlier calls are still waiting.
        if (err instanceof PoolFullError) throw new RateLimitedError(err.message, PREDICT_RETRY_AFTER_S);
        throw err;
      });
    const scorer = await loadModel(await this.deps.models.onnx(record), { owner: userId }).catch((err: unknown) => {
      // A refused model is the model's doing (422), not "internal error"; the reason stays in the log.
      if (err instanceof ModelRejectedError) {
        this.deps.log.warn({ model: record.stem, reason: err.reason }, 'predict: model refused');
        throw new UnprocessableError(`model ${record.model_name}: ${err.message}`);
      }
      throw err;
    });
    // Rows before `lead` lack their warm-up: they stay unscored (flat).
    const { pUp, signals, mask } = await scoreWindow(compute, scorer, record, bars, lead).finally(() => scorer.close());
    const options = engineOptions(record, await intrabarResolver(this.deps.bars, record.symbol, record.timeframe));
    const range = { from: lead, to: bars.ts.length };
    const run = runBacktest(options, bars, signals, range, mask);
    const stats = tradeStats(run.trades, record.settings.capital);
    const points = signalPoints(bars, pUp, signals, range);
    const computedAt = isoFromMs(this.clock.now());
    await this.deps.models.putSignals(record, { model: record.stem, count: points.length, updated_at: computedAt, signals: points });
    return {
      model: record.stem,
      source: sourceMix(all.source, from, to),
      start: isoFromMs(bars.ts[lead]!),
      end: isoFromMs(bars.ts[bars.ts.length - 1]!),
      n_signals: points.length,
      pnl: stats.np,
      win_rate: stats.wr,
      signals: points,
      trades: toTradeRecords(run.trades, record.settings.leverage),
      stats,
    };
  }
}
