import type { DeliveryProgress } from '../../schemas/delivery.ts';
import type { Logger } from '../../src/log.ts';
import { furthest, progressPage, progressPageKey, readProgressPage, type ProgressKv } from '../../src/delivery/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';

export interface ProgressJournalDeps {
  kv: ProgressKv;
  /** This process's lease host id: its pages are `<page>.<host>`. */
  hostId: string;
  log: Logger;
  clock?: Clock;
  /** How long a delivery waits for its page's write (gathering the others of the bar), at least. */
  flushMs?: number;
  /** Entries rewritten per second at most: a flush of many waits longer before the next (FLUSH_ENTRIES_PER_S). */
  entriesPerS?: number;
  /** A worker whose deliveries have waited here this long writes them to its state. */
  checkpointAfterMs?: number;
}

/** Entries held for a worker, and how to make it write them to its state. */
interface Held {
  progress: DeliveryProgress;
  /** When the first of these deliveries was held (the clock's ms). */
  since: number;
  checkpoint: () => void;
}

const FLUSH_MS = 200;
/**
 * A flush rewrites its pages whole, with every entry held (each is held until its worker's next
 * state write, minutes): 10,000 held deployments are ~1.5 MB of JSON a flush. Every 200 ms
 * through a bar that was 86 % of delivery's JSON.stringify (profiled, 2026-12-02) and ~30 MB a bar
 * for nats-server to take. So the next flush waits as long as rewriting this one's entries at
 * this rate takes (~1 MB/s), between FLUSH_MS and MAX_FLUSH_MS.
 */
const FLUSH_ENTRIES_PER_S = 8_000;
/** The most a delivery waits for its page: what a process killed mid-burst sends again (same webhook-id). */
const MAX_FLUSH_MS = 2_000;
/** Well inside the bucket's TTL (a day), so a page never expires while it holds anything. */
const CHECKPOINT_AFTER_MS = 5 * 60_000;
/** Pages read for the deployments this process takes over, reused for a burst of claims. */
const READ_REUSE_MS = 1_000;

/**
 * Where this process's webhook deliveries reached, per deployment, kept in pages of
 * `sf_delivery_progress` instead of a state write per webhook: a bar's 10,000 deliveries were
 * 10,000 KV writes (a fifth of delivery's CPU, measured, and as many stored messages), and are now
 * a few writes of each of 64 pages. A page is rewritten `flushMs` after a delivery on it (longer
 * after a flush of many entries, at most MAX_FLUSH_MS), so a process killed mid-bar sends at most
 * that long's webhooks again (same webhook-id) — only the webhook channel, whose receivers
 * de-duplicate, goes through here. A worker writes its state as before on any other transition, at
 * stop, and after `checkpointAfterMs`, and its entry leaves the journal once that write is stored.
 * The next holder of a deployment and the deliveries API take the furthest of the state and every
 * host's entry (`withProgress`): pages of a dead process stay until it has been taken over.
 */
export class ProgressJournal {
  /** Held entries by page, then by state key. */
  private readonly pages = new Map<number, Map<string, Held>>();
  private readonly dirty = new Set<number>();
  private timer: NodeJS.Timeout | undefined;
  private sweeper: NodeJS.Timeout | undefined;
  private writing: Promise<void> = Promise.resolve();
  private readonly read = new Map<number, { at: number; entries: Promise<Map<string, DeliveryProgress>> }>();
  private readonly clock: Clock;
  private readonly flushMs: number;
  private readonly entriesPerS: number;
  /** The wait before the next flush: flushMs, or longer after a flush of many entries. */
  private nextFlushMs: number;
  private readonly checkpointAfterMs: number;
  private closed = false;
  /** Page writes made (tests, stats). */
  writes = 0;

