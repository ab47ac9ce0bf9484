/**
 * Feature sessions: one deployed model's feature_engineering, kept warm between calls. A job of
 * the pool runs in a freshly forked child, which pays copy-on-write faults and pandas' cold paths
 * on every call (~15–20 ms); a live actor calls once per bar, so its session keeps one worker.
 *
 * Each session is its own sandboxed process (`sandbox_runtime.py session`, under the pool's
 * bubblewrap command), apart from the job pool: it never holds a zygote. That process imports the
 * libraries like a zygote and forks ONE worker, which installs the job child's limits, audit hook
 * and import guard, exec's the code once, then serves features calls. One user's code per process,
 * never shared. Per call: the call's clock (job-clock.ts: a CPU budget, and wall-clock backstops for
 * a worker that sleeps or a host too busy; the session process kills the worker), a CPU-time soft
 * limit moved to (used so far + the allowance) before each call, the memory limit for the worker's
 * whole life, and a Node watchdog over the session process itself.
 *
 * Failures: a call that fails (timeout, memory, refused, the code raised, the worker died) rejects
 * with a StrategyJobError of that kind; the worker that failed is replaced right away by a fresh
 * one, so the next call runs again (re-opened transparently). If the session process itself dies,
 * that call fails with kind `crash` and the next call starts a new process (~1 s of imports).
 * Only close() ends a session for good. A worker keeps the interpreter state between calls, so
 * feature_engineering must not rely on module state (the static check allows only constants there).
 */
import { FeaturesAnswer } from '../../schemas/sandbox.ts';
import { decodeFeatures, ohlcPayload, parseAnswer, type FeaturesResult, type JobLimits } from './codec.ts';
import { wallBackstops, watchdogMs } from './job-clock.ts';
import type { SandboxProcess } from './sandbox-process.ts';
import { okHeader, StrategyJobError } from './sandbox-process.ts';
import type { OhlcColumns } from '../lib/bar-columns.ts';
import type { StrategyIndicators } from '../../schemas/strategy.ts';

/** One strategy's warm features worker; StrategyRuntime.openSession makes them. */
export class FeatureSession {
  private process: SandboxProcess | null = null;
  /** Calls run one at a time, in order. */
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;
  private nextId = 1;

  constructor(
    private readonly spawn: () => SandboxProcess,
    private readonly code: string,
    private readonly limits: Required<Pick<JobLimits, 'timeoutMs' | 'memoryMb'>>,
    /** Merged over strategy_config()["indicators"] for every call (the model's stored values). */
    private readonly indicators: StrategyIndicators | undefined,
    private readonly onClose: () => void,
  ) {}

  /** Starts the session process and runs the code's module level; rejects (and closes) when that fails. */
  async open(): Promise<void> {
    try {
      await this.enqueue(() => this.ensureProcess());
    } catch (err) {
      await this.close();
      throw err;
    }
  }

  /** Runs feature_engineering on the bars in the warm worker: the same answer as StrategyRuntime.features. */
  features(bars: OhlcColumns): Promise<FeaturesResult> {
    return this.enqueue(async () => {
      const process = await this.ensureProcess();
      const { names, rows, payload } = ohlcPayload(bars);
      const answer = await process.request({ op: 'features', id: this.nextId++, columns: names, rows }, payload, this.watchdogMs);
      const { header, payload: out } = parseAnswer(FeaturesAnswer, answer);
      return decodeFeatures(header, out);
    });
  }

  /** Whether close() was called; a session whose process died is not closed (the next call re-opens it). */
  get isClosed(): boolean {
    return this.closed;
  }

  /** The session process's id (the bubblewrap process when sandboxed), or null while none runs. */
  processId(): number | null {
    return this.process && !this.process.dead ? (this.process.pid ?? null) : null;
  }

  /** Kills the session process (and with it the worker); a call in progress fails with kind `crash`. */
  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.onClose();
    }
    const process = this.process;
    this.process = null;
    if (process && !process.dead) {
      process.stop();
      await process.exited;
    }
  }

  private get watchdogMs(): number {
    return watchdogMs(this.limits.timeoutMs);
  }

  private enqueue<T>(call: () => Promise<T>): Promise<T> {
    const result = this.queue.then(() => {
      if (this.closed) throw new StrategyJobError('error', 'the feature session is closed');
      return call();
    });
    this.queue = result.catch(() => undefined);
    return result;
  }

  /** The running session process, or a new one with the code opened in its worker. */
  private async ensureProcess(): Promise<SandboxProcess> {
    if (this.process && !this.process.dead) return this.process;
    const process = this.spawn();
    this.process = process;
    try {
      await process.ready;
      okHeader(
        await process.request(
          {
            op: 'open',
            id: 0,
            code: this.code,
            ...(this.indicators ? { indicators: this.indicators } : {}),
            timeout_ms: this.limits.timeoutMs,
            memory_mb: this.limits.memoryMb,
            ...wallBackstops(this.limits.timeoutMs),
          },
          Buffer.alloc(0),
          this.watchdogMs,
        ),
      );
      return process;
    } catch (err) {
      process.stop();
      if (this.process === process) this.process = null;
      throw err;
    }
  }
}
