import type { JsonKv } from '../bus/index.ts';
import { answerWithin } from '../lib/answer-within.ts';
import type { Logger } from '../log.ts';
import type { WindowRecord } from '../../schemas/messages.ts';
import { SlidingWindowLimiter, type LimitDecision } from './rate-limiter.ts';

/** A key's requests are claimed from KV in blocks of at most this many… */
const MAX_BLOCK = 16;
/** …each usable for this long after its claim. */
const BLOCK_MS = 1000;
/** How long a request waits for its key's claim before this edge decides alone. */
const CLAIM_WAIT_MS = 750;
/** After a claim failed or came late, this edge counts alone this long before it asks KV again. */
const DEGRADED_MS = 2000;

interface Block {
  left: number;
  used: number;
  until: number;
}

class Refused extends Error {
  constructor(readonly retryAfterMs: number) {
    super('refused');
  }
}

/**
 * The per-key request limit across every edge (RATE_LIMIT_PER_MIN per rolling minute): each edge
 * claims a key's requests from NATS KV (`rate.<key>` in `sf_rate_windows`, compare-and-set) in
 * small blocks and spends them locally. Every claimed request is stamped in KV at the END of its
 * block's life — at or after the moment it is actually made — so the window never lets more than
 * `max` through over all edges together. What a block leaves unspent when it ends is given back at
 * the key's next claim on that edge, in the same write: until then it counts as used, so a key may
 * be refused before `max` by at most the unspent part of one block per edge (≤ MAX_BLOCK − 1 = 15;
 * blocks follow the key's pace, so a key sending one request a second claims blocks of 1). A KV
 * round trip is paid once per block, not per request.
 * When KV cannot be reached or is slow to answer (750 ms), this edge's own in-memory window
 * decides (the limit then holds per edge) until it answers again.
 */
export class ClusterRateLimiter {
  private readonly blocks = new Map<string, Block>();
  /** Until then KV is not asked (it failed or was slow lately): the local window decides. */
  private degradedUntil = Number.NEGATIVE_INFINITY;
  private readonly claiming = new Map<string, Promise<Extract<LimitDecision, { ok: false }> | null>>();
  private readonly local: SlidingWindowLimiter;
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly windows: JsonKv<typeof WindowRecord>,
    readonly max: number,
    readonly windowMs: number,
    private readonly log: Logger,
  ) {
    this.local = new SlidingWindowLimiter(max, windowMs);
    this.sweeper = setInterval(() => {
      const now = Date.now();
      // A block is kept for its window: its unspent requests are given back at the key's next claim.
      for (const [key, block] of this.blocks) if (block.until + windowMs < now) this.blocks.delete(key);
    }, Math.max(5 * BLOCK_MS, 1000));
    this.sweeper.unref();
  }

  async take(key: string, now = Date.now()): Promise<LimitDecision> {
    if (now < this.degradedUntil) return this.local.take(key, now);
    for (;;) {
      const block = this.blocks.get(key);
      if (block && block.left > 0 && now < block.until) {
        block.left--;
        block.used++;
        return { ok: true };
      }
      // One claim per key at a time on this edge: the others wait for it, then spend from its block.
      const pending = this.claiming.get(key);
      if (pending) {
        const refused = await pending;
        if (refused) return refused;
        continue;
      }
      const claim = this.claim(key, block, now).finally(() => this.claiming.delete(key));
      this.claiming.set(key, claim);
      const refused = await claim;
      if (refused) return refused;
    }
  }

  /** Claims the key's next block from KV; the refusal when the window is full. */
  private async claim(key: string, block: Block | undefined, now: number): Promise<Extract<LimitDecision, { ok: false }> | null> {
    // The next block follows the key's pace: twice the last one when it was spent in time, else what was spent.
    const pace = block && now < block.until + BLOCK_MS ? (block.left === 0 ? block.used * 2 : block.used) : 1;
    const wanted = Math.min(MAX_BLOCK, Math.max(1, pace));
    const until = now + BLOCK_MS;
    // The last block's unspent requests were never made: their stamps go back in this same write.
    const unspent = block && block.left > 0 && now >= block.until ? block : null;
    let granted = 0;
    let refusedFor = 0;
    try {
      const claimed = this.windows.mutate(`rate.${key}`, (current) => {
        // A stamp counts for a window from itself: it stands for requests made at or before it.
        let recent = (current?.stamps ?? []).filter((t) => t > now - this.windowMs);
        if (unspent) {
          let back = unspent.left;
          recent = recent.filter((t) => !(t === unspent.until && back-- > 0));
        }
        granted = Math.min(wanted, this.max - recent.length);
        refusedFor = 0;
        if (granted <= 0) {
          // (Within the window at most: the oldest stamp may lie up to a block ahead of its request.)
          refusedFor = Math.max(1, Math.min(this.windowMs, Math.min(...recent) + this.windowMs - now));
          // Nothing to give back, nothing to write.
          if (!unspent) throw new Refused(refusedFor);
          return { stamps: recent };
        }
        return { stamps: [...recent, ...Array<number>(granted).fill(until)] };
      });
      // A claim held up (a NATS node died, its leader being elected) must not hold requests up: past
      // CLAIM_WAIT_MS this edge decides alone; a claim landing later only wastes its block (never too many).
      await answerWithin(claimed, CLAIM_WAIT_MS, 'NATS KV');
      if (refusedFor > 0) throw new Refused(refusedFor);
    } catch (err) {
      if (err instanceof Refused) {
        // Given back (or nothing to give): the refusal leaves no block behind.
        this.blocks.delete(key);
        return { ok: false, retryAfterMs: err.retryAfterMs };
      }
      this.log.warn({ err: (err as Error).message }, 'rate limit: NATS KV not answering, counting on this edge only for a while');
      this.degradedUntil = now + DEGRADED_MS;
      const local = this.local.take(key, now);
      // Counted locally: a one-request block, so the caller that waited on this claim counts too.
      if (local.ok) this.blocks.set(key, { left: 1, used: 0, until: now + 1 });
      return local.ok ? null : local;
    }
    this.blocks.set(key, { left: granted, used: 0, until });
    return null;
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.local.stop();
  }
}
