import type { JsonKv } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import type { RateClaimsRecord } from '../../schemas/account-records.ts';
import type { LimitDecision } from './rate-limiter.ts';
import { liveClock, type Clock } from '../lib/clock.ts';

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
/**
 * A stamp counts this much longer than the window, so edges whose clocks differ by up to this
 * much still count the same claims (the bound below holds for a skew up to it; NTP keeps edges
 * within milliseconds).
 */
export const CLOCK_SKEW_MS = 500;
/**
 * A request waiting for its key's claim is refused as not countable now once KV has answered none
 * of this edge's claims for this long (KV away: a NATS node died, its leader being elected)…
 */
const CLAIM_WAIT_MS = 750;
/** …or once it has waited this long however busy KV is (a request, over all the claims it waits for). */
const CLAIM_GIVE_UP_MS = 5000;
/** Waits are counted in steps of this much, of which a step that overran (the process stalled) counts at most twice. */
const WAIT_STEP_MS = 50;
/** After a claim failed or came late, requests without a block in hand are refused this long without asking KV. */
const RESTING_MS = 1000;

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
  /** Until then the key's refusal for its full window is not logged again. */
  quietUntil: number;
}

class Refused extends Error {
  constructor(readonly retryAfterMs: number) {
    super('refused');
  }
}

/** The write lost its compare-and-set to another edge: read again and decide again. */
const isStale = (err: unknown): boolean =>
  /wrong last sequence|key exists/i.test((err as Error)?.message ?? '') || (err as { code?: number })?.code === 10071;

/**
 * The per-key request limit across every edge: at most `max` requests in any `windowMs`
 * (rolling), over all edges together. Each edge claims a key's requests from NATS KV
 * (`rate.<key>` in `sf_rate_windows`, compare-and-set on that one record) in small blocks and
 * spends them in memory, so a request seldom waits on KV.
 *
 * Why no window ever admits more than `max` (the edges' clocks within CLOCK_SKEW_MS = S):
 * 1. Every admitted request is spent from a block whose claim is in the record: a block is used
 *    only after its compare-and-set write landed (a write whose answer is lost or late is
 *    never taken as landed: its block is dropped; if it landed it only counts unspent), and no
 *    request is admitted otherwise (when KV does not answer, requests without a block in hand are
 *    refused; there is no per-edge fallback).
 * 2. A block's stamp u is the end of its life, and it is spent only while the edge's clock reads
 *    before u (read when the request is decided, after any wait): each request's time r ≤ u.
 * 3. A claim at clock time c grants g only if g plus the counts of stamps t > c − W − S is ≤ max,
 *    read from the record it replaces (compare-and-set: no write landed in between). Entries are
 *    dropped by writers under the same rule, and unspent counts are given back only once their
 *    block ended or ran out (nothing is spent from it after): a stamp's count never falls below
 *    what its blocks admitted.
 * Take any window (x − W, x] and, of the blocks with requests admitted in it, the one whose claim
 * landed last, at clock time c ≤ x + S (on its claimer's clock; it landed before its first request).
 * Each other such block has a request r > x − W, so its stamp u ≥ r > x − W ≥ c − W − S (with the
 * skew between the two clocks ≤ S), and it was in the record then and not dropped: the last claim
 * counted it. So the window's requests ≤ that claim's counted total + its grant ≤ max. ∎
 *
 * What a block leaves unspent counts as used until the key's next claim on that edge gives it back
 * (in the same write), so a key may be refused before `max` by at most 15 per edge, or under 1 % of
 * a limit above 1,920 (blocks follow the key's pace, so a key sending one request a second claims
 * blocks of 1). A key spending its block fast claims the next one in the background once half is
 * spent, so its requests do not wait on a KV round trip.
 */
export class ClusterRateLimiter {
  private readonly keys = new Map<string, KeyState>();
  /** Until then KV is not asked (it failed or was slow lately): requests without a block in hand are refused. */
  private restingUntil = Number.NEGATIVE_INFINITY;
  private readonly stopSweeper: () => void;
  private readonly maxBlock: number;
  /** KV's answers to this edge's claims so far (a lost compare-and-set is an answer too): that KV is there, if busy. */
  private answers = 0;

  private readonly clock: Clock;

