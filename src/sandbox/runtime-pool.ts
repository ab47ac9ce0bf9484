import { cpus } from 'node:os';
import { z } from 'zod';
import {
  AnalyzeAnswer,
  ConfigAnswer,
  FeaturesAnswer,
  TrainAnswer,
  type AnalysisCheck,
  type AnalysisProblem,
} from '../../schemas/sandbox.ts';
import { StrategyConfig, type StrategyIndicators } from '../../schemas/strategy.ts';
import type { Logger } from '../log.ts';
import { decodeFeatures, ohlcPayload, parseAnswer, type FeaturesResult, type JobLimits } from './codec.ts';
import { FeatureSession } from './feature-session.ts';
import { ALL_WALLS, sandboxCommand, sandboxSettings, sandboxSupport, type SandboxMode, type Walls } from './jail-command.ts';
import { encodeMessage, type Message } from './protocol.ts';
import { SandboxProcess, StrategyJobError } from './sandbox-process.ts';
import type { ModelOverrides } from './model-overrides.ts';
import type { OhlcColumns } from '../lib/bar-columns.ts';
import { FairShare, type UserKey } from '../lib/fair-share.ts';
import { CpuTally } from '../lib/cpu-tally.ts';

export { StrategyJobError } from './sandbox-process.ts';
export { decodeFeatures, ohlcPayload, type FeaturesResult, type JobLimits } from './codec.ts';
export type { JobFailureKind } from '../../schemas/sandbox.ts';
export type { AnalysisCheck, AnalysisProblem } from '../../schemas/sandbox.ts';

export interface RuntimeOptions {
  log: Logger;
  /** The interpreter with numpy, pandas, sklearn, xgboost (default: configureSandbox's, Debian's). */
  python?: string;
  /** Zygote processes, each running one job at a time (default: one per core). */
  size?: number;
  /** `auto` (default): the full sandbox, refusing to start where it cannot be built; `none`: no namespaces (development only). */
  sandbox?: SandboxMode;
  /** Tests only: switch single walls off to prove the others hold alone. */
  walls?: Walls;
  /** Jobs of one user running at once (default: half the zygotes, at least 1): one user's flood leaves the other zygotes to everyone else. */
  perUser?: number;
  /** Jobs one user may have waiting for a zygote; more are refused at once with PoolFullError (default 16). */
  maxWaitingPerUser?: number;
}

/**
 * CPU niceness of a job whose user has more jobs waiting behind it (wants more of the pool than
 * their share): it yields cores to lighter users' jobs on a busy host, and costs nothing on an idle one.
 */
export const OVER_SHARE_NICE = 10;

/** The one key of jobs that name no user (internal work): they share one user's share. */
export const SYSTEM_USER = 'system';

export interface TrainOptions {
  /** Share of the labelled rows that train the model, chronologically first (default 0.7). */
  trainSplit?: number;
  /** Bars dropped at the start (default: up to the last row with a NaN feature). */
  warmup?: number;
  /** Bars of the trained span (default all): later bars are scored, never fitted or split. */
  fitRows?: number;
  /** Walk-forward folds fitted besides the main model, on the same feature matrix (trainer.py). */
  folds?: FoldOptions;
  /** Merged over strategy_config()'s model_type and model_params before the fit (see applyOverrides). */
  overrides?: ModelOverrides;
  /** Only the folds: no main fit, no ONNX (onnx empty, probaUp all NaN, accuracies NaN). Needs `folds`. */
  foldsOnly?: boolean;
  /** The instrument's pip size, for a trailing stop in pips under meta-labels (trainer default 0.0001). */
  pipSize?: number;
}

export interface FoldOptions {
  /** Out-of-sample folds, 2–10: the labelled rows are cut into k + 1 consecutive blocks. */
  k: number;
  /** rolling: fold i trains on block i; anchored: on blocks 0..i. Both test on block i + 1. */
  scheme: 'rolling' | 'anchored';
  /** Rows skipped at the start of each test, after the purge gap of target_horizon rows. */
  embargo: number;
}

/**
 * One fold model the trainer fitted: its bars (indices into the bars sent, end exclusive) and its
 * ONNX model, untrusted like the main one: its p(up) come only from scoring it on the trusted side
 * (scoring/fold-scores.ts), never from the sandbox.
 */