  constructor(private readonly deps: ProgressJournalDeps) {
    this.clock = deps.clock ?? liveClock;
    this.flushMs = deps.flushMs ?? FLUSH_MS;
    this.entriesPerS = deps.entriesPerS ?? FLUSH_ENTRIES_PER_S;
    this.nextFlushMs = this.flushMs;
    this.checkpointAfterMs = deps.checkpointAfterMs ?? CHECKPOINT_AFTER_MS;
    this.sweeper = setInterval(() => this.sweep(), Math.max(50, this.checkpointAfterMs / 4));
    this.sweeper.unref();
  }

  /** A delivery of `key` reached `progress` (absolute: it replaces what was held). */
  record(key: string, progress: DeliveryProgress, checkpoint: () => void): void {
    const page = progressPage(key);
    let held = this.pages.get(page);
    if (!held) this.pages.set(page, (held = new Map()));
    const entry = held.get(key);
    if (entry) entry.progress = progress;
    else held.set(key, { progress, since: this.clock.now(), checkpoint });
    this.touch(page);
  }

  /** `key`'s state now holds its deliveries up to `cursor`: its entry goes unless it went further since. */
  forget(key: string, cursor: number): void {
    const page = progressPage(key);
    const held = this.pages.get(page);
    const entry = held?.get(key);
    if (!entry || entry.progress.cursor > cursor) return;
    held!.delete(key);
    this.touch(page);
  }

  /** The furthest progress of `key` this process holds or any host's page has. */
  async find(key: string): Promise<DeliveryProgress | null> {
    const page = progressPage(key);
    const own = this.pages.get(page)?.get(key)?.progress;
    const now = performance.now();
    let stored = this.read.get(page);
    if (!stored || now - stored.at > READ_REUSE_MS) {
      stored = { at: now, entries: readProgressPage(this.deps.kv, page, this.deps.hostId) };
      this.read.set(page, stored);
      // A failed read is not reused.
      stored.entries.catch(() => this.read.get(page) === stored && this.read.delete(page));
    }
    return furthest(own, (await stored.entries).get(key));
  }

  private touch(page: number): void {
    this.dirty.add(page);
    if (!this.timer && !this.closed) this.timer = setTimeout(this.flush, this.nextFlushMs);
  }

  /** Writes the pages changed since the last flush (one flush at a time, in order). */
  private readonly flush = (): void => {
    this.timer = undefined;
    this.writing = this.writing.then(() => this.writeDirty());
  };

  private async writeDirty(): Promise<void> {
    const pages = [...this.dirty];
    this.dirty.clear();
    const { kv, hostId, log } = this.deps;
    const written_at = this.clock.now();
    let entries = 0;
    for (const page of pages) entries += this.pages.get(page)?.size ?? 0;
    this.nextFlushMs = Math.max(this.flushMs, Math.min(MAX_FLUSH_MS, (entries / this.entriesPerS) * 1000));
    await Promise.all(
      pages.map(async (page) => {
        const held = this.pages.get(page);
        const key = progressPageKey(page, hostId);
        try {
          if (!held || held.size === 0) {
            this.pages.delete(page);
            await kv.delete(key);
          } else {
            const entries: Record<string, DeliveryProgress> = {};
            for (const [k, h] of held) entries[k] = h.progress;
            await kv.put(key, { host: hostId, written_at, entries }, { parse: false });
          }
          this.writes++;
        } catch (err) {
          // Written again with the next flush (its deliveries stay held, and are sent again if this process dies first).
          log.warn({ page, error: (err as Error).message }, 'delivery progress write failed');
          this.touch(page);
        }
      }),
    );
  }

  /** Workers holding deliveries longer than checkpointAfterMs write them to their state. */
  private sweep(): void {
    const before = this.clock.now() - this.checkpointAfterMs;
    for (const held of this.pages.values()) for (const entry of held.values()) if (entry.since <= before) entry.checkpoint();
  }

  /** Writes what is pending and stops (after the workers' own stops, whose checkpoints it carries). */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty.size > 0) this.flush();
    this.closed = true;
    await this.writing;
  }
}
