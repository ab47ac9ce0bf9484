import { randomUUID } from 'node:crypto';
import type { JsonKv } from '../../bus/index.ts';
import { answerWithin } from '../../lib/answer-within.ts';
import type { Logger } from '../../log.ts';
import type { StreamSlotsRecord } from '../../../schemas/messages.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

/** Each edge renews the expiry of its open streams this often… */
export const STREAM_RENEW_MS = 5_000;
/** …to this far ahead: a stream whose edge died (SIGKILL) stops counting at most this long after its last renewal. */
export const STREAM_EXPIRY_MS = 15_000;
/** How long an opening stream waits for KV before this edge decides alone. */
const CLAIM_WAIT_MS = 750;
/** After KV failed or came late, this edge counts alone this long before it asks KV again. */
const DEGRADED_MS = 2_000;

class Refused extends Error {
  constructor() {
    super('refused');
  }
}

type Entry = StreamSlotsRecord['streams'][number];

/**
 * Concurrent streams per holder over every edge: one NATS KV entry per holder (`sf_stream_slots`)
 * lists its open streams {edge, id, expires}, changed by compare-and-set. A stream is opened only
 * when the entries still live (others' not expired, this edge's still open) leave room; each edge
 * renews its own entries every STREAM_RENEW_MS to STREAM_EXPIRY_MS ahead and removes them on
 * close, so a SIGKILLed edge's streams stop counting at most STREAM_EXPIRY_MS (15 s, plus the
 * clock difference between edges) after its last renewal.
 * Fast path: a holder already at its limit on this edge is refused without asking KV.
 * When KV cannot be reached or is slow to answer (750 ms), this edge's own count decides (the
 * limit then holds per edge, so a key may hold up to limit × edges streams) for 2 s at a time;
 * the streams it let open join the KV entry at the next renewal once KV answers again.
 */
export class ClusterStreamSlots {
  /** This process's name in the entries. */
  readonly edgeId = randomUUID();
  /** Stream ids open (or opening) on this edge, by holder. */
  private readonly open = new Map<string, Set<string>>();
  /** Of those, the ones whose claim is still in flight. */
  private readonly opening = new Set<string>();
  private degradedUntil = Number.NEGATIVE_INFINITY;
  private next = 0;
  private readonly writes = new Set<Promise<unknown>>();
  private renewing: Promise<void> | null = null;
  private readonly stopRenewer: () => void;

  private readonly clock: Clock;

  constructor(
    private readonly kv: JsonKv<typeof StreamSlotsRecord>,
    private readonly log: Logger,
    /** How often the open streams are renewed (tests that pass their own times renew by hand). */
    renewMs = STREAM_RENEW_MS,
    options: { clock?: Clock } = {},
  ) {
    this.clock = options.clock ?? liveClock;
    this.stopRenewer = this.clock.every(renewMs, () => void this.renew());
  }

  /** Takes a slot of `holder` (a KV key: `sse.7`); its release function, or null when the holder is at `limit`. */
  async acquire(holder: string, limit: number, now = this.clock.now()): Promise<(() => void) | null> {
    const mine = this.open.get(holder) ?? new Set<string>();
    if (mine.size >= limit) return null;
    const id = `${this.edgeId}.${++this.next}`;
    // Counted here from now on, so a second stream of the holder opening on this edge meanwhile sees it.
    mine.add(id);
    this.open.set(holder, mine);
    if (now >= this.degradedUntil) {
      this.opening.add(id);
      const room = await this.claim(holder, id, limit, now).finally(() => this.opening.delete(id));
      if (!room) {
        this.drop(holder, id);
        return null;
      }
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.drop(holder, id);
      this.track(this.write(holder, this.clock.now()));
    };
  }

  /** Writes the holder's entry with stream `id` if the limit leaves room for it; false when it does not. */
  private async claim(holder: string, id: string, limit: number, now: number): Promise<boolean> {
    const written = this.write(holder, now, { id, limit });
    try {
      // A write held up (a NATS node died, its leader being elected) must not hold the stream up.
      await answerWithin(written, CLAIM_WAIT_MS, 'NATS KV');
      return true;
    } catch (err) {
      if (err instanceof Refused) return false;
      // A write landing later is set right by the next renewal (or expires).
      this.track(written);
      this.log.warn({ err: (err as Error).message }, 'stream limit: NATS KV not answering, counting on this edge only for a while');
      this.degradedUntil = now + DEGRADED_MS;
      return true;
    }
  }

  /**
   * The holder's entry rewritten: the other edges' live streams kept, this edge's set to the
   * streams open here now, expiring STREAM_EXPIRY_MS ahead. A claim is refused (nothing
   * written) when they would be more than its limit.
   */
  private async write(holder: string, now: number, claiming?: { id: string; limit: number }): Promise<void> {
    await this.kv.mutate(holder, (current) => {
      const others = (current?.streams ?? []).filter((s) => s.edge !== this.edgeId && s.expires > now);
      // Streams still opening are written by their own claim only: one refused must leave no entry behind.
      const ids = [...(this.open.get(holder) ?? [])].filter((id) => id === claiming?.id || !this.opening.has(id));
      const mine: Entry[] = ids.map((id) => ({ edge: this.edgeId, id, expires: now + STREAM_EXPIRY_MS }));
      if (claiming && others.length + mine.length > claiming.limit) throw new Refused();
      return { streams: [...others, ...mine] };
    });
  }

  /** Renews the expiry of this edge's open streams (every STREAM_RENEW_MS; one renewal at a time). */
  renew(now = this.clock.now()): Promise<void> {
    this.renewing ??= (async () => {
      const holders = [...this.open.keys()];
      // A failed renewal is tried again next time; an entry lives two missed renewals.
      const failed = (holder: string) => (err: unknown) =>
        this.log.warn({ err: (err as Error).message, holder }, 'stream limit: renewal failed');
      await Promise.all(holders.map((holder) => this.write(holder, now).catch(failed(holder))));
    })().finally(() => (this.renewing = null));
    return this.renewing;
  }

  private drop(holder: string, id: string): void {
    const mine = this.open.get(holder);
    mine?.delete(id);
    if (mine?.size === 0) this.open.delete(holder);
  }

  /** A write nobody waits for: kept until done so stop() can let it finish; its failure only logged (the entry expires). */
  private track(write: Promise<unknown>): void {
    const tracked = write
      .catch((err: unknown) => {
        if (!(err instanceof Refused))
          this.log.warn({ err: (err as Error).message }, 'stream limit: KV write failed; the entry expires by itself');
      })
      .finally(() => this.writes.delete(tracked));
    this.writes.add(tracked);
  }

  /** Stops renewing; waits for the releases in flight (a draining edge frees its slots at once, not after the expiry). */
  async stop(): Promise<void> {
    this.stopRenewer();
    let timer: NodeJS.Timeout | undefined;
    // Bounded: with KV away the entries expire by themselves.
    const bound = new Promise((resolve) => (timer = setTimeout(resolve, STREAM_RENEW_MS)));
    await Promise.race([Promise.all([...this.writes, this.renewing]), bound]).finally(() => clearTimeout(timer));
  }
}
