import type { Bus } from '../../src/bus/index.ts';
import { type Actor } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import type { Logger } from '../../src/log.ts';
import { StreamingResampler, type MarketData, type ResamplerStats, type TickSink } from '../../src/market/index.ts';
import { TickColumns, TickWriter } from '../../src/store/index.ts';
import type { Symbol } from '../../schemas/common.ts';
import type { BarMessage, DataSource, Tick } from '../../schemas/market.ts';
import { BarWriter, type BarOwner } from './bar-writer.ts';

/** How far ahead of this machine's clock a tick may be stamped (feeds' clocks drift a little). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** What the bar builder handles: ticks of one source, in arrival order. */
export interface TickBatch {
  ticks: readonly Tick[];
  source: DataSource;
}

export interface BarBuilderDeps {
  ticks: Pick<MarketData['ticks'], 'insertColumns'>;
  bars: Pick<MarketData['bars'], 'insert'>;
  bus: Pick<Bus, 'nc' | 'js'>;
  log: Logger;
  clock?: Clock;
  /** How long after its end a bar waits for a late tick before it closes without one. */
  graceMs?: number;
  /** Largest number of ticks held before a write waits for storage (back-pressure; default 1 000 000). */
  maxPendingTicks?: number;
  /**
   * The writer of ticks and bars shared with the other bar builders of the process (ingest: one
   * for all its symbols, so that inserts stay few and large: each costs ClickHouse a part, whatever
   * its size). Absent: writers of this builder's own.
   */
  writer?: BarWriter;
  /** Told of each batch of bars once stored and published (ingest moves its resume point on). */
  onStored?: (bars: readonly BarMessage[]) => void;
  /** Told when bars could not be stored (after retries): they are not published. */
  onStoreFailed?: (err: unknown) => void;
  /**
   * Given when the ticks' source can deliver them again (ingest: the TICKS stream from its cursor):
   * told when ticks could not be stored (after retries). Their ticks are then not lost but handed
   * back, and this builder stores and publishes no bar after them: the owner starts over from its
   * cursor, and the ticks and bars stored again replace themselves (keyed rows). Absent: such
   * ticks are lost (logged, counted as `failedTicks`).
   */
  onTicksFailed?: (err: unknown) => void;
  /**
   * Asked before a symbol's bars close by the quiet rule: the time they may close by (a bar whose
   * end plus the grace time is at or before it). Ingest reads a stream, where ticks of a symbol
   * that looks quiet may only be waiting behind a stalled reader or a held-up publisher (a NATS node
   * failing over); closing then would drop them as late. It answers -Infinity while the stream
   * holds ticks not read yet, else its publishers' clock, else `now`. Absent: a symbol that sent
   * nothing for the grace time is quiet as of `now`.
   */
  quietUntil?: (symbol: Symbol, now: number) => Promise<number>;
}

/**
 * Ticks in, bars out, for every live source: ticks go through the one streaming resampler;
 * ticks and closed bars are stored in ClickHouse in batches, and each closed bar is published
 * on `bars.<SYMBOL>.<tf>` only after it is stored, so a subscriber can always read it back.
 * Ticks are stored in large inserts (TickWriter: every 250 ms or 400 000 ticks); a closed bar
 * of the live market is stored ~20 ms after it closes, after the ticks pending then — so a
 * published bar's ticks are always stored; bars of a replay (ended long ago) once a second
 * (BarWriter, which the builders of a process may share).
 * Writing the same ticks twice (a source retrying after a failed write) changes nothing: the
 * resampler refuses ticks that are not after the last one it took.
 */
export class BarBuilder implements Actor<TickBatch> {
  private readonly resampler: StreamingResampler;
  private readonly writer: BarWriter;
  private readonly ticks: TickWriter;
  /** What the writer tells this builder of its bars. */
  private readonly owner: BarOwner;
  /** Bars closed since the writer was last asked to send them. */
  private unsent = 0;
  private stopTimer: (() => void) | null = null;
  private storedBars = 0;
  private future = 0;
  private confirming = false;
  /** Set once ticks were handed back to their source (`onTicksFailed`): no bar is stored after it. */
  private ticksFailure: unknown = null;
  private readonly clock: Clock;
  private unlisten: (() => void) | null = null;

