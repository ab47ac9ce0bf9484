import { cpus } from 'node:os';
import type { z } from 'zod';
import { AnalyzeAnswer, ConfigAnswer, FeaturesAnswer, TrainAnswer, type AnalysisCheck, type AnalysisProblem } from '../../schemas/sandbox.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import type { Logger } from '../log.ts';
import { decodeFeatures, ohlcPayload, parseAnswer, type FeaturesResult, type JobLimits } from './codec.ts';
import { FeatureSession } from './feature-session.ts';
import { ALL_WALLS, sandboxCommand, sandboxSettings, sandboxSupport, type SandboxMode, type Walls } from './jail-command.ts';
import { encodeMessage, type Message } from './protocol.ts';
import { SandboxProcess, StrategyJobError } from './sandbox-process.ts';
import type { OhlcColumns } from '../lib/bar-columns.ts';

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
}

export interface TrainOptions {
  /** Share of the labelled rows that train the model, chronologically first (default 0.7). */
  trainSplit?: number;
  /** Bars dropped at the start (default: up to the last row with a NaN feature). */
  warmup?: number;
  /** Bars of the trained span (default all): later bars are scored, never fitted or split. */
  fitRows?: number;
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
}

export interface AnalysisResult {
  /** Empty when the strategy passed every check. */
  problems: AnalysisProblem[];
  /** Bars after which the last row's features no longer depend on earlier history; null when a column never settles (or the output is unusable). */
  warmup: number | null;
  /** Every column feature_engineering added, numeric or not. */
  featureColumns: string[];
}

/**
 * The pool of sandboxed Python runtimes. Each zygote serves one job at a time and forks a fresh
 * confined child per job; a zygote that dies is replaced, failing only the job it was running.
 */
