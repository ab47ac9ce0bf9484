import type { JsonKv } from '../bus/index.ts';
import { answerWithin } from '../lib/answer-within.ts';
import type { Logger } from '../log.ts';
import type { RateClaimsRecord } from '../../schemas/messages.ts';
import { SlidingWindowLimiter, type LimitDecision } from './rate-limiter.ts';

/**
 * A key's requests are claimed from KV in blocks of at most this many, or a 120th of its limit when
 * that is more (a limit of 1,000,000 a minute is not claimed 16 at a time); what an edge holds
 * unspent is at most one less…
 */
const MAX_BLOCK = 16;
const LIMIT_SHARE = 120;
/** …each block usable for this long after its claim. */
const BLOCK_MS = 1000;
/** Stamps lie on this grid (rounded up: never before their requests), so claims close in time share one. */
const STAMP_GRID_MS = 250;
/** How long a request waits for its key's claim before this edge decides alone. */
const CLAIM_WAIT_MS = 750;
/** After a claim failed or came late, this edge counts alone this long before it asks KV again. */
const DEGRADED_MS = 2000;

interface Block {
  size: number;
  left: number;
  used: number;
  /** When it was claimed, and when it ends (its stamp in KV). */
  from: number;
  until: number;
}

type Refusal = Extract<LimitDecision, { ok: false }>;

