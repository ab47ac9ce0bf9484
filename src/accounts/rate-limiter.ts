import { liveClock, type Clock } from '../lib/clock.ts';
/** Outcome of asking a limiter for one more event. */
export type LimitDecision =
  | { ok: true }
  /** `unavailable`: not refused for the limit but because it cannot be counted now (the cluster's KV is not answering). */
  | { ok: false; retryAfterMs: number; unavailable?: true };

/** What a refused key is told, over HTTP and WebSocket alike: the limit, or that it cannot be counted now. `retry` says when to try again. */
export function limitRefusal(decision: Extract<LimitDecision, { ok: false }>, max: number, retry: string, counted = ''): string {
  return decision.unavailable
    ? `rate limit: this key’s requests cannot be counted right now (the cluster’s NATS KV is not answering); ${retry}`
    : `rate limit: at most ${max} requests per minute per key${counted}; ${retry}`;
}

/**
 * A rolling-window limiter held in memory: at most `max` events per `windowMs` for each key.
 * Each key keeps a ring of its last `max` event times, so a check is O(1) and exact (no fixed
 * window edges that let 2× the limit through).
 */
export class SlidingWindowLimiter {
  private readonly rings = new Map<string, { stamps: Float64Array; next: number }>();
  private readonly stopSweeper: () => void;

  private readonly clock: Clock;

  constructor(
    readonly max: number,
    readonly windowMs: number,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
    // Forget keys that have been idle for a whole window, so memory follows active keys only.
    this.stopSweeper = this.clock.every(Math.max(windowMs, 1000), () => this.sweep(this.clock.now()));
  }

  take(key: string, now = this.clock.now()): LimitDecision {
    let ring = this.rings.get(key);
    if (!ring) {
      ring = { stamps: new Float64Array(this.max).fill(-Infinity), next: 0 };
      this.rings.set(key, ring);
    }
    const oldest = ring.stamps[ring.next]!;
    if (now - oldest < this.windowMs) return { ok: false, retryAfterMs: this.windowMs - (now - oldest) };
    ring.stamps[ring.next] = now;
    ring.next = (ring.next + 1) % this.max;
    return { ok: true };
  }

  private sweep(now: number): void {
    for (const [key, ring] of this.rings) {
      const newest = ring.stamps[(ring.next + this.max - 1) % this.max]!;
      if (now - newest >= this.windowMs) this.rings.delete(key);
    }
  }

  stop(): void {
    this.stopSweeper();
  }
}
