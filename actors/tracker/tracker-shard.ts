import { type Actor } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import type { Logger } from '../../src/log.ts';
import { ModelRejectedError } from '../../src/scoring/index.ts';
import type { CommunityEntryRecord } from '../../schemas/community.ts';
import type { EntryTracker } from './entry-tracker.ts';

/** A failed entry is opened again after this, doubled per failure in a row up to RETRY_MAX_MS. */
const RETRY_BASE_MS = 1000;
const RETRY_MAX_MS = 10 * 60_000;

/** What a shard hears: a bar closed on a series, or a new entry in the shard. */
export type TrackerMessage = { kind: 'bar'; symbol: string; timeframe: string; ts: number } | { kind: 'entries' };

export interface TrackerShardDeps {
  shard: number;
  /** The shard's entries now. */
  entries(): CommunityEntryRecord[];
  /** Opens trackers for entries (one KV and one ClickHouse round for all); an entry that cannot open is an Error. */
  open(entries: CommunityEntryRecord[]): Promise<Array<EntryTracker | Error>>;
  /** Whether a closed bar advances this entry now (see Cadence); the bars it skips are caught up later. */
  due(tracker: EntryTracker, barTs: number): boolean;
  /** Market time: the bars closed by now. */
  clock: Clock;
  /** When a failed entry is retried (failures are real-time things: a store timing out); default the machine's clock. */
  retryClock?: Clock;
  /**
   * Records that an entry is not tracked any more, for good (its frozen model failed the safety
   * check): the entry says so and leaves `entries()`, here and after a restart.
   */
  refuse?(communityId: number): Promise<void>;
  log: Logger;
}

/**
 * The tracker of one shard of shared entries (the ActorHost runs one per shard it holds the
 * lease of): an EntryTracker per entry, each bar handed to those of its series at once. One entry
 * failing (its code raising on new bars, a store unreachable) closes only that entry's tracker;
 * it is opened again from its saved state after a backoff (doubling while it keeps failing) and
 * catches up, so it resumes where its last stored bar left it. The shard itself does not fault for
 * an entry. An entry whose frozen model fails the safety check is not retried: the model is the
 * same on every retry, so the entry is marked (`refuse`) and left alone, like a failed deployment.
 */
export class TrackerShard implements Actor<TrackerMessage> {
  private readonly trackers = new Map<number, EntryTracker>();
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  /** Entries to open at the next message (new ones). */
  private dirty = true;
  /** Entries that failed: opened again once their backoff has passed (by a timer, or at a message after it). */
  private readonly retries = new Map<number, { at: number; failures: number; cancel(): void }>();
  private failures = 0;
  /** Entries refused for good in this shard's life (the mark on the entry keeps them out after it). */
  private readonly refused = new Set<number>();
  private readonly retryClock: Clock;

  constructor(private readonly deps: TrackerShardDeps) {
    this.retryClock = deps.retryClock ?? liveClock;
  }

  /** Opens every entry of the shard and tracks the bars closed since each was last tracked. */
  async start(): Promise<void> {
    await this.enqueue(() => this.sync());
  }

  handle(message: TrackerMessage): Promise<void> {
    if (message.kind === 'entries') this.dirty = true;
    return this.enqueue(async () => {
      await this.sync();
      if (message.kind !== 'bar') return;
      const due = [...this.trackers.values()].filter((t) => t.follows(message.symbol, message.timeframe) && this.deps.due(t, message.ts));
      await Promise.all(due.map((t) => this.guard(t, () => t.advance(message.ts))));
    });
  }

  stats() {
    const trackers = [...this.trackers.values()];
    return {
      shard: this.deps.shard,
      entries: trackers.length,
      bars: trackers.reduce((n, t) => n + t.status().bars, 0),
      failures: this.failures,
    };
  }

  /** Resolves once the messages handed so far are handled. */
  async idle(): Promise<void> {
    await this.queue;
  }

  get isStopped(): boolean {
    return this.stopped;
  }

  /** The trackers running now (tests, metrics). */
  running(): EntryTracker[] {
    return [...this.trackers.values()];
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const retry of this.retries.values()) retry.cancel();
    await this.queue;
    await Promise.all([...this.trackers.values()].map((t) => t.close().catch(() => undefined)));
    this.trackers.clear();
  }

  private enqueue(call: () => Promise<void>): Promise<void> {
    const run = this.queue.then(() => (this.stopped ? undefined : call()));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** Opens the shard's entries that have no tracker and brings them to the bars closed by now. */
  private async sync(): Promise<void> {
    if (!this.dirty && this.retries.size === 0) return;
    this.dirty = false;
    const retryNow = this.retryClock.now();
    const wanted = this.deps
      .entries()
      .filter(
        (e) =>
          !this.trackers.has(e.community_id) &&
          !this.refused.has(e.community_id) &&
          !((this.retries.get(e.community_id)?.at ?? 0) > retryNow),
      );
    if (!wanted.length) return;
    const opened = await this.deps.open(wanted);
    const now = this.deps.clock.now();
    const fresh: EntryTracker[] = [];
    opened.forEach((t, i) => {
      if (t instanceof Error) this.failed(wanted[i]!.community_id, t);
      else if (this.stopped) void t.close();
      else {
        this.trackers.set(t.communityId, t);
        fresh.push(t);
      }
    });
    await Promise.all(fresh.map((t) => this.guard(t, () => t.catchUp(now))));
  }

  /** Runs a tracker's step; a failure closes that tracker, to be opened again from its saved state. */
  private async guard(tracker: EntryTracker, step: () => Promise<void>): Promise<void> {
    try {
      await step();
      this.retries.get(tracker.communityId)?.cancel();
      this.retries.delete(tracker.communityId);
    } catch (err) {
      if (this.trackers.get(tracker.communityId) === tracker) this.trackers.delete(tracker.communityId);
      this.failed(tracker.communityId, err);
      await tracker.close().catch(() => undefined);
    }
  }

  private failed(communityId: number, err: unknown): void {
    this.failures++;
    const previous = this.retries.get(communityId);
    previous?.cancel();
    if (err instanceof ModelRejectedError && this.deps.refuse) return this.refuse(communityId, err);
    const failures = (previous?.failures ?? 0) + 1;
    const delay = Math.min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** Math.min(16, failures - 1));
    // Retried when due: at the first message after it, or by this timer if none comes.
    const cancel = this.retryClock.every(delay, () => {
      cancel();
      void this.handle({ kind: 'entries' }).catch(() => undefined);
    });
    this.retries.set(communityId, { at: this.retryClock.now() + delay, failures, cancel });
    this.deps.log.warn(
      { err, community_id: communityId, shard: this.deps.shard, failures },
      'tracker: an entry failed; it resumes from its saved state after a backoff',
    );
  }

  /** Stops tracking an entry whose frozen model was refused: no retry; the entry is marked with why. */
  private refuse(communityId: number, err: ModelRejectedError): void {
    this.retries.delete(communityId);
    this.refused.add(communityId);
    this.deps.log.warn(
      { community_id: communityId, shard: this.deps.shard, reason: err.reason },
      'tracker: the entry’s frozen model failed the safety check; it is not tracked any more, and the entry says so',
    );
    // Not marked (a store unreachable): this shard still leaves it alone; the next one to open it marks it.
    void this.deps.refuse!(communityId).catch((e: unknown) =>
      this.deps.log.error({ err: e, community_id: communityId }, 'tracker: marking a refused entry failed'),
    );
  }
}