export interface TrainedFold {
  index: number;
  train: { from: number; to: number };
  test: { from: number; to: number };
  onnx: Buffer;
}

export interface TrainResult {
  config: StrategyConfig;
  /** Feature column names, in the ONNX input's column order. */
  features: string[];
  warmup: number;
  rowsTrain: number;
  rowsTest: number;
  /** Bar index of the first test row; rowsTrain + target_horizon (the purge gap) rows after the warm-up. */
  splitIndex: number;
  /** Epoch ms of the first test bar. */
  testStartTs: number;
  accuracyTrain: number;
  accuracyTest: number;
  featureImportance: Record<string, number>;
  /** Warnings the fit raised (e.g. a LogisticRegression that did not converge). */
  warnings: string[];
  onnx: Buffer;
  /** p(up) for every bar after the warm-up: probaUp[i] belongs to bar warmup + i. */
  probaUp: Float64Array;
  /** The feature matrix of the same bars, row-major [probaUp.length, features.length]. */
  matrix: Float64Array;
  /** The walk-forward fold models fitted (skipped ones are said in warnings); empty without `folds`. */
  folds: TrainedFold[];
  /** Trees of each fold forest (trainer.py fold_trees: fewer than the main forest's); null when the fold models are not forests. */
  foldTrees: number | null;
  /** The meta-labels the model was fitted on (entry rules set); null: direction labels. */
  meta: MetaLabels | null;
}

/**
 * Triple-barrier labels of the rule's trades over the test span (trainer.py, meta_labels.py):
 * per labelled rule bar (the signal bar, ascending) its side, label (1: take-profit before the
 * stop, or a gain at the time limit) and the bar its label ended at. The sandbox's own output:
 * checked for layout here (metaLayoutProblem), never the ground of a reported figure — the results'
 * precision, recall and win/loss calls are judged on the engine's trades (src/training/meta-label-report.ts).
 * The labelling itself must stay in the sandbox, where the model is fitted on it.
 */
export interface MetaLabels {
  rowsTrain: number;
  rowsTest: number;
  /** Rule rows before the test whose label ended in it: left out of the fit. */
  purged: number;
  /** Bars where both rules fired: no row (and no trade, toSignals). */
  bothSkipped: number;
  bars: Int32Array;
  sides: Int8Array;
  labels: Uint8Array;
  ends: Int32Array;
}

export interface AnalysisResult {
  /** Empty when the strategy passed every check. */
  problems: AnalysisProblem[];
  /** Bars after which the last row's features no longer depend on earlier history; null when a column never settles (or the output is unusable). */
  warmup: number | null;
  /** Every column feature_engineering added, numeric or not. */
  featureColumns: string[];
  /** When passed: per feature column, the sha256 (hex) of its float64 LE values on bars warmup … n-1 of the full run (what the fit must see). */
  columnSha256: string[];
}

/** Where the train job will cut the analysed bars (analysis.py cuts there too); defaults: all bars fitted, 0.7, 1. */
export interface AnalyzeOptions {
  fitRows?: number;
  trainSplit?: number;
  horizon?: number;
  /** Fixes the random cut lengths (tests); otherwise drawn per job. */
  seed?: number;
  /** Indicator values over strategy_config()["indicators"] (see features()). */
  indicators?: StrategyIndicators;
}

/** One parameter's distribution as optimizer.py's `suggest` reads it (optuna's Int/Float/CategoricalDistribution). */
export type SuggestDistribution =
  | { type: 'int'; low: number; high: number; step?: number; log?: boolean }
  | { type: 'float'; low: number; high: number; step?: number; log?: boolean }
  | { type: 'categorical'; choices: ReadonlyArray<string | number | boolean | null> };

/** A trial told to the sampler: its parameters as suggested, and its value (`complete`), failure, or still running. */
export interface SuggestTrial {
  params: Record<string, string | number | boolean | null>;
  state: 'complete' | 'failed' | 'running';
  value?: number;
}

/** The `suggest` op (optimizer.py): optuna rebuilt from the history, asked n times. No strategy code runs. */
export interface SuggestRequest {
  space: Record<string, SuggestDistribution>;
  /** grid: every distribution categorical, its choices the grid's axis. */
  sampler: 'grid' | 'random' | 'tpe';
  seed: number;
  direction: 'maximize' | 'minimize';
  history: readonly SuggestTrial[];
  n: number;
}

