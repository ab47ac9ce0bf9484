import { publish, type Bus } from '../../src/bus/index.ts';
import { liveClock, type Actor, type Clock } from '../../src/kernel/index.ts';
import { retry } from '../../src/lib/retry.ts';
import type { Logger } from '../../src/log.ts';
import { StreamingResampler, type MarketData, type ResamplerStats, type TickSink } from '../../src/market/index.ts';
import type { BarMessage, DataSource, Tick } from '../../schemas/market.ts';
import { Topics } from '../../schemas/messages.ts';

/** How far ahead of this machine's clock a tick may be stamped (feeds' clocks drift a little). */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** What the bar builder handles: ticks of one source, in arrival order. */
export interface TickBatch {
  ticks: readonly Tick[];
  source: DataSource;
}

export interface BarBuilderDeps {
  ticks: Pick<MarketData['ticks'], 'insert'>;
  bars: Pick<MarketData['bars'], 'insert'>;
  bus: Pick<Bus, 'nc' | 'js'>;
  log: Logger;
  clock?: Clock;
  /** How long after its end a bar waits for a late tick before it closes without one. */
  graceMs?: number;
  /** Largest number of ticks held before a write waits for storage (back-pressure). */
  maxPendingTicks?: number;
}

/**
 * Ticks in, bars out, for every live source: ticks go through the one streaming resampler;
 * ticks and closed bars are stored in ClickHouse in batches, and each closed bar is published
 * on `bars.<SYMBOL>.<tf>` only after it is stored, so a subscriber can always read it back.
 * Writing the same ticks twice (a source retrying after a failed write) changes nothing: the
 * resampler refuses ticks that are not after the last one it took.
 */
export class BarBuilder implements Actor<TickBatch> {
  private readonly resampler: StreamingResampler;
  private pendingTicks = new Map<DataSource, Tick[]>();
  private pendingBars: BarMessage[] = [];
  private pendingCount = 0;
  private flushing: Promise<void> = Promise.resolve();
  private queued: Promise<void> | null = null;
  private scheduled: Promise<void> | null = null;
  private stopTimer: (() => void) | null = null;
  private stored = { ticks: 0, bars: 0 };
  private future = 0;
  private readonly clock: Clock;

  constructor(private readonly deps: BarBuilderDeps) {
    this.clock = deps.clock ?? liveClock;
    this.resampler = new StreamingResampler((bar) => this.pendingBars.push(bar), deps.graceMs ?? 2_000);
  }

  /** Starts the grace timer: bars of a quiet market still close, without a later tick. */
  async start(): Promise<void> {
    this.stopTimer ??= this.clock.every(250, () => {
      this.resampler.closeDue(this.clock.now());
      if (this.pendingBars.length > 0) void this.schedule();
    });
  }

  /** A sink for one source; every bar records which source its ticks came from. */
  sink(source: DataSource): TickSink {
    return { write: (ticks) => this.handle({ ticks, source }) };
  }

  /**
   * Takes ticks into the resampler and queues them and the bars they close for storage. Below the
   * high-water mark it resolves at once; above it, once storage has caught up (back-pressure).
   */
  handle({ ticks, source }: TickBatch): Promise<void> {
    let batch = this.pendingTicks.get(source);
    if (!batch) this.pendingTicks.set(source, (batch = []));
    let taken = 0;
    const now = this.clock.now();
    let symbol = '';
    for (const tick of ticks) {
      if (tick.symbol !== symbol) this.resampler.arrived((symbol = tick.symbol), now);
      // A tick stamped well ahead of the clock would make every true tick after it look late.
      if (tick.ts > now + FUTURE_TOLERANCE_MS) {
        this.future++;
        continue;
      }
      // Only ticks the resampler takes are stored, so stored ticks and bars always agree.
      if (this.resampler.push(tick, source)) {
        batch.push(tick);
        taken++;
      }
    }
    this.pendingCount += taken;
    const done = this.schedule();
    // Below the high-water mark the caller goes on at once; above it, it waits for storage.
    return this.pendingCount > (this.deps.maxPendingTicks ?? 200_000) ? done : Promise.resolve();
  }

  /** One flush shortly, shared by every write until it starts. */
  private schedule(): Promise<void> {
    this.scheduled ??= new Promise<void>((resolve) => setTimeout(resolve, 20)).then(() => {
      this.scheduled = null;
      return this.flush();
    });
    return this.scheduled;
  }

  /**
   * Stores what is pending, then publishes the stored bars. Flushes run one after another, and
   * each takes what is pending when it STARTS: while one insert runs, everything that arrives
   * waits for the next, so batches grow with the load instead of queueing up.
   */
  flush(): Promise<void> {
    if (this.queued) return this.queued;
    // A failed flush must not stop later ones: the chain continues past it.
    const run = this.flushing.catch(() => undefined).then(() => {
      this.queued = null;
      return this.storePending();
    });
    this.queued = run;
    this.flushing = run;
    return run;
  }

  private async storePending(): Promise<void> {
    const ticks = this.pendingTicks;
    const bars = this.pendingBars;
    this.pendingTicks = new Map();
    this.pendingBars = [];
    this.pendingCount = 0;
    try {
      // Rows are keyed (ticks by symbol/ts/seq, bars by version), so a retried insert replaces.
      for (const [source, batch] of ticks) await retry(() => this.deps.ticks.insert(batch, source));
      if (bars.length > 0) await retry(() => this.deps.bars.insert(bars));
      for (const bar of bars) await publish(this.deps.bus, Topics.bars, [bar.symbol, bar.timeframe], bar);
      for (const batch of ticks.values()) this.stored.ticks += batch.length;
      this.stored.bars += bars.length;
    } catch (err) {
      this.deps.log.error({ err, bars: bars.length }, 'storing ticks or bars failed');
      throw err;
    }
  }

  stats(): ResamplerStats & { storedTicks: number; storedBars: number; future: number } {
    return { ...this.resampler.stats(), storedTicks: this.stored.ticks, storedBars: this.stored.bars, future: this.future };
  }

  /** Stores everything still pending. Open bars stay open: they close on the next start's ticks. */
  async stop(): Promise<void> {
    this.stopTimer?.();
    this.stopTimer = null;
    await this.flush().catch(() => undefined);
  }
}
