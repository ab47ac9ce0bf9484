import type { DataSource } from '../../schemas/market.ts';
import type { Logger } from '../log.ts';
import type { TickColumns } from './tick-columns.ts';
import type { TicksRepo } from './ticks-repo.ts';

export interface TickWriterOptions {
  /** How long the first pending tick may wait for company (default 250 ms). */
  maxDelayMs?: number;
  /** Pending ticks that start an insert at once (default 400 000). */
  batchTicks?: number;
  /** Pending ticks beyond which ready() waits for the next insert (default 1 000 000). */
  highWater?: number;
  /** Attempts per insert (keyed rows replace, so a repeat is harmless; default 5). */
  attempts?: number;
  /**
   * Told when an insert failed every attempt, before the ticks are given up here. An owner that
   * can have them delivered again (ingest: from the TICKS stream, at its cursor) says so, and
   * they are logged as handed back; without it they are lost (logged, counted in `failed`).
   */
  onFailed?: (err: unknown) => void;
}

/**
 * Stores ticks in few, large inserts. Every MergeTree insert writes a new part, and the engine's
 * cost per insert (and its merges later) dwarfs its cost per row: at 600 000 ticks/s, 17 inserts
 * a second of 35 000 rows kept more than a core busy, where 3 of 200 000 rows need a fifth of
 * one. So ticks wait here (as columns, about 36 bytes each) until `batchTicks` have gathered or
 * the first has waited `maxDelayMs`. Inserts run one after another, each taking all that is
 * pending when it starts, so under load they simply grow. Callers go on at once below
 * `highWater`; above it, ready() makes them wait for storage (back-pressure).
 */
export class TickWriter {
  /** Ticks stored so far. */
  stored = 0;
  /** Ticks whose insert failed every attempt (lost, unless `onFailed` has them delivered again). */
  failed = 0;
  private pending = new Map<DataSource, TickColumns[]>();
  private pendingTicks = 0;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly maxDelayMs: number;
  private readonly batchTicks: number;
  private readonly highWater: number;
  /** Owners told of a failed insert besides `onFailed` (the bar builders that share this writer). */
  private readonly failureListeners = new Set<(err: unknown) => void>();

  constructor(
    private readonly repo: Pick<TicksRepo, 'insertColumns'>,
    private readonly log: Logger,
    private readonly options: TickWriterOptions = {},
  ) {
    this.maxDelayMs = options.maxDelayMs ?? 250;
    this.batchTicks = options.batchTicks ?? 400_000;
    this.highWater = options.highWater ?? 1_000_000;
  }

  /**
   * Tells `listener` of every insert that failed every attempt, as `onFailed` (a writer shared by
   * several owners tells each); returns the way to stop telling it.
   */
  onFailure(listener: (err: unknown) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /** Ticks waiting for an insert (not counting the one running). */
  get waiting(): number {
    return this.pendingTicks;
  }

  /** Takes a batch in: kept, not copied, and released once stored (the caller gives it up). */
  add(batch: TickColumns, source: DataSource): void {
    if (batch.length === 0) return batch.release();
    let list = this.pending.get(source);
    if (!list) this.pending.set(source, (list = []));
    list.push(batch);
    this.pendingTicks += batch.length;
    if (this.running) return;
    if (this.pendingTicks >= this.batchTicks) void this.store().catch(() => undefined);
    else this.timer ??= setTimeout(() => void this.store().catch(() => undefined), this.maxDelayMs);
  }

  /**
   * Resolves at once while fewer than `highWater` ticks wait; otherwise once the insert running
   * (or the next) has finished. Never rejects: the caller's ticks are not the ones that insert
   * carried, and ticks lost to a failed insert are counted here (`failed`).
   */
  ready(): Promise<void> {
    if (this.pendingTicks < this.highWater) return Promise.resolve();
    return (this.running ?? this.store()).catch(() => undefined);
  }

  /**
   * Stores everything pending now and waits for it (ticks added meanwhile may ride along; under
   * a steady flow it does not wait for the flow to stop). Never rejects: failures are counted.
   */
  async flush(): Promise<void> {
    // What is pending now is in the insert running, or goes in the next one.
    if (this.running) await this.running.catch(() => undefined);
    const next = this.running ?? (this.pendingTicks > 0 ? this.store() : null);
    if (next) await next.catch(() => undefined);
  }

  private store(): Promise<void> {
    if (this.running) return this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batches = this.pending;
    const count = this.pendingTicks;
    this.pending = new Map();
    this.pendingTicks = 0;
    const run = this.insertAll(batches, count).finally(() => {
      this.running = null;
      // What gathered meanwhile goes next: at once if it is a full batch, else after the delay.
      if (this.pendingTicks >= this.batchTicks) void this.store().catch(() => undefined);
      else if (this.pendingTicks > 0) this.timer ??= setTimeout(() => void this.store().catch(() => undefined), this.maxDelayMs);
    });
    this.running = run;
    return run;
  }

  /**
   * Inserts each source's batches; a source whose insert fails every attempt gives its ticks up
   * (counted): back to the owner's source through `onFailed`, else lost.
   */
  private async insertAll(batches: Map<DataSource, TickColumns[]>, count: number): Promise<void> {
    const attempts = this.options.attempts ?? 5;
    let failure: unknown = null;
    for (const [source, list] of batches) {
      const ticks = list.reduce((n, b) => n + b.length, 0);
      for (let attempt = 1; ; attempt++) {
        try {
          await this.repo.insertColumns(list, source);
          this.stored += ticks;
          for (const b of list) b.release();
          break;
        } catch (err) {
          if (attempt < attempts) {
            await new Promise((r) => setTimeout(r, 50 * 2 ** (attempt - 1)));
            continue;
          }
          this.failed += ticks;
          for (const b of list) b.release();
          if (this.options.onFailed || this.failureListeners.size > 0) {
            this.log.error(
              { err, source, ticks, pending: count, attempts },
              'storing ticks failed; they will be read again from their source and stored once (keyed rows replace). If this repeats, check that ClickHouse (or `signalforge store`) is reachable and not overloaded',
            );
            this.options.onFailed?.(err);
            for (const listener of [...this.failureListeners]) listener(err);
          } else {
            this.log.error({ err, source, ticks, pending: count }, 'storing ticks failed; they are lost');
          }
          failure ??= err;
          break;
        }
      }
    }
    if (failure) throw failure;
  }
}