  constructor(
    private readonly windows: JsonKv<typeof RateClaimsRecord>,
    readonly max: number,
    readonly windowMs: number,
    private readonly log: Logger,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
    this.maxBlock = Math.max(MAX_BLOCK, Math.floor(max / LIMIT_SHARE));
    this.stopSweeper = this.clock.every(Math.max(5 * BLOCK_MS, 1000), () => {
      const now = this.clock.now();
      // A key is kept for a window after its last block: what that left unspent is given back at its next claim.
      for (const [key, s] of this.keys) {
        const end = Math.max(s.current?.until ?? 0, s.next?.until ?? 0, s.last?.until ?? 0, s.quietUntil, ...s.unspent.map((b) => b.until));
        if (!s.claiming && end + windowMs < now) this.keys.delete(key);
      }
    });
  }

  /** One request of `key`, decided at `at` (tests pass a clock; by default the time is read again after each wait). */
  async take(key: string, at?: number): Promise<LimitDecision> {
    let s = this.keys.get(key);
    if (!s)
      this.keys.set(
        key,
        (s = { current: null, next: null, last: null, claiming: null, unspent: [], quietUntil: Number.NEGATIVE_INFINITY }),
      );
    const asked = performance.now();
    for (;;) {
      const now = at ?? this.clock.now();
      const block = this.spendable(s, now);
      if (block) {
        block.left--;
        block.used++;
        this.claimAheadIfNeeded(key, s, block, now, at);
        return { ok: true };
      }
      if (!s.claiming && now < this.restingUntil) return { ok: false, retryAfterMs: this.restingUntil - now, unavailable: true };
      // Claims landing so late that their blocks end before they are spent: KV is too slow to count on.
      if (performance.now() - asked >= CLAIM_GIVE_UP_MS) return { ok: false, retryAfterMs: RESTING_MS, unavailable: true };
      // One claim per key at a time on this edge: the others wait for it, then spend from its block.
      const refused = await (s.claiming ?? this.claim(key, s, this.pace(s, now), now, at));
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
  private claimAheadIfNeeded(key: string, s: KeyState, block: Block, now: number, at: number | undefined): void {
    if (s.next || s.claiming || block.left * 2 > block.size || now < this.restingUntil) return;
    if (!s.last || s.last.left > 0 || block.from - s.last.from >= BLOCK_MS) return;
    const spentBy = now + (block.left * (now - block.from)) / block.used;
    if (spentBy >= block.until) return;
    const wanted = Math.min(2 * block.size, this.maxBlock - 1 - block.left);
    if (wanted > 0) void this.claim(key, s, wanted, now, at);
  }

  /** Claims the key's next block from KV; the refusal when the window is full or KV does not answer in time. */
  private claim(key: string, s: KeyState, wanted: number, now: number, at: number | undefined): Promise<Refusal | null> {
    const claiming = this.claimFromKv(key, s, wanted, now, at).finally(() => {
      s.claiming = null;
    });
    s.claiming = claiming;
    return claiming;
  }

  /** `now`: when the claim was asked for; `at`: the caller's clock (tests), else each try reads the time (a slow KV shortens no block). */
  private async claimFromKv(key: string, s: KeyState, wanted: number, now: number, at: number | undefined): Promise<Refusal | null> {
    // Requests of blocks that ended unspent were never made: their stamps go back in this same write.
    const giveBack = s.unspent;
    s.unspent = [];
    const outcome = { granted: 0, refusedFor: 0, late: false, from: now, until: now };
    const written = this.compareAndSet(key, outcome, (current) => {
      const tried = at ?? this.clock.now();
      const counted = tried - this.windowMs - CLOCK_SKEW_MS;
      const until = Math.ceil((tried + BLOCK_MS) / STAMP_GRID_MS) * STAMP_GRID_MS;
      outcome.from = tried;
      outcome.until = until;
      // A stamp stands for requests made at or before it, so it counts for a window (and the skew) from itself.
      const counts = new Map<number, number>();
      for (const [t, n] of current?.claims ?? []) if (t > counted) counts.set(t, (counts.get(t) ?? 0) + n);
      for (const b of giveBack) {
        const n = counts.get(b.until) ?? 0;
        if (n > b.left) counts.set(b.until, n - b.left);
        else counts.delete(b.until);
      }
      let used = 0;
      for (const n of counts.values()) used += n;
      outcome.granted = Math.min(wanted, this.max - used);
      outcome.refusedFor = 0;
      if (outcome.granted <= 0) {
        // (Within the window and the skew at most: the oldest stamp may lie up to a block ahead of its request.)
        outcome.refusedFor = Math.max(1, Math.min(this.windowMs + CLOCK_SKEW_MS, Math.min(...counts.keys()) - counted));
        // Nothing to give back, nothing to write.
        if (giveBack.length === 0) throw new Refused(outcome.refusedFor);
      } else counts.set(until, (counts.get(until) ?? 0) + outcome.granted);
      return { claims: [...counts].sort((a, b) => a[0] - b[0]) };
    });
    try {
      // A claim held up (a NATS node died, its leader being elected) must not hold requests up.
      await this.answerInTime(written);
    } catch (err) {
      if (err instanceof Refused) return this.full(key, s, err.retryAfterMs, now);
      // Late or failed: its block is dropped even if the write lands later (it then only counts unspent).
      outcome.late = true;
      if (now >= this.restingUntil) {
        this.log.warn(
          { err: (err as Error).message },
          `rate limit: NATS KV not answering; requests without a claimed block are refused for ${RESTING_MS} ms, then KV is asked again`,
        );
      }
      this.restingUntil = Math.max(this.restingUntil, now + RESTING_MS);
      return { ok: false, retryAfterMs: RESTING_MS, unavailable: true };
    }
    if (outcome.refusedFor > 0) return this.full(key, s, outcome.refusedFor, now);
    const block: Block = { size: outcome.granted, left: outcome.granted, used: 0, from: outcome.from, until: outcome.until };
    if (this.spendable(s, at ?? this.clock.now())) s.next = block;
    else s.current = block;
    return null;
  }

  /**
   * Read, change, write the key's record under compare-and-set until no other edge interferes.
   * Unlike JsonKv.mutate, a write whose answer is lost is never read back as "landed": another edge
   * may have written the very same record (claims share stamps), and taking its write for ours
   * would spend a block no record holds. Stops trying once the claim's requests stopped waiting.
   */
  private async compareAndSet(
    key: string,
    outcome: { late: boolean },
    change: (current: RateClaimsRecord | null) => RateClaimsRecord,
  ): Promise<void> {
    const name = `rate.${key}`;
    for (let attempt = 0; !outcome.late; attempt++) {
      const current = await this.windows.get(name);
      this.answers++;
      const encoded = JSON.stringify(change(current?.value ?? null));
      try {
        if (current) await this.windows.kv.update(name, encoded, current.revision);
        else await this.windows.kv.create(name, encoded);
        this.answers++;
        return;
      } catch (err) {
        if (!isStale(err)) throw err;
        this.answers++;
      }
      // Back off a little under contention so the edges' writes interleave rather than collide.
      if (attempt > 2) await new Promise((r) => setTimeout(r, Math.random() * Math.min(50, attempt * 2)));
    }
    throw new Error('claim abandoned: its requests stopped waiting');
  }

  /**
   * `work`'s answer, or a rejection once KV has answered none of this edge's claims for
   * CLAIM_WAIT_MS, or after CLAIM_GIVE_UP_MS: a busy KV (its answers queue behind thousands of
   * claims) is waited for, an absent one is not. Times are counted while this process is awake: a
   * process that stalls (a loaded machine, a long GC pause) runs its timers before it reads the
   * answers that arrived meanwhile, and a plain timer would call a prompt KV slow (that, with the
   * per-edge fallback this limiter had, let two edges admit up to twice the limit). The work goes
   * on after a rejection; a late failure of it is not left unhandled.
   */
  private answerInTime<T>(work: Promise<T>): Promise<T> {
    work.catch(() => undefined);
    return new Promise<T>((resolve, reject) => {
      let waited = 0;
      let silent = 0;
      let seen = this.answers;
      let last = performance.now();
      let timer: NodeJS.Timeout | undefined;
      const step = () => {
        const now = performance.now();
        const awake = Math.min(now - last, 2 * WAIT_STEP_MS);
        last = now;
        waited += awake;
        silent = this.answers === seen ? silent + awake : 0;
        seen = this.answers;
        if (silent >= CLAIM_WAIT_MS || waited >= CLAIM_GIVE_UP_MS)
          reject(new Error(`no answer from NATS KV within ${Math.round(waited)} ms`));
        else timer = setTimeout(step, WAIT_STEP_MS);
      };
      timer = setTimeout(step, WAIT_STEP_MS);
      work.then(
        (value) => (clearTimeout(timer), resolve(value)),
        (err: unknown) => (clearTimeout(timer), reject(err)),
      );
    });
  }

  /** The key's window is full: its refusal, logged once a window per key on this edge. */
  private full(key: string, s: KeyState, retryAfterMs: number, now: number): Refusal {
    if (now >= s.quietUntil) {
      s.quietUntil = now + this.windowMs;
      this.log.info(
        { limit_key: key, max: this.max, window_ms: this.windowMs, retry_after_ms: retryAfterMs },
        'rate limit: key reached its limit over all edges; its requests are refused until its window frees room',
      );
    }
    return { ok: false, retryAfterMs };
  }

  stop(): void {
    this.stopSweeper();
  }
}
