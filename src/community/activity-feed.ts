import type { Bus, ConsumerMessages } from '../bus/index.ts';
import type { Logger } from '../log.ts';
import { isoFromMicros, microsFromIso, microsFromNanos, type Micros } from '../lib/micro-time.ts';
import type { ActivityEvent, ActivityList, ActivityQuery } from '../../schemas/activity.ts';
import { ActivityMessage, Streams } from '../../schemas/messages.ts';
import { toPublic } from './activity-privacy.ts';

interface Stored {
  event: ActivityEvent;
  micros: Micros;
}

export type ActivityListener = (event: ActivityEvent) => void;

/**
 * The activity stream mirrored in memory by an ordered consumer: pages and live listeners are
 * served from here, not with a JetStream round trip per request. Ids and times both rise with
 * the stream sequence, so both cursors are binary searches.
 */
export class ActivityFeed {
  private readonly events: Stored[] = [];
  private readonly listeners = new Set<ActivityListener>();
  private messages: ConsumerMessages | null = null;

  constructor(
    private readonly bus: Pick<Bus, 'js' | 'jsm' | 'retry'>,
    private readonly log: Logger,
    private readonly maxKept = Streams.activity.maxMessages,
  ) {}

  /** Replays the stream and follows it. Resolves once everything stored before the call is in. */
  async start(): Promise<void> {
    // Both tried until the cluster answers (a node down at start-up: the bus retry).
    const stream = { kind: 'stream', name: Streams.activity.name } as const;
    const info = await this.bus.retry.run({ op: 'info', ...stream }, () => this.bus.jsm.streams.info(Streams.activity.name));
    const caughtUpAt = info.state.last_seq;
    let markReady!: () => void;
    const ready = new Promise<void>((resolve) => (markReady = resolve));
    if (info.state.messages === 0) markReady();
    this.messages = await this.bus.retry.run({ op: 'follow (ordered consumer)', ...stream }, async () =>
      (await this.bus.js.consumers.get(Streams.activity.name)).consume(),
    );
    void (async () => {
      for await (const m of this.messages!) {
        const parsed = ActivityMessage.safeParse(m.json());
        if (parsed.success) {
          const micros = microsFromNanos(m.info.timestampNanos);
          // Also applied here: events stored before the rule (or by an older process) are served by it too.
          this.append({ event: { ...toPublic(parsed.data), id: m.seq, ts: isoFromMicros(micros) }, micros });
        } else {
          this.log.warn({ seq: m.seq }, 'skipping an activity message that does not match the schema');
        }
        if (m.seq >= caughtUpAt) markReady();
      }
    })().catch((err: unknown) =>
      this.log.error({ err }, 'activity feed: the stream consumer ended; new events are not served until a restart'),
    );
    await ready;
    this.log.info({ events: this.events.length }, 'activity feed loaded');
  }

  stop(): void {
    void this.messages?.close();
    this.listeners.clear();
  }

  private append(stored: Stored): void {
    this.events.push(stored);
    if (this.events.length > this.maxKept * 1.1) this.events.splice(0, this.events.length - this.maxKept);
    for (const listener of this.listeners) listener(stored.event);
  }

  /** Calls `listener` with every new event until the returned function is called. */
  subscribe(listener: ActivityListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** First index whose key is > `value` (keys rise with the index). */
  private upperBound(value: number, key: (s: Stored) => number): number {
    let lo = 0;
    let hi = this.events.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (key(this.events[mid]!) <= value) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * Newest first; with `since`, oldest first from just after that id, so a client paging
   * forward with the last id it saw never misses one.
   */
  list(query: ActivityQuery): ActivityList {
    const matches = (s: Stored) => !query.kind || s.event.kind === query.kind;
    const page: Stored[] = [];
    if (query.since !== undefined) {
      for (let i = this.upperBound(query.since, (s) => s.event.id); i < this.events.length && page.length < query.limit; i++) {
        const s = this.events[i]!;
        if (matches(s) && (!query.before || s.micros < microsFromIso(query.before))) page.push(s);
      }
    } else {
      const end = query.before ? this.upperBound(microsFromIso(query.before) - 1, (s) => s.micros) : this.events.length;
      for (let i = end - 1; i >= 0 && page.length < query.limit; i--) {
        if (matches(this.events[i]!)) page.push(this.events[i]!);
      }
    }
    const full = page.length === query.limit;
    return {
      count: page.length,
      events: page.map((s) => s.event),
      next_before: full && query.since === undefined ? page[page.length - 1]!.event.ts : null,
    };
  }
}
