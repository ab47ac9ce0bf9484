import { createHash } from 'node:crypto';
import type { OhlcColumns } from '../lib/bar-columns.ts';
import { concurrencyLimit } from '../lib/concurrency-limit.ts';
import type { Logger } from '../log.ts';
import type { FeatureSession, FeaturesResult, StrategyRuntime } from '../sandbox/index.ts';
import type { StrategyConfig, StrategyIndicators } from '../../schemas/strategy.ts';

/** What a live run (a model actor, a tracked community entry) computes features with. */
export interface FeatureSource {
  /** The program (scope and code hash): sources of one program share a session and each window's answer. */
  readonly program: string;
  /** Whether a warm session serves it now; otherwise each call is a pool job (a fresh fork). */
  readonly warm: boolean;
  features(bars: OhlcColumns): Promise<FeaturesResult>;
  release(): Promise<void>;
}

/**
 * What live scoring needs of the strategy sandbox: a warm session per program, or one features
 * job. Scoring's port: a live run (an actor) hands its runtime in by this name and reaches
 * nothing else of the sandbox.
 */
export type FeatureRuntime = Pick<StrategyRuntime, 'openSession' | 'features'>;

type Computer = Pick<FeatureSource, 'warm' | 'features' | 'release'>;

/** Limits of one features call for a live bar (the window is small; a hung call must not stall the actor long). */
const LIVE_LIMITS = { timeoutMs: 20_000, memoryMb: 1024 };

/**
 * Recent feature answers kept per strategy: runs of the same code on the same bar share one (the
 * same code may be tracked on several series whose bars close together).
 */
const MEMO_PER_CODE = 8;

/**
 * Sessions opening at once (each imports numpy and pandas: a second or two of CPU). A host that
 * starts a hundred programs together would otherwise run a hundred imports on a few cores, each
 * taking minutes, and the first features calls would time out behind them.
 */
const OPENS_AT_ONCE = 2;

/** Warm sessions one user may hold by default: a quarter of the bound (at least one), so a few users' many programs cannot take every session. */
export const warmPerUser = (maxWarm: number) => Math.max(1, Math.ceil(maxWarm / 4));

/**
 * Warm feature sessions for live runs, bounded: a session is one sandboxed process, so at most
 * `maxWarm` exist. Runs in the same scope with the same code share one (same program, public
 * bars: nothing of one run reaches another), and the same window of bars is computed once for all
 * of them; beyond `maxWarm` a run computes features with one-shot pool jobs (a fresh fork per
 * call: slower, same result). The scope says who may share: model actors pass their user (a
 * user's deployments), the community tracker one scope for all (identical code is one program
 * whoever shared it; different code never shares a process).
 *
 * Fairly: one user holds at most `maxWarmPerUser` warm sessions (the rest of their programs use
 * pool jobs), and every call names the user whose code it runs (the program's first holder), so
 * the runtime's pool jobs and session counts are that user's share.
 */
export class FeatureSources {
  private readonly sessions = new Map<string, { session: Promise<FeatureSession>; users: number; owner: number | undefined }>();
  /** Warm sessions held per owning user. */
  private readonly warmByUser = new Map<number | undefined, number>();
  /** Sources held per program, warm or not. */
  private readonly programs = new Map<string, number>();
  private readonly memo = new Map<string, Map<string, Promise<FeaturesResult>>>();
  private readonly opening = concurrencyLimit(OPENS_AT_ONCE);

  constructor(
    private readonly runtime: FeatureRuntime,
    private readonly maxWarm: number,
    private readonly log: Logger,
    private readonly maxWarmPerUser = warmPerUser(maxWarm),
  ) {}

  /**
   * `user`: whose code it runs (default: a numeric scope, which is a user's). `indicators`: the
   * model's stored config's (ModelRecord.config.indicators), merged over the code's own for every
   * call, so a model optimised to RSI(21) trades with RSI(21); part of the program (a session per set).
   */
  acquire(
    scope: number | string,
    code: string,
    user: number | undefined = typeof scope === 'number' ? scope : undefined,
    indicators?: StrategyIndicators,
  ): FeatureSource {
    const values = indicators && Object.keys(indicators).length ? JSON.stringify(Object.entries(indicators).sort()) : '';
    const key = `${scope}:${createHash('sha256')
      .update(code)
      .update(values ? `\0${values}` : '')
      .digest('hex')}`;
    const source = this.source(key, code, user, values ? indicators : undefined);
    this.programs.set(key, (this.programs.get(key) ?? 0) + 1);
    let released = false;
    return {
      program: key,
      get warm() {
        return source.warm;
      },
      features: (bars) => this.memoised(key, bars, () => source.features(bars)),
      release: async () => {
        if (released) return;
        released = true;
        const left = this.programs.get(key)! - 1;
        if (left > 0) this.programs.set(key, left);
        else {
          this.programs.delete(key);
          this.memo.delete(key);
        }
        await source.release();
      },
    };
  }

