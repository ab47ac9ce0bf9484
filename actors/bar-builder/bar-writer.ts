import { publish, type Bus } from '../../src/bus/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import { retry } from '../../src/lib/retry.ts';
import { TIMEFRAME_MS } from '../../src/lib/timeframes.ts';
import type { Logger } from '../../src/log.ts';
import type { MarketData } from '../../src/market/index.ts';
import type { TickWriter } from '../../src/store/index.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { Topics } from '../../schemas/messages.ts';

/** A bar that ended within this long before now is of the live market: it goes out at once. */
const LIVE_BAR_MS = 60_000;
/** At most this many pending bars also go out at once (8 symbols × 4 timeframes closing together). */
const FEW_BARS = 32;

/** Whose bars these are: told once they are stored and published, or that they were not. */
export interface BarOwner {
  /** Set once the owner's ticks were handed back to their source: its bars are not stored (they are rebuilt). */
  handedBack(): boolean;
  stored(bars: readonly BarMessage[]): void;
  storeFailed(err: unknown): void;
}

export interface BarWriterDeps {
  /** The process's tick writer: a bar is stored only after the ticks pending before it. */
  ticks: TickWriter;
  bars: Pick<MarketData['bars'], 'insert'>;
  bus: Pick<Bus, 'nc' | 'js'>;
  log: Logger;
  clock?: Clock;
}

/**
 * Stores the closed bars of every bar builder of a process, then publishes them: one insert for
 * all their symbols per flush, after one flush of the shared tick writer. Each insert costs
 * ClickHouse a part whatever its size, and a bar flush forces the ticks pending out first, so
 * eight builders flushing apart made eight times both kinds of insert (ingest stored a third of
 * the ticks per engine-second that a single builder did). A bar of the live market goes out ~20 ms
 * after it closes; a flood of bars that ended long ago (a replay, a catch-up) once a second.
 */
export class BarWriter {
  private pending: { owner: BarOwner; bar: BarMessage }[] = [];
  private lastFlush = 0;
  private flushing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private scheduled: Promise<void> | null = null;
  private readonly clock: Clock;

  constructor(private readonly deps: BarWriterDeps) {
    this.clock = deps.clock ?? liveClock;
  }

  get ticks(): TickWriter {
    return this.deps.ticks;
  }

  /** Queues a closed bar; `schedule()` sends it. */
  add(owner: BarOwner, bar: BarMessage): void {
    this.pending.push({ owner, bar });
  }

  /**
   * One flush shortly, shared by every bar until it starts: in 20 ms for a bar of the live market
   * or a few bars of any age; a flood of bars that ended long ago waits until a second after the
   * last flush, so that few large inserts carry them.
   */
  schedule(): Promise<void> {
    if (this.pending.length === 0) return Promise.resolve();
    if (this.scheduled) return this.scheduled;
    const now = this.clock.now();
    const live =
      this.pending.length <= FEW_BARS || this.pending.some(({ bar }) => bar.ts + TIMEFRAME_MS[bar.timeframe] > now - LIVE_BAR_MS);
    const delay = live ? 20 : Math.max(20, this.lastFlush + 1000 - now);
    this.scheduled = new Promise<void>((resolve) => setTimeout(resolve, delay)).then(() => {
      this.scheduled = null;
      return this.flush();
    });
    return this.scheduled;
  }

  /**
   * Stores the pending ticks and bars, then publishes the bars. Flushes run one after another, and
   * each takes what is pending when it STARTS: while one insert runs, everything that arrives waits
   * for the next, so batches grow with the load instead of queueing up. Never rejects: a failure
   * is told to the bars' owners.
   */
  flush(): Promise<void> {
    if (this.queued) return this.queued;
    const run = this.flushing
      .catch(() => undefined)
      .then(() => {
        this.queued = null;
        return this.storePending();
      });
    this.queued = run;
    this.flushing = run;
    return run;
  }

  private async storePending(): Promise<void> {
    const taken = this.pending;
    this.pending = [];
    this.lastFlush = this.clock.now();
    // The bars' ticks first (a tick insert that fails for good is counted and logged there).
    await this.deps.ticks.flush();
    // An owner whose ticks were handed back to their source stores no bar built on them: it starts over.
    const kept = taken.filter(({ owner }) => !owner.handedBack());
    if (kept.length === 0) return;
    const bars = kept.map(({ bar }) => bar);
    try {
      // Rows are keyed (bars by version), so a retried insert replaces.
      await retry(() => this.deps.bars.insert(bars));
      for (const bar of bars) await publish(this.deps.bus, Topics.bars, [bar.symbol, bar.timeframe], bar);
    } catch (err) {
      this.deps.log.error({ err, bars: bars.length }, 'storing bars failed');
      for (const owner of new Set(kept.map(({ owner }) => owner))) owner.storeFailed(err);
      return;
    }
    const byOwner = new Map<BarOwner, BarMessage[]>();
    for (const { owner, bar } of kept) {
      const list = byOwner.get(owner);
      if (list) list.push(bar);
      else byOwner.set(owner, [bar]);
    }
    for (const [owner, list] of byOwner) owner.stored(list);
  }
}