type MetaAnswer = NonNullable<z.infer<typeof TrainAnswer>['meta']>;

/**
 * What is wrong with a train answer's meta-labels, or null: each names a bar inside the scored rows
 * (warmup … warmup + rows − 1) with its label ending at or after it; rows_test counts the labels
 * listed; the fitted and purged rows, and the bars where both rules fired, fit in the bars scored.
 */
function metaLayoutProblem(meta: MetaAnswer, warmup: number, rows: number): string | null {
  const bad = meta.labels.find(([bar, , , end]) => !(warmup <= bar && bar <= end && end < warmup + rows));
  if (bad) return `name bar ${bad[0]} (ending at ${bad[3]}), outside the scored rows ${warmup}…${warmup + rows - 1} or ending before it`;
  if (meta.rows_test !== meta.labels.length) return `count ${meta.rows_test} test rows but list ${meta.labels.length}`;
  if (meta.rows_train + meta.purged > rows || meta.both_skipped > warmup + rows)
    return `count more rows (${meta.rows_train} fitted, ${meta.purged} purged, ${meta.both_skipped} with both rules) than the ${rows} bars scored`;
  return null;
}

const SuggestAnswer = z.object({ params: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()]))) });

/**
 * The pool of sandboxed Python runtimes. Each zygote serves one job at a time and forks a fresh
 * confined child per job; a zygote that dies is replaced, failing only the job it was running.
 *
 * Zygotes are shared fairly among the users whose jobs wait (lib/fair-share.ts): at most
 * `perUser` jobs of one user run at once, a free zygote goes to the user who used the least CPU
 * time lately (lib/cpu-tally.ts: the CPU seconds the zygote measured of each job, decaying; the
 * least recently served between equals), a user with jobs waiting behind the one that starts runs
 * it at OVER_SHARE_NICE (it yields cores to lighter users' jobs on a busy host),
 * a user whose job comes at a lowered CPU priority (its owner overran a budget lately) runs only
 * on an otherwise idle pool, and a user with `maxWaitingPerUser` jobs waiting is refused
 * (PoolFullError). So /predict floods, training and live features of one user hold their share,
 * and another user's next job starts at the next free zygote.
 */
export class StrategyRuntime {
  private readonly zygotes: SandboxProcess[] = [];
  /** Zygotes handed to a job (a zygote's own `busy` ends with its answer, before the job's bookkeeping). */
  private readonly taken = new Set<SandboxProcess>();
  private share!: FairShare;
  /** Each user's recent CPU seconds in the pool: the fair queue serves the lightest first. */
  private readonly cpu = new CpuTally();
  /** Users → their waiting or running jobs at a lowered CPU priority: served last while any is. */
  private readonly lowered = new Map<UserKey, number>();
  /** Users → feature sessions they hold open. */
  private readonly sessionsByUser = new Map<UserKey, number>();
  private nextId = 1;
  private stopped = false;
  private readonly command: (mode: string[]) => [string, string[]];
  private readonly sessions = new Set<FeatureSession>();

  private constructor(private readonly options: RuntimeOptions) {
    const python = options.python ?? sandboxSettings().python;
    const mode = options.sandbox ?? sandboxSettings().mode;
    const walls = options.walls ?? ALL_WALLS;
    this.command = (args) => sandboxCommand('sandbox_runtime.py', args, { python, mode }, walls);
    this.command([]); // throws here, at start, when the machine cannot sandbox
    options.log.info({ sandbox: mode === 'none' ? 'none' : sandboxSupport(), python, walls }, 'strategy runtime');
  }

  static async start(options: RuntimeOptions): Promise<StrategyRuntime> {
    const runtime = new StrategyRuntime(options);
    const size = options.size ?? Math.max(1, Math.min(4, cpus().length));
    runtime.share = new FairShare('the strategy runtime', {
      slots: size,
      perUser: options.perUser ?? Math.max(1, Math.floor(size / 2)),
      maxWaitingPerUser: options.maxWaitingPerUser ?? 16,
      penalized: (user) => (runtime.lowered.get(user) ?? 0) > 0,
      usage: (user) => runtime.cpu.usage(user),
    });
    for (let i = 0; i < size; i++) runtime.zygotes.push(runtime.spawn());
    await Promise.all(runtime.zygotes.map((z) => z.ready));
    return runtime;
  }

