import { createHash } from 'node:crypto';
import type { Logger } from '../../src/log.ts';
import type { FeatureSession, FeaturesResult, OhlcColumns, StrategyRuntime } from '../../src/scoring/index.ts';

/** What a model actor computes features with. */
export interface FeatureSource {
  features(bars: OhlcColumns): Promise<FeaturesResult>;
  release(): Promise<void>;
}

/** Limits of one features call for a live bar (the window is small; a hung call must not stall the actor long). */
const LIVE_LIMITS = { timeoutMs: 20_000, memoryMb: 1024 };

/** Recent feature answers kept per strategy: actors of the same code on the same bar share one. */
const MEMO_PER_CODE = 4;

/**
 * Warm feature sessions for model actors, bounded: a session is one sandboxed process, so at most
 * `maxWarm` exist. Actors of the same user running the same code share one (same program, public
 * bars: nothing of one deployment reaches another), and the same window of bars is computed once
 * for all of them; beyond `maxWarm` an actor computes features with one-shot pool jobs (a fresh
 * fork per call: slower, same result).
 */
export class FeatureSources {
  private readonly sessions = new Map<string, { session: Promise<FeatureSession>; users: number }>();
  private readonly memo = new Map<string, Map<string, Promise<FeaturesResult>>>();

  constructor(
    private readonly runtime: Pick<StrategyRuntime, 'openSession' | 'features'>,
    private readonly maxWarm: number,
    private readonly log: Logger,
  ) {}

  acquire(userId: number, code: string): FeatureSource {
    const key = `${userId}:${createHash('sha256').update(code).digest('hex')}`;
    const source = this.source(key, code);
    return { features: (bars) => this.memoised(key, bars, () => source.features(bars)), release: source.release };
  }

  /** One answer per (strategy, window of bars); a failed call is not kept. */
  private memoised(key: string, bars: OhlcColumns, compute: () => Promise<FeaturesResult>): Promise<FeaturesResult> {
    const n = bars.ts.length;
    const window = n ? `${bars.ts[0]}|${bars.ts[n - 1]}|${n}|${bars.close[n - 1]}` : 'empty';
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