/** One key on this edge: the block being spent, the one claimed ahead, the claim in flight, what ended unspent. */
interface KeyState {
  current: Block | null;
  next: Block | null;
  /** The block spent last, to size the next claim by the key's pace. */
  last: Block | null;
  claiming: Promise<Refusal | null> | null;
  /** Blocks that ended with requests unspent: given back at the key's next claim. */
  unspent: Block[];
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
 * `max` through over all edges together. What a block leaves unspent is given back at the key's
 * next claim on that edge, in the same write: until then it counts as used, so a key may be
 * refused before `max` by at most 15 per edge, or under 1 % of a limit above 1,920 (blocks follow
 * the key's pace, so a key sending one request a second claims blocks of 1).
 * A key spending its block fast claims the next one in the background once half is spent, so its
 * requests do not wait on a KV round trip (the block held and the one claimed ahead stay within
 * the same bound together). When KV cannot be reached or is slow to answer (750 ms), this edge's
 * own in-memory window decides (the limit then holds per edge) until it answers again.
 */
export class ClusterRateLimiter {
  private readonly keys = new Map<string, KeyState>();
  /** Until then KV is not asked (it failed or was slow lately): the local window decides. */
  private degradedUntil = Number.NEGATIVE_INFINITY;
  private readonly local: SlidingWindowLimiter;
  private readonly sweeper: NodeJS.Timeout;
  private readonly maxBlock: number;

  constructor(
    private readonly windows: JsonKv<typeof RateClaimsRecord>,
    readonly max: number,
    readonly windowMs: number,
    private readonly log: Logger,
  ) {
    this.local = new SlidingWindowLimiter(max, windowMs);
    this.maxBlock = Math.max(MAX_BLOCK, Math.floor(max / LIMIT_SHARE));
    this.sweeper = setInterval(() => {
      const now = Date.now();
      // A key is kept for a window after its last block: what that left unspent is given back at its next claim.
      for (const [key, s] of this.keys) {
        const end = Math.max(s.current?.until ?? 0, s.next?.until ?? 0, s.last?.until ?? 0, ...s.unspent.map((b) => b.until));
        if (!s.claiming && end + windowMs < now) this.keys.delete(key);
      }
    }, Math.max(5 * BLOCK_MS, 1000));
    this.sweeper.unref();
  }

  async take(key: string, now = Date.now()): Promise<LimitDecision> {
    let s = this.keys.get(key);
    if (!s) this.keys.set(key, (s = { current: null, next: null, last: null, claiming: null, unspent: [] }));
    for (;;) {
      if (now < this.degradedUntil) return this.local.take(key, now);
      const block = this.spendable(s, now);
      if (block) {
        block.left--;
        block.used++;
        this.claimAheadIfNeeded(key, s, block, now);
        return { ok: true };
      }
      // One claim per key at a time on this edge: the others wait for it, then spend from its block.
      const refused = await (s.claiming ?? this.claim(key, s, this.pace(s, now), now));
      if (refused) return refused;
    }
  }

  /** The block to spend from, moving on past spent or ended ones (those with requests left are given back later). */
  private spendable(s: KeyState, now: number): Block | null {
    while (s.current && (s.current.left === 0 || now >= s.current.until)) {
      if (s.current.left > 0) s.unspent.push(s.current);
      s.last = s.current;
      s.current = s.next;
      s.next = null;
    }
    return s.current;
  }

  /** The next block follows the key's pace: twice the last one when it was spent in time, else what was spent. */
  private pace(s: KeyState, now: number): number {
    const last = s.last;
    const pace = last && now < last.until + BLOCK_MS ? (last.left === 0 ? last.used * 2 : last.used) : 1;
    return Math.min(this.maxBlock, Math.max(1, pace));
  }

  /**
   * A key in steady demand (its last block spent, this one claimed within a block's life of it)
   * has its next block claimed once half of this one is spent, at a pace that spends the rest
   * before it ends, so no request waits for it. A page load's burst, then quiet, claims nothing
   * ahead. The two blocks together never hold a whole maximum block unspent (the bound above).
   */
  private claimAheadIfNeeded(key: string, s: KeyState, block: Block, now: number): void {
    if (s.next || s.claiming || block.left * 2 > block.size) return;
    if (!s.last || s.last.left > 0 || block.from - s.last.from >= BLOCK_MS) return;
    const spentBy = now + (block.left * (now - block.from)) / block.used;
    if (spentBy >= block.until) return;
    const wanted = Math.min(2 * block.size, this.maxBlock - 1 - block.left);
    if (wanted > 0) void this.claim(key, s, wanted, now);
  }

  /** Claims the key's next block from KV; the refusal when the window is full. */
  private claim(key: string, s: KeyState, wanted: number, now: number): Promise<Refusal | null> {
    const claiming = this.claimFromKv(key, s, wanted, now).finally(() => {
      s.claiming = null;
    });
    s.claiming = claiming;
    return claiming;
  }

  private async claimFromKv(key: string, s: KeyState, wanted: number, now: number): Promise<Refusal | null> {
    const until = Math.ceil((now + BLOCK_MS) / STAMP_GRID_MS) * STAMP_GRID_MS;
    // Requests of blocks that ended unspent were never made: their stamps go back in this same write.
    const giveBack = s.unspent;
    s.unspent = [];
    let granted = 0;
    let refusedFor = 0;
    try {
      const claimed = this.windows.mutate(`rate.${key}`, (current) => {
        // A stamp counts for a window from itself: it stands for requests made at or before it.
        const counts = new Map<number, number>();
        for (const [t, n] of current?.claims ?? []) if (t > now - this.windowMs) counts.set(t, (counts.get(t) ?? 0) + n);
        for (const b of giveBack) {
          const n = counts.get(b.until) ?? 0;
          if (n > b.left) counts.set(b.until, n - b.left);
          else counts.delete(b.until);
        }
        let used = 0;
        for (const n of counts.values()) used += n;
        granted = Math.min(wanted, this.max - used);
        refusedFor = 0;
        if (granted <= 0) {
          // (Within the window at most: the oldest stamp may lie up to a block ahead of its request.)
          refusedFor = Math.max(1, Math.min(this.windowMs, Math.min(...counts.keys()) + this.windowMs - now));
          // Nothing to give back, nothing to write.
          if (giveBack.length === 0) throw new Refused(refusedFor);
        } else counts.set(until, (counts.get(until) ?? 0) + granted);
        return { claims: [...counts].sort((a, b) => a[0] - b[0]) };
      });
      // A claim held up (a NATS node died, its leader being elected) must not hold requests up: past
      // CLAIM_WAIT_MS this edge decides alone; a claim landing later only wastes its block (never too many).
      await answerWithin(claimed, CLAIM_WAIT_MS, 'NATS KV');
      if (refusedFor > 0) throw new Refused(refusedFor);
    } catch (err) {
      if (err instanceof Refused) return { ok: false, retryAfterMs: err.retryAfterMs };
      this.log.warn({ err: (err as Error).message }, 'rate limit: NATS KV not answering, counting on this edge only for a while');
      this.degradedUntil = now + DEGRADED_MS;
      return null;
    }
    const block: Block = { size: granted, left: granted, used: 0, from: now, until };
    if (this.spendable(s, now)) s.next = block;
    else s.current = block;
    return null;
  }

  stop(): void {
    clearInterval(this.sweeper);
    this.local.stop();
  }
}
