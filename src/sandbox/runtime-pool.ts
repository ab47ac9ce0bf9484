import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { StrategyConfig } from '../../schemas/strategy.ts';
import type { Logger } from '../log.ts';
import { FeatureSession } from './feature-session.ts';
import { checkStrategyConfig } from './static-check.ts';

const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), 'python');

/** Why a job failed, as the sandbox reports it. */
export type JobFailureKind = 'refused' | 'timeout' | 'memory' | 'crash' | 'error';

export class StrategyJobError extends Error {
  override name = 'StrategyJobError';
  constructor(
    readonly kind: JobFailureKind,
    message: string,
  ) {
    super(message);
  }
}

export interface RuntimeOptions {
  log: Logger;
  /** The interpreter with numpy, pandas, sklearn, xgboost (Debian's by default; PYTHON overrides). */
  python?: string;
  /** Zygote processes, each running one job at a time (default: one per core). */
  size?: number;
  /** `bwrap` when available (default), or `none` to run without the outer namespace sandbox. */
  sandbox?: 'auto' | 'none';
}

export interface JobLimits {
  timeoutMs?: number;
  memoryMb?: number;
}

/** OHLC columns handed to feature_engineering: epoch ms and prices, one entry per bar. */
export interface OhlcInput {
  ts: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
}

export interface FeaturesResult {
  columns: string[];
  values: Float64Array[];
  rows: number;
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

/** Which dynamic check an analysis problem comes from (analysis.py names them). */
export type AnalysisCheck = 'type' | 'rows' | 'ohlc' | 'numeric' | 'finite' | 'truncated' | 'lookahead' | 'warmup_unbounded';

/** One failed dynamic check, naming the offending feature columns. */
export interface AnalysisProblem {
  check: AnalysisCheck;
  columns: string[];
  message: string;
}

export interface AnalysisResult {
  /** Empty when the strategy passed every check. */
  problems: AnalysisProblem[];
  /** Bars after which the last row's features no longer depend on earlier history; null when a column never settles (or the output is unusable). */
  warmup: number | null;
  /** Every column feature_engineering added, numeric or not. */
  featureColumns: string[];
}

interface Header {
  id: number;
  ok: boolean;
  kind?: JobFailureKind;
  error?: string;
  payload_bytes?: number;
  [key: string]: unknown;
}

interface Pending {
  resolve(message: { header: Header; payload: Buffer }): void;
  reject(err: Error): void;
  watchdog: NodeJS.Timeout;
}

const BWRAP = '/usr/bin/bwrap';

/**
 * bubblewrap around the zygote: only /usr (read-only) and the runtime's own folder are visible,
 * with a private /tmp and /proc, no network, no other namespaces shared, and a clean environment.
 */
function sandboxCommand(python: string, script: string, args: string[]): [string, string[]] {
  return [
    BWRAP,
    [
      '--ro-bind', '/usr', '/usr',
      '--symlink', 'usr/lib', '/lib',
      '--symlink', 'usr/lib64', '/lib64',
      '--symlink', 'usr/bin', '/bin',
      '--ro-bind-try', '/etc/alternatives', '/etc/alternatives',
      '--ro-bind-try', '/etc/ld.so.cache', '/etc/ld.so.cache',
      '--ro-bind', PYTHON_DIR, '/sandbox',
      '--tmpfs', '/tmp',
      '--proc', '/proc',
      '--dev', '/dev',
      '--unshare-all',
      '--die-with-parent',
      '--new-session',
      '--clearenv',
      '--setenv', 'PATH', '/usr/bin',
      '--setenv', 'HOME', '/tmp',
      '--setenv', 'OPENBLAS_NUM_THREADS', '1',
      '--setenv', 'OMP_NUM_THREADS', '1',
      python, '-I', `/sandbox/${script}`, ...args,
    ],
  ];
}

let bwrapWorks: boolean | null = null;
/** Whether bubblewrap can create its namespaces here (it cannot inside some containers). */
function canUseBwrap(): boolean {
  if (bwrapWorks !== null) return bwrapWorks;
  if (!existsSync(BWRAP)) return (bwrapWorks = false);
  const probe = spawnSync(BWRAP, ['--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--unshare-all', '--die-with-parent', '/usr/bin/true'], { timeout: 5000 });
  return (bwrapWorks = probe.status === 0);
}

/** One zygote (or feature-session) process: a framed message stream over its stdin and stdout. */
class Zygote {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer: Buffer = Buffer.alloc(0);
  private header: Header | null = null;
  private current: Pending | null = null;
  readonly ready: Promise<void>;
  readonly exited: Promise<void>;
  busy = false;
  dead = false;
  private stopping = false;