  private spawn(): SandboxProcess {
    return new SandboxProcess(
      this.command([]),
      (dead) => {
        const i = this.zygotes.indexOf(dead);
        if (i >= 0 && !this.stopped) {
          // A job waiting for this slot takes the fresh zygote and waits for it to be ready.
          this.zygotes[i] = this.spawn();
        }
      },
      this.options.log,
    );
  }

  /**
   * Waits for the job's share of a zygote (fair-share.ts) and takes a free one; throws
   * PoolFullError when the user already has `maxWaitingPerUser` jobs waiting.
   */
  private async take(limits: JobLimits): Promise<{ zygote: SandboxProcess; nice: number; release: (cpuSeconds: number | null) => void }> {
    const user: UserKey = limits.user ?? SYSTEM_USER;
    const low = (limits.nice ?? 0) > 0;
    if (low) this.lowered.set(user, (this.lowered.get(user) ?? 0) + 1);
    const unlower = () => {
      if (!low) return;
      const left = (this.lowered.get(user) ?? 1) - 1;
      if (left > 0) this.lowered.set(user, left);
      else this.lowered.delete(user);
    };
    let slot: () => void;
    try {
      slot = await this.share.acquire(user);
    } catch (err) {
      unlower();
      throw err;
    }
    // One slot per zygote, and each slot holds one: a zygote not taken is there (a dead one's
    // replacement may still be starting: the job waits for it to be ready).
    const zygote = this.zygotes.find((z) => !this.taken.has(z) && !z.dead) ?? this.zygotes.find((z) => !this.taken.has(z))!;
    this.taken.add(zygote);
    // A user with jobs still waiting behind this one holds all the pool gives them and wants more.
    const nice = Math.max(limits.nice ?? 0, this.share.waitingFor(user) > 0 ? OVER_SHARE_NICE : 0);
    const charge = this.cpu.begin(user);
    let released = false;
    return {
      zygote,
      nice,
      release: (cpuSeconds) => {
        if (released) return;
        released = true;
        this.taken.delete(zygote);
        unlower();
        charge(cpuSeconds); // before the slot goes: the next pick sees what this job cost
        slot();
      },
    };
  }

  /** Runs a job on a zygote of the user's fair share; the answer's header is checked by `shape`. */
  private async run<S extends z.ZodType>(
    shape: S,
    header: Record<string, unknown>,
    payload: Buffer,
    limits: JobLimits,
  ): Promise<{ header: z.infer<S>; payload: Buffer }> {
    if (this.stopped) throw new StrategyJobError('error', 'the strategy runtime is stopped');
    const timeoutMs = limits.timeoutMs ?? 30_000;
    const { zygote, nice, release } = await this.take(limits);
    try {
      if (this.stopped) throw new StrategyJobError('error', 'the strategy runtime is stopped');
      await zygote.ready;
    } catch (err) {
      release(0);
      throw err;
    }
    const id = this.nextId++;
    const job = { ...header, id, timeout_ms: timeoutMs, memory_mb: limits.memoryMb ?? 1024, ...(nice ? { nice } : {}) };
    try {
      const answer = await zygote.job(
        { id, op: header.op, timeout_ms: timeoutMs, memory_mb: job.memory_mb, ...(nice ? { nice } : {}) },
        encodeMessage(job, payload), // the message the child reads: its header holds the code
        timeoutMs + 10_000,
      );
      return parseAnswer(shape, answer);
    } finally {
      release(zygote.jobCpuS);
    }
  }

