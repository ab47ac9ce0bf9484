import type { JsonKv } from '../../src/bus/index.ts';
import type { Logger } from '../../src/log.ts';
import { type Buckets } from '../../schemas/messages.ts';
import { USAGE_CURSOR_KEY, type CreditChange } from '../../schemas/account-records.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';

/** A change as `usage_events` stores it: under its seq (KV revision), with its user. */
type UsageRow = Omit<CreditChange, 'seq' | 'n'> & { seq: number; user_id: number };

export interface UsageRecorderDeps {
  /** The credits bucket, whose revisions carry the changes (CreditsRecord.changes). */
  credits: JsonKv<typeof Buckets.credits.schema>;
  /** Where the recorder keeps how far it has stored (key `cursor`); the ledgers read it too. */
  cursor: JsonKv<typeof Buckets.usageCursor.schema>;
  /** The `usage_events` table's repo: a stored row is keyed by its seq, so a repeat replaces it. */
  repo: { append(rows: UsageRow[]): Promise<void> };
  log: Logger;
  /** Rows are stored at most this often (one INSERT each), sooner when `maxRows` gather. */
  intervalMs?: number;
  maxRows?: number;
  /** The time (liveClock unless a test sets it). */
  clock?: Clock;
}

/**
 * Copies every credit change into `usage_events`, off the request path: it reads the credits
 * bucket's revisions in order from its cursor, and stores the changes each carries in batches
 * (one INSERT a second, not one per charge); the cursor moves only once a batch is stored, so a
 * restart reads again what was not, and a row stored twice replaces itself (same seq, the KV
 * revision). A revision superseded before it was read loses nothing: the ledger carries a change
 * in the entry until it knows it stored (see CreditLedger).
 */
export class UsageRecorder {
  private readonly pending = new Map<number, UsageRow>();
  /** The last revision read, and the last one whose changes are stored. */
  private position = 0;
  private committed = 0;
  private revisions: Awaited<ReturnType<JsonKv<typeof Buckets.credits.schema>['revisions']>> | null = null;
  private loop: Promise<void> | null = null;
  private stopped = false;
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();
  private readonly counts = { stored: 0, batches: 0, failed: 0 };

  private readonly clock: Clock;

  constructor(private readonly deps: UsageRecorderDeps) {
    this.clock = this.deps.clock ?? liveClock;
  }

  async start(): Promise<void> {
    this.committed = this.position = (await this.deps.cursor.get(USAGE_CURSOR_KEY))?.value.seq ?? 0;
    this.revisions = await this.deps.credits.revisions(this.position + 1);
    this.loop = this.follow();
    this.timer = setInterval(() => void this.flush(), this.deps.intervalMs ?? 1_000);
  }

  /** Reads revisions until stopped; a read that breaks or ends is opened again after the last revision read. */
  private async follow(): Promise<void> {
    const maxRows = this.deps.maxRows ?? 2_000;
    while (!this.stopped) {
      try {
        this.revisions ??= await this.deps.credits.revisions(this.position + 1);
        if (this.stopped) await this.revisions.close(); // stopped while it was opened
        for await (const { key, revision, value } of this.revisions) {
          this.position = revision;
          const userId = Number(key);
          if (!Number.isSafeInteger(userId)) continue;
          for (const c of value?.changes ?? []) {
            const seq = c.seq ?? revision;
            this.pending.set(seq, {
              seq,
              user_id: userId,
              ts: c.ts,
              delta: c.delta,
              balance_after: c.balance_after,
              reason: c.reason,
              ref: c.ref,
            });
          }
          if (this.pending.size >= maxRows) await this.flush();
        }
        if (this.stopped) return;
        throw new Error('the read of the credits bucket ended');
      } catch (err) {
        if (this.stopped) return;
        this.deps.log.error({ err }, 'usage recorder: reading the credits bucket broke; reading on in a second');
        await this.revisions?.close().catch(() => {});
        this.revisions = null;
        await new Promise((r) => setTimeout(r, 1_000));
      }
    }
  }

  /** Stores what was read so far and moves the cursor past it (one batch at a time). */
  flush(): Promise<void> {
    this.flushing = this.flushing.then(() => this.store());
    return this.flushing;
  }

  private async store(): Promise<void> {
    const through = this.position;
    if (through <= this.committed) return;
    const rows = [...this.pending.values()];
    this.pending.clear();
    try {
      if (rows.length > 0) await this.deps.repo.append(rows);
      await this.deps.cursor.mutate(USAGE_CURSOR_KEY, (current) => ({
        seq: Math.max(current?.seq ?? 0, through),
        updated_at: this.clock.now(),
      }));
      this.committed = through;
      this.counts.stored += rows.length;
      this.counts.batches++;
    } catch (err) {
      // Kept for the next batch (a newer copy of a row, read meanwhile, wins).
      for (const row of rows) if (!this.pending.has(row.seq)) this.pending.set(row.seq, row);
      this.counts.failed++;
      this.deps.log.error({ err, rows: rows.length }, 'usage recorder: storing credit changes failed; the next batch tries again');
    }
  }

  /** Resolves once every revision written before the call is stored (false after `timeoutMs`). */
  async caughtUp(timeoutMs = 10_000): Promise<boolean> {
    const target = await this.deps.credits.lastRevision();
    const deadline = performance.now() + timeoutMs;
    while (this.committed < target) {
      if (performance.now() > deadline) return false;
      await new Promise((r) => setTimeout(r, 20));
      await this.flush();
    }
    return true;
  }

  stats() {
    return { ...this.counts, position: this.position, committed: this.committed };
  }

  /** Stops reading and stores what was read. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.stopped = true;
    await this.revisions?.close();
    await this.loop;
    await this.flush();
  }
}
