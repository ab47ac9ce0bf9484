import type { LimitDecision } from './rate-limiter.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets held in memory, one per key (a client address): `burst` requests at once, then
 * `perSecond` more each second. A check is two arithmetic operations and a map lookup — no I/O —
 * so it can sit in front of every unauthenticated request. Each edge process keeps its own.
 * A rate of 0 turns the limit off.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  /** @param maxKeys memory bound: past it the least recently refilled buckets are forgotten. */
  private readonly clock: Clock;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly maxKeys = 100_000,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
  }

  get enabled(): boolean {
    return this.perSecond > 0;
  }

  take(key: string, now = this.clock.now()): LimitDecision {
    if (!this.enabled) return { ok: true };
    let bucket = this.buckets.get(key);
    if (bucket) {
      bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
      bucket.at = now;
      // Re-insert so the map's order stays least recently used first.
      this.buckets.delete(key);
    } else {
      bucket = { tokens: this.burst, at: now };
      if (this.buckets.size >= this.maxKeys) this.forgetOldest();
    }
    this.buckets.set(key, bucket);
    if (bucket.tokens < 1) return { ok: false, retryAfterMs: Math.ceil(((1 - bucket.tokens) / this.perSecond) * 1000) };
    bucket.tokens -= 1;
    return { ok: true };
  }

  /** Drops the least recently used tenth: a forgotten address only starts again with a full bucket. */
  private forgetOldest(): void {
    let drop = Math.max(1, Math.floor(this.maxKeys / 10));
    for (const key of this.buckets.keys()) {
      if (drop-- <= 0) break;
      this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