  constructor(command: [string, string[]], onExit: (z: Zygote) => void, log: Logger) {
    this.child = spawn(command[0], command[1], { stdio: ['pipe', 'pipe', 'pipe'] });
    let markReady!: () => void;
    let failReady!: (err: Error) => void;
    this.ready = new Promise((resolve, reject) => ((markReady = resolve), (failReady = reject)));
    this.current = { resolve: () => markReady(), reject: failReady, watchdog: setTimeout(() => undefined, 0) };
    this.child.stdout.on('data', (chunk: Buffer) => this.receive(chunk));
    let stderr = '';
    this.child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    let markExited!: () => void;
    this.exited = new Promise((resolve) => (markExited = resolve));
    this.child.on('exit', (code, signal) => {
      this.dead = true;
      markExited();
      // The interpreter inside the sandbox shares our pipes: closing them ends it too.
      this.child.stdin.destroy();
      const err = new StrategyJobError('crash', `strategy runtime exited (${code ?? signal}): ${stderr.trim().split('\n').pop() ?? ''}`);
      if (this.current) {
        clearTimeout(this.current.watchdog);
        this.current.reject(err);
        this.current = null;
      }
      if (!this.stopping) log.warn({ code, signal }, 'strategy runtime process exited');
      onExit(this);
    });
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    while (this.buffer.length >= 4) {
      const n = this.buffer.readUInt32LE(0);
      if (this.buffer.length < 4 + n) return;
      const frame = this.buffer.subarray(4, 4 + n);
      this.buffer = this.buffer.subarray(4 + n);
      if (!this.header) {
        const header = JSON.parse(frame.toString('utf8')) as Header;
        if ((header.payload_bytes ?? 0) > 0) this.header = header;
        else this.settle(header, Buffer.alloc(0));
      } else {
        const header = this.header;
        this.header = null;
        this.settle(header, Buffer.from(frame));
      }
    }
  }

  private settle(header: Header, payload: Buffer): void {
    const pending = this.current;
    this.current = null;
    this.busy = false;
    if (!pending) return;
    clearTimeout(pending.watchdog);
    pending.resolve({ header, payload });
  }