export class StrategyRuntime {
  private readonly zygotes: SandboxProcess[] = [];
  private readonly queue: Array<() => void> = [];
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
          const fresh = this.spawn();
          this.zygotes[i] = fresh;
          void fresh.ready.then(() => this.drain(), () => undefined);
        }
      },
      this.options.log,
    );
  }

  private drain(): void {
    while (this.queue.length > 0 && this.zygotes.some((z) => !z.busy && !z.dead)) this.queue.shift()!();
  }

  /** Runs a job on the first free zygote (waiting for one when all are busy); the answer's header is checked by `shape`. */
  private async run<S extends z.ZodType>(shape: S, header: Record<string, unknown>, payload: Buffer, limits: JobLimits): Promise<{ header: z.infer<S>; payload: Buffer }> {
    if (this.stopped) throw new StrategyJobError('error', 'the strategy runtime is stopped');
    const timeoutMs = limits.timeoutMs ?? 30_000;
    const zygote = await new Promise<SandboxProcess>((resolve) => {
      const take = () => {
        const free = this.zygotes.find((z) => !z.busy && !z.dead);
        if (free) {
          free.busy = true;
          resolve(free);
        } else this.queue.push(take);
      };
      take();
    });
    await zygote.ready;
    const id = this.nextId++;
    const job = { ...header, id, timeout_ms: timeoutMs, memory_mb: limits.memoryMb ?? 1024, ...(limits.nice ? { nice: limits.nice } : {}) };
    try {
      const answer = await zygote.job(
        { id, op: header.op, timeout_ms: timeoutMs, memory_mb: job.memory_mb, ...(limits.nice ? { nice: limits.nice } : {}) },
        encodeMessage(job, payload), // the message the child reads: its header holds the code
        timeoutMs + 10_000,
      );
      return parseAnswer(shape, answer);
    } finally {
      zygote.busy = false;
      this.drain();
    }
  }

  /** Runs the code's feature_engineering on the bars; returns the feature columns it added. */
  async features(code: string, bars: OhlcColumns, limits: JobLimits = {}): Promise<FeaturesResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const { header, payload: out } = await this.run(FeaturesAnswer, { op: 'features', code, columns: names, rows }, payload, limits);
    return decodeFeatures(header, out);
  }

  /**
   * A feature session for the code (feature-session.ts): its own sandboxed process whose worker
   * runs the code once and then serves many features calls warm, apart from the job pool.
   * Rejects when the code's module level fails. limits apply to each call.
   */
  async openSession(code: string, limits: JobLimits = {}): Promise<FeatureSession> {
    if (this.stopped) throw new StrategyJobError('error', 'the strategy runtime is stopped');
    const session = new FeatureSession(
      () => new SandboxProcess(this.command(['session']), () => undefined, this.options.log),
      code,
      { timeoutMs: limits.timeoutMs ?? 30_000, memoryMb: limits.memoryMb ?? 1024 },
      () => this.sessions.delete(session),
    );
    this.sessions.add(session);
    await session.open();
    return session;
  }

  /** Runs the code's strategy_config(); returns what it returned (validate it with the schema). */
  async config(code: string, limits: JobLimits = {}): Promise<unknown> {
    const { header } = await this.run(ConfigAnswer, { op: 'config', code }, Buffer.alloc(0), limits);
    return header.config;
  }

  /**
   * Trains the strategy's model on the bars (trainer.py). The caller has checked strategy_config()
   * once already (config() and checkStrategyConfig); the config the fit used comes back and is
   * parsed again here, so what is stored is what was trained.
   */
  async train(code: string, bars: OhlcColumns, options: TrainOptions = {}, limits: JobLimits = {}): Promise<TrainResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const request: Record<string, unknown> = { op: 'train', code, columns: names, rows };
    if (options.trainSplit !== undefined) request.train_split = options.trainSplit;
    if (options.warmup !== undefined) request.warmup = options.warmup;
    if (options.fitRows !== undefined) request.fit_rows = options.fitRows;
    const { header: h, payload: out } = await this.run(TrainAnswer, request, payload, limits);
    const config = StrategyConfig.safeParse(h.config);
    if (!config.success) throw new StrategyJobError('error', `strategy_config() is invalid: ${config.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ')}`);
    const nFeatures = h.features.length;
    const matrixAt = h.proba_offset + h.proba_rows * 8;
    if (h.proba_offset % 8 !== 0 || h.onnx_bytes > h.proba_offset || out.length !== matrixAt + h.proba_rows * nFeatures * 8) {
      throw new StrategyJobError('crash', 'train answer does not match its layout');
    }
    // Views, not copies: the payload is its own 8-aligned buffer and the model is padded to 8.
    return {
      config: config.data,
      features: h.features,
      warmup: h.warmup,
      rowsTrain: h.rows_train,
      rowsTest: h.rows_test,
      splitIndex: h.split_index,
      testStartTs: h.test_start_ts,
      accuracyTrain: h.accuracy_train,
      accuracyTest: h.accuracy_test,
      featureImportance: h.feature_importance,
      warnings: h.warnings,
      onnx: out.subarray(0, h.onnx_bytes),
      probaUp: new Float64Array(out.buffer, out.byteOffset + h.proba_offset, h.proba_rows),
      matrix: new Float64Array(out.buffer, out.byteOffset + matrixAt, h.proba_rows * nFeatures),
    };
  }

  /**
   * Dynamic checks of the code's features on real bars (analysis.py): rows and OHLC kept, numeric
   * and finite columns, the look-ahead test and the warm-up length, in one sandboxed job.
   * A strategy that fails a check still resolves (with its problems); only a job failure throws.
   */
  async analyze(code: string, bars: OhlcColumns, limits: JobLimits = {}): Promise<AnalysisResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const { header: h } = await this.run(AnalyzeAnswer, { op: 'analyze', code, columns: names, rows }, payload, limits);
    return { problems: h.problems, warmup: h.warmup, featureColumns: h.feature_columns };
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
    for (const z of this.zygotes) z.stop();
    for (const session of this.sessions) void session.close();
  }
}