  constructor(private readonly deps: BarBuilderDeps) {
    this.clock = deps.clock ?? liveClock;
    this.writer =
      deps.writer ??
      new BarWriter({
        ticks: new TickWriter(deps.ticks, deps.log, { highWater: deps.maxPendingTicks ?? 1_000_000 }),
        bars: deps.bars,
        bus: deps.bus,
        log: deps.log,
        clock: this.clock,
      });
    this.ticks = this.writer.ticks;
    this.owner = {
      handedBack: () => this.ticksFailure !== null,
      stored: (bars) => {
        this.storedBars += bars.length;
        this.deps.onStored?.(bars);
      },
      storeFailed: (err) => this.deps.onStoreFailed?.(err),
    };
    this.resampler = new StreamingResampler((bar) => {
      this.unsent++;
      this.writer.add(this.owner, bar);
    }, deps.graceMs ?? 2_000);
    const onTicksFailed = deps.onTicksFailed;
    if (onTicksFailed) {
      this.unlisten = this.ticks.onFailure((err) => {
        this.ticksFailure ??= err;
        onTicksFailed(err);
      });
    }
  }

  /** Starts the grace timer: bars of a quiet market still close, without a later tick. */
  async start(): Promise<void> {
    this.stopTimer ??= this.clock.every(250, () => {
      if (this.deps.quietUntil) void this.closeConfirmed(this.deps.quietUntil);
      else this.closeQuiet();
    });
  }

  private closeQuiet(only?: Symbol, until?: number): void {
    const now = this.clock.now();
    this.resampler.closeDue(now, only, until ?? now);
    this.sendClosed();
  }

  /** Has the writer send the bars closed since it was last asked. */
  private sendClosed(): void {
    if (this.unsent === 0) return;
    this.unsent = 0;
    void this.writer.schedule();
  }

  /** The quiet rule, for each due symbol by the time its source says it may (one check at a time). */
  private async closeConfirmed(quietUntil: (symbol: Symbol, now: number) => Promise<number>): Promise<void> {
    if (this.confirming) return;
    this.confirming = true;
    try {
      for (const symbol of this.resampler.dueSymbols(this.clock.now())) {
        // Unanswered (the source unreachable) is not quiet: the bars wait for the next check.
        const until = await quietUntil(symbol, this.clock.now()).catch(() => Number.NEGATIVE_INFINITY);
        // Stopped meanwhile (the symbol handed over): its open bars are the next owner's to close.
        if (!this.stopTimer) return;
        if (until > Number.NEGATIVE_INFINITY) this.closeQuiet(symbol, until);
      }
    } finally {
      this.confirming = false;
    }
  }

  /** A sink for one source; every bar records which source its ticks came from. */
  sink(source: DataSource): TickSink {
    return {
      write: (ticks) => this.handle({ ticks, source }),
      // The high-rate path (NATS): columns all the way to ClickHouse, no object per tick.
      writeColumns: (ticks) => this.write([ticks], source),
    };
  }

  /**
   * Takes ticks into the resampler and queues them and the bars they close for storage. Below the
   * high-water mark it resolves at once; above it, once storage has caught up (back-pressure).
   */
  handle({ ticks, source }: TickBatch): Promise<void> {
    return this.write(TickColumns.fromTicks(ticks), source);
  }

  private write(batches: readonly TickColumns[], source: DataSource): Promise<void> {
    const now = this.clock.now();
    for (const batch of batches) {
      this.resampler.arrived(batch.symbol, now);
      // Only ticks the resampler takes are kept (it removes the others from the batch), so
      // stored ticks and bars always agree. A tick stamped well ahead of the clock would make
      // every true tick after it look late: refused and counted.
      this.future += this.resampler.pushColumns(batch, source, now + FUTURE_TOLERANCE_MS);
      this.ticks.add(batch, source);
    }
    this.sendClosed();
    // Below the high-water mark the caller goes on at once; above it, it waits for storage.
    return this.ticks.ready();
  }

  /** Stores what is pending (the ticks, then every bar of the writer) and publishes the bars. */
  flush(): Promise<void> {
    return this.writer.flush();
  }

  stats(): ResamplerStats & { storedTicks: number; failedTicks: number; storedBars: number; future: number } {
    return {
      ...this.resampler.stats(),
      storedTicks: this.ticks.stored,
      failedTicks: this.ticks.failed,
      storedBars: this.storedBars,
      future: this.future,
    };
  }

  /** Stores everything still pending. Open bars stay open: they close on the next start's ticks. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = null;
    await this.flush().catch(() => undefined);
    await this.ticks.flush();
    this.unlisten?.();
    this.unlisten = null;
  }
}