  /**
   * A model's live features: its user's program, computed with the indicator values of its stored
   * config (an optimised trial's), as its train, analysis and backtest computed them.
   */
  forModel(model: { user_id: number; config: Pick<StrategyConfig, 'indicators'> }, code: string): FeatureSource {
    return this.acquire(model.user_id, code, model.user_id, model.config.indicators);
  }

  /** One answer per (strategy, window of bars); a failed call is not kept. */
  private memoised(key: string, bars: OhlcColumns, compute: () => Promise<FeaturesResult>): Promise<FeaturesResult> {
    const n = bars.ts.length;
    const window = n ? `${bars.ts[0]}|${bars.ts[n - 1]}|${n}|${bars.open[0]}|${bars.close[0]}|${bars.close[n - 1]}` : 'empty';
    let recent = this.memo.get(key);
    if (!recent) this.memo.set(key, (recent = new Map()));
    const hit = recent.get(window);
    if (hit) return hit;
    const result = compute();
    recent.set(window, result);
    result.catch(() => recent.delete(window));
    while (recent.size > MEMO_PER_CODE) recent.delete(recent.keys().next().value!);
    return result;
  }

  /** Forgets a warm session (closed, or failed to open) and its count against its owner. */
  private forget(key: string, entry: { owner: number | undefined }): void {
    if (this.sessions.get(key) !== entry) return;
    this.sessions.delete(key);
    const left = (this.warmByUser.get(entry.owner) ?? 1) - 1;
    if (left > 0) this.warmByUser.set(entry.owner, left);
    else this.warmByUser.delete(entry.owner);
  }

  private source(key: string, code: string, user: number | undefined, indicators: StrategyIndicators | undefined): Computer {
    const pooled = { ...LIVE_LIMITS, ...(user !== undefined ? { user } : {}) };
    let entry = this.sessions.get(key);
    // Programs of no user (internal) are not a user's share: only the bound applies to them.
    if (!entry && this.sessions.size < this.maxWarm && (user === undefined || this.warmFor(user) < this.maxWarmPerUser)) {
      const opened = { session: this.opening(() => this.runtime.openSession(code, pooled, indicators)), users: 0, owner: user };
      entry = opened;
      this.sessions.set(key, opened);
      this.warmByUser.set(user, this.warmFor(user) + 1);
      opened.session.catch((err: unknown) => {
        this.log.warn({ err }, 'feature session failed to open; the actor uses pool jobs');
        this.forget(key, opened);
      });
    }
    if (!entry) {
      return { warm: false, features: (bars) => this.runtime.features(code, bars, pooled, indicators), release: async () => undefined };
    }
    const held = entry;
    // Pool jobs of a program whose session failed are its owner's, whoever shares it.
    const fallback = { ...LIVE_LIMITS, ...(held.owner !== undefined ? { user: held.owner } : {}) };
    held.users++;
    const sessions = this.sessions;
    return {
      get warm() {
        return sessions.get(key) === held;
      },
      features: async (bars) => {
        const session = await held.session.catch(() => null);
        return session ? session.features(bars) : this.runtime.features(code, bars, fallback, indicators);
      },
      release: async () => {
        if (--held.users > 0) return;
        this.forget(key, held);
        const session = await held.session.catch(() => null);
        await session?.close();
      },
    };
  }

  /** Open warm sessions (for /_metrics and tests). */
  get warm(): number {
    return this.sessions.size;
  }

  /** Warm sessions the user's programs hold (undefined: programs of no user). */
  warmFor(user: number | undefined): number {
    return this.warmByUser.get(user) ?? 0;
  }

  /** Programs held without a warm session: each of their calls is a pool job. */
  get coldPrograms(): number {
    let n = 0;
    for (const key of this.programs.keys()) if (!this.sessions.has(key)) n++;
    return n;
  }
}