  /**
   * Runs the code's feature_engineering on the bars; returns the feature columns it added.
   * `indicators` (a model's stored config's, or a trial's) is merged over strategy_config()["indicators"]
   * for the job: the code's own strategy_config() returns the merged config (ops.py), so its
   * feature_engineering computes with them. Checked by the caller (the optimiser, or a stored config).
   */
  async features(code: string, bars: OhlcColumns, limits: JobLimits = {}, indicators?: StrategyIndicators): Promise<FeaturesResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const { header, payload: out } = await this.run(
      FeaturesAnswer,
      { op: 'features', code, columns: names, rows, ...(indicators ? { indicators } : {}) },
      payload,
      limits,
    );
    return decodeFeatures(header, out);
  }

  /**
   * A feature session for the code (feature-session.ts): its own sandboxed process whose worker
   * runs the code once and then serves many features calls warm, apart from the job pool.
   * Rejects when the code's module level fails. limits apply to each call; `limits.user` is who
   * holds it (counted per user: sessionsFor). `indicators`: as features(), for every call of the session.
   */
  async openSession(code: string, limits: JobLimits = {}, indicators?: StrategyIndicators): Promise<FeatureSession> {
    if (this.stopped) throw new StrategyJobError('error', 'the strategy runtime is stopped');
    const user: UserKey = limits.user ?? SYSTEM_USER;
    const session = new FeatureSession(
      () => new SandboxProcess(this.command(['session']), () => undefined, this.options.log),
      code,
      { timeoutMs: limits.timeoutMs ?? 30_000, memoryMb: limits.memoryMb ?? 1024 },
      indicators,
      () => {
        if (!this.sessions.delete(session)) return;
        const left = (this.sessionsByUser.get(user) ?? 1) - 1;
        if (left > 0) this.sessionsByUser.set(user, left);
        else this.sessionsByUser.delete(user);
      },
    );
    this.sessions.add(session);
    this.sessionsByUser.set(user, (this.sessionsByUser.get(user) ?? 0) + 1);
    await session.open();
    return session;
  }

  /** Feature sessions the user holds open now (jobs without a user: SYSTEM_USER). */
  sessionsFor(user: UserKey): number {
    return this.sessionsByUser.get(user) ?? 0;
  }

  /** Jobs waiting for a zygote now, over all users (metrics, tests). */
  get waiting(): number {
    return this.share.queued;
  }

  /** Runs the code's strategy_config() (with `indicators` merged, as features()); returns what it returned (validate it with the schema). */
  async config(code: string, limits: JobLimits = {}, indicators?: StrategyIndicators): Promise<unknown> {
    const { header } = await this.run(ConfigAnswer, { op: 'config', code, ...(indicators ? { indicators } : {}) }, Buffer.alloc(0), limits);
    return header.config;
  }

  /**
   * Trains the strategy's model on the bars (trainer.py), and the walk-forward fold models when
   * `options.folds` asks. The caller has checked strategy_config() once already (config() and
   * checkStrategyConfig, with applyOverrides when it overrides the model); the config the fit used
   * comes back and is parsed again here, so what is stored is what was trained.
   */
  async train(code: string, bars: OhlcColumns, options: TrainOptions = {}, limits: JobLimits = {}): Promise<TrainResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const request: Record<string, unknown> = { op: 'train', code, columns: names, rows };
    if (options.trainSplit !== undefined) request.train_split = options.trainSplit;
    if (options.warmup !== undefined) request.warmup = options.warmup;
    if (options.fitRows !== undefined) request.fit_rows = options.fitRows;
    if (options.folds !== undefined) request.folds = options.folds;
    if (options.overrides !== undefined) request.overrides = options.overrides;
    if (options.foldsOnly) request.folds_only = true;
    if (options.pipSize !== undefined) request.pip_size = options.pipSize;
    const { header: h, payload: out } = await this.run(TrainAnswer, request, payload, limits);
    const config = StrategyConfig.safeParse(h.config);
    if (!config.success) {
      const what = options.overrides ? 'strategy_config() with the overrides' : 'strategy_config()';
      throw new StrategyJobError(
        'error',
        `${what} is invalid: ${config.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ')}`,
      );
    }
    const nFeatures = h.features.length;
    const matrixAt = h.proba_offset + h.proba_rows * 8;
    const foldsAt = matrixAt + h.proba_rows * nFeatures * 8;
    const bad = (f: (typeof h.folds)[number]) =>
      !(
        h.warmup <= f.train_from &&
        f.train_from < f.train_to &&
        f.train_to <= f.test_from &&
        f.test_from < f.test_to &&
        f.test_to <= h.warmup + h.proba_rows
      ) || f.onnx_bytes === 0;
    const foldBytes = h.folds.reduce((sum, f) => sum + f.onnx_bytes, 0);
    if (h.proba_offset % 8 !== 0 || h.onnx_bytes > h.proba_offset || out.length !== foldsAt + foldBytes || h.folds.some(bad)) {
      throw new StrategyJobError('crash', 'train answer does not match its layout');
    }
    const metaProblem = h.meta ? metaLayoutProblem(h.meta, h.warmup, h.proba_rows) : null;
    if (metaProblem) throw new StrategyJobError('crash', `train answer does not match its layout: its meta-labels ${metaProblem}`);
    let at = foldsAt;
    const folds = h.folds.map((f): TrainedFold => {
      const onnx = out.subarray(at, at + f.onnx_bytes);
      at += f.onnx_bytes;
      return { index: f.index, train: { from: f.train_from, to: f.train_to }, test: { from: f.test_from, to: f.test_to }, onnx };
    });
    // Views, not copies: the payload is its own 8-aligned buffer and the model is padded to 8.
    return {
      config: config.data,
      features: h.features,
      warmup: h.warmup,
      rowsTrain: h.rows_train,
      rowsTest: h.rows_test,
      splitIndex: h.split_index,
      testStartTs: h.test_start_ts,
      accuracyTrain: h.accuracy_train ?? Number.NaN,
      accuracyTest: h.accuracy_test ?? Number.NaN,
      featureImportance: h.feature_importance,
      warnings: h.warnings,
      onnx: out.subarray(0, h.onnx_bytes),
      probaUp: new Float64Array(out.buffer, out.byteOffset + h.proba_offset, h.proba_rows),
      matrix: new Float64Array(out.buffer, out.byteOffset + matrixAt, h.proba_rows * nFeatures),
      folds,
      foldTrees: h.fold_trees,
      meta: h.meta && {
        rowsTrain: h.meta.rows_train,
        rowsTest: h.meta.rows_test,
        purged: h.meta.purged,
        bothSkipped: h.meta.both_skipped,
        bars: Int32Array.from(h.meta.labels, (r) => r[0]),
        sides: Int8Array.from(h.meta.labels, (r) => r[1]),
        labels: Uint8Array.from(h.meta.labels, (r) => r[2]),
        ends: Int32Array.from(h.meta.labels, (r) => r[3]),
      },
    };
  }

  /**
   * Dynamic checks of the code's features on real bars (analysis.py): rows and OHLC kept, numeric
   * and finite columns, the look-ahead test and the warm-up length, in one sandboxed job.
   * A strategy that fails a check still resolves (with its problems); only a job failure throws.
   */
  async analyze(code: string, bars: OhlcColumns, limits: JobLimits = {}, options: AnalyzeOptions = {}): Promise<AnalysisResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const { fitRows: fit_rows, trainSplit: train_split, horizon, seed, indicators } = options;
    const request = {
      op: 'analyze',
      code,
      columns: names,
      rows,
      fit_rows,
      train_split,
      horizon,
      seed,
      ...(indicators ? { indicators } : {}),
    };
    const { header: h } = await this.run(AnalyzeAnswer, request, payload, limits);
    return { problems: h.problems, warmup: h.warmup, featureColumns: h.feature_columns, columnSha256: h.column_sha256 };
  }

  /**
   * The sampler's next n parameter sets (optimizer.py): the space, sampler, direction and every
   * trial so far go in, the study is rebuilt in a confined child, and nothing is kept between calls.
   * A grid answers fewer than n when fewer points are left.
   */
  async suggest(request: SuggestRequest, limits: JobLimits = {}): Promise<Array<SuggestTrial['params']>> {
    const { header } = await this.run(SuggestAnswer, { op: 'suggest', ...request }, Buffer.alloc(0), limits);
    return header.params;
  }

  /** The zygote processes' ids (operations, and tests that kill one). */
  processIds(): number[] {
    return this.zygotes.map((z) => z.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** Feature sessions open now (each its own sandboxed process): for metrics and tests. */
  get openSessions(): number {
    return this.sessions.size;
  }

  /** Whether a zygote is up to take a job (readiness). */
  get live(): boolean {
    return !this.stopped && this.zygotes.some((z) => !z.dead);
  }

  /** Stops the zygotes and closes every open feature session; none is restarted after this. */
  stop(): void {
    this.stopped = true;
    this.share.rejectWaiting(new StrategyJobError('error', 'the strategy runtime is stopped'));
    for (const z of this.zygotes) z.stop();
    for (const session of this.sessions) void session.close();
  }
}
