import { createHash } from 'node:crypto';
import type { OhlcColumns } from '../lib/bar-columns.ts';
import type { Logger } from '../log.ts';
import type { FeatureSession, FeaturesResult, StrategyRuntime } from '../sandbox/index.ts';

/** What a live run (a model actor, a tracked community entry) computes features with. */
export interface FeatureSource {
  features(bars: OhlcColumns): Promise<FeaturesResult>;
  release(): Promise<void>;
}

/** Limits of one features call for a live bar (the window is small; a hung call must not stall the actor long). */
const LIVE_LIMITS = { timeoutMs: 20_000, memoryMb: 1024 };

/**
 * Recent feature answers kept per strategy: runs of the same code on the same bar share one (the
 * same code may be tracked on several series whose bars close together).
 */
const MEMO_PER_CODE = 8;

/**
 * Warm feature sessions for live runs, bounded: a session is one sandboxed process, so at most
 * `maxWarm` exist. Runs in the same scope with the same code share one (same program, public
 * bars: nothing of one run reaches another), and the same window of bars is computed once for all
 * of them; beyond `maxWarm` a run computes features with one-shot pool jobs (a fresh fork per
 * call: slower, same result). The scope says who may share: model actors pass their user (a
 * user's deployments), the community tracker one scope for all (identical code is one program
 * whoever shared it; different code never shares a process).
 */
export class FeatureSources {
  private readonly sessions = new Map<string, { session: Promise<FeatureSession>; users: number }>();
  private readonly memo = new Map<string, Map<string, Promise<FeaturesResult>>>();

  constructor(
    private readonly runtime: Pick<StrategyRuntime, 'openSession' | 'features'>,
    private readonly maxWarm: number,
    private readonly log: Logger,
  ) {}

  acquire(scope: number | string, code: string): FeatureSource {
    const key = `${scope}:${createHash('sha256').update(code).digest('hex')}`;
    const source = this.source(key, code);
    return { features: (bars) => this.memoised(key, bars, () => source.features(bars)), release: source.release };
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

  private source(key: string, code: string): FeatureSource {
    let entry = this.sessions.get(key);
    if (!entry && this.sessions.size < this.maxWarm) {
      entry = { session: this.runtime.openSession(code, LIVE_LIMITS), users: 0 };
      this.sessions.set(key, entry);
      entry.session.catch((err: unknown) => {
        this.log.warn({ err }, 'feature session failed to open; the actor uses pool jobs');
        if (this.sessions.get(key) === entry) this.sessions.delete(key);
      });
    }
    if (!entry) {
      return { features: (bars) => this.runtime.features(code, bars, LIVE_LIMITS), release: async () => undefined };
    }
    const held = entry;
    held.users++;
    let released = false;
    return {
      features: async (bars) => {
        const session = await held.session.catch(() => null);
        return session ? session.features(bars) : this.runtime.features(code, bars, LIVE_LIMITS);
      },
      release: async () => {
        if (released) return;
        released = true;
        if (--held.users > 0) return;
        if (this.sessions.get(key) === held) this.sessions.delete(key);
        this.memo.delete(key);
        const session = await held.session.catch(() => null);
        await session?.close();
      },
    };
  }

  /** Open warm sessions (for /_metrics and tests). */
  get warm(): number {
    return this.sessions.size;
  }
}