  /** Sends one job; the watchdog kills the zygote if even its own deadline handling hangs. */
  send(header: Record<string, unknown>, payload: Buffer, watchdogMs: number): Promise<{ header: Header; payload: Buffer }> {
    this.busy = true;
    return new Promise((resolve, reject) => {
      const watchdog = setTimeout(() => this.child.kill('SIGKILL'), watchdogMs);
      this.current = { resolve, reject, watchdog };
      const raw = Buffer.from(JSON.stringify({ ...header, payload_bytes: payload.length }));
      const len = Buffer.alloc(4);
      len.writeUInt32LE(raw.length);
      this.child.stdin.write(len);
      this.child.stdin.write(raw);
      if (payload.length > 0) {
        const plen = Buffer.alloc(4);
        plen.writeUInt32LE(payload.length);
        this.child.stdin.write(plen);
        this.child.stdin.write(payload);
      }
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  stop(): void {
    this.stopping = true;
    this.child.stdin.end();
    this.child.kill('SIGKILL');
  }
}

/**
 * The pool of sandboxed Python runtimes. Each zygote serves one job at a time and forks a fresh
 * child per job; a zygote that dies is replaced, failing only the job it was running.
 */
export class StrategyRuntime {
  private readonly zygotes: Zygote[] = [];
  private readonly queue: Array<() => void> = [];
  private nextId = 1;
  private stopped = false;
  private readonly command: (mode: string[]) => [string, string[]];
  private readonly sessions = new Set<FeatureSession>();

  private constructor(private readonly options: RuntimeOptions) {
    const python = options.python ?? process.env.PYTHON ?? '/usr/bin/python3';
    const sandboxed = options.sandbox !== 'none' && canUseBwrap();
    this.command = (mode) =>
      sandboxed ? sandboxCommand(python, 'sandbox_runtime.py', mode) : [python, ['-I', join(PYTHON_DIR, 'sandbox_runtime.py'), ...mode]];
    options.log.info({ sandbox: sandboxed ? 'bwrap' : 'none', python }, 'strategy runtime');
  }

  static async start(options: RuntimeOptions): Promise<StrategyRuntime> {
    const runtime = new StrategyRuntime(options);
    const size = options.size ?? Math.max(1, Math.min(4, cpus().length));
    for (let i = 0; i < size; i++) runtime.zygotes.push(runtime.spawn());
    await Promise.all(runtime.zygotes.map((z) => z.ready));
    return runtime;
  }

  private spawn(): Zygote {
    return new Zygote(
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

  /** Runs a job on the first free zygote (waiting for one when all are busy). */
  private async run(header: Record<string, unknown>, payload: Buffer, limits: JobLimits): Promise<{ header: Header; payload: Buffer }> {
    if (this.stopped) throw new StrategyJobError('error', 'the strategy runtime is stopped');
    const timeoutMs = limits.timeoutMs ?? 30_000;
    const zygote = await new Promise<Zygote>((resolve) => {
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
    try {
      const answer = await zygote.send(
        { ...header, id: this.nextId++, timeout_ms: timeoutMs, memory_mb: limits.memoryMb ?? 1024 },
        payload,
        timeoutMs + 10_000,
      );
      if (!answer.header.ok) throw new StrategyJobError(answer.header.kind ?? 'error', answer.header.error ?? 'the strategy failed');
      return answer;
    } finally {
      zygote.busy = false;
      this.drain();
    }
  }

  /** Runs the code's feature_engineering on the bars; returns the feature columns it added. */
  async features(code: string, bars: OhlcInput, limits: JobLimits = {}): Promise<FeaturesResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const { header, payload: out } = await this.run({ op: 'features', code, columns: names, rows }, payload, limits);
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
      () => new Zygote(this.command(['session']), () => undefined, this.options.log),
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
    const { header } = await this.run({ op: 'config', code }, Buffer.alloc(0), limits);
    return header.config;
  }

  /**
   * Trains the strategy's model on the bars (trainer.py): strategy_config() is validated against
   * the schema first, so a bad config fails before any fit, naming every violation.
   */
  async train(code: string, bars: OhlcInput, options: TrainOptions = {}, limits: JobLimits = {}): Promise<TrainResult> {
    const check = checkStrategyConfig(await this.config(code, limits));
    if (!check.ok) {
      throw new StrategyJobError('error', `strategy_config() is invalid: ${check.violations.map((v) => v.message).join('; ')}`);
    }
    const { names, rows, payload } = ohlcPayload(bars);
    const request: Record<string, unknown> = { op: 'train', code, columns: names, rows };
    if (options.trainSplit !== undefined) request.train_split = options.trainSplit;
    if (options.warmup !== undefined) request.warmup = options.warmup;
    if (options.fitRows !== undefined) request.fit_rows = options.fitRows;
    const { header: h, payload: out } = await this.run(request, payload, limits);
    const onnxBytes = h.onnx_bytes as number;
    const probaRows = h.proba_rows as number;
    const nFeatures = (h.features as string[]).length;
    const matrixAt = onnxBytes + probaRows * 8;
    if (out.length !== matrixAt + probaRows * nFeatures * 8) throw new StrategyJobError('crash', 'train answer does not match its layout');
    // Copies: offsets past the model are not 8-byte aligned for Float64Array views.
    const probaUp = new Float64Array(probaRows);
    new Uint8Array(probaUp.buffer).set(out.subarray(onnxBytes, matrixAt));
    const matrix = new Float64Array(probaRows * nFeatures);
    new Uint8Array(matrix.buffer).set(out.subarray(matrixAt));
    return {
      config: h.config as StrategyConfig,
      features: h.features as string[],
      warmup: h.warmup as number,
      rowsTrain: h.rows_train as number,
      rowsTest: h.rows_test as number,
      splitIndex: h.split_index as number,
      testStartTs: h.test_start_ts as number,
      accuracyTrain: h.accuracy_train as number,
      accuracyTest: h.accuracy_test as number,
      featureImportance: h.feature_importance as Record<string, number>,
      warnings: (h.warnings as string[] | undefined) ?? [],
      onnx: Buffer.from(out.subarray(0, onnxBytes)),
      probaUp,
      matrix,
    };
  }

  /**
   * Dynamic checks of the code's features on real bars (analysis.py): rows and OHLC kept, numeric
   * and finite columns, the look-ahead test and the warm-up length, in one sandboxed job.
   * A strategy that fails a check still resolves (with its problems); only a job failure throws.
   */
  async analyze(code: string, bars: OhlcInput, limits: JobLimits = {}): Promise<AnalysisResult> {
    const { names, rows, payload } = ohlcPayload(bars);
    const { header: h } = await this.run({ op: 'analyze', code, columns: names, rows }, payload, limits);
    return {
      problems: h.problems as AnalysisProblem[],
      warmup: h.warmup as number | null,
      featureColumns: h.feature_columns as string[],
    };
  }

  /** The zygote processes' ids (operations, and tests that kill one). */
  processIds(): number[] {
    return this.zygotes.map((z) => z.pid).filter((pid): pid is number => pid !== undefined);
  }

  /** Stops the zygotes and closes every open feature session. */
  stop(): void {
    this.stopped = true;
    for (const z of this.zygotes) z.stop();
    for (const session of this.sessions) void session.close();
  }
}

/** A features answer as columns; refuses a payload that does not match the header. */
export function decodeFeatures(header: Record<string, unknown>, payload: Buffer): FeaturesResult {
  const columns = header.columns as string[];
  const rows = header.rows as number;
  if (!Array.isArray(columns) || !Number.isInteger(rows) || payload.length !== columns.length * rows * 8) {
    throw new StrategyJobError('crash', 'features answer does not match its layout');
  }
  const copy = new Float64Array(columns.length * rows);
  new Uint8Array(copy.buffer).set(payload);
  return { columns, rows, values: columns.map((_, i) => copy.subarray(i * rows, (i + 1) * rows)) };
}

/** The OHLC columns as the protocol's payload: float64 little-endian, column-major. */
export function ohlcPayload(bars: OhlcInput): { names: readonly string[]; rows: number; payload: Buffer } {
  const names = ['ts', 'open', 'high', 'low', 'close'] as const;
  const rows = bars.ts.length;
  const payload = Buffer.alloc(names.length * rows * 8);
  names.forEach((name, i) => Buffer.from(bars[name].buffer, bars[name].byteOffset, rows * 8).copy(payload, i * rows * 8));
  return { names, rows, payload };
}
