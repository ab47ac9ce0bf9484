import type { JsonKv } from '../../bus/index.ts';
import type { Logger } from '../../log.ts';
import type { BarsRepo, TicksRepo } from '../../store/index.ts';
import type { Symbol } from '../../../schemas/common.ts';
import type { BarMessage, GeneratorState, SyntheticCheckpoint, Tick } from '../../../schemas/market.ts';
import { instrument } from '../../lib/instruments.ts';
import { StreamingResampler } from '../resampler.ts';
import type { TickSink } from '../tick-sink.ts';
import { SyntheticTickGenerator, initialState } from './generator.ts';
import { liveClock, type Clock } from '../../lib/clock.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
/** Bars are written in batches of this many rows while history is built. */
const BAR_BATCH = 250_000;

export interface SyntheticMarketDeps {
  ticks: Pick<TicksRepo, 'insert'>;
  bars: Pick<BarsRepo, 'insert'>;
  checkpoints: JsonKv<typeof SyntheticCheckpoint>;
  /** The live pipeline (the bar builder's `synthetic` sink). */
  sink: TickSink;
  log: Logger;
  seed: string;
  historyDays: number;
  /** Raw synthetic ticks are stored for this many most recent days (bars for all of history). */
  tickDays: number;
  /** How often the live feed catches up with the wall clock. */
  intervalMs?: number;
  /** The clock the live feed catches up with (liveClock; tests pin the weekday with it). */
  clock?: Clock;
}

/**
 * The embedded default market: a seeded synthetic series per symbol. On first start it builds
 * `historyDays` of bars from generated ticks (the same resampler as live data), up to the
 * current hour; from then on a live feed continues the very same series in real time through
 * the live pipeline. Hourly checkpoints in NATS KV let a restart regenerate exactly the ticks
 * it missed, from the hour before it stopped.
 */
export class SyntheticMarket {
  private readonly generators = new Map<Symbol, SyntheticTickGenerator>();
  private readonly checkpoints = new Map<Symbol, SyntheticCheckpoint>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly deps: SyntheticMarketDeps) {}

  /** Builds or resumes every symbol's series, then starts the live feed. */
  async start(symbols: readonly Symbol[], now = this.now()): Promise<void> {
    const started = performance.now();
    for (const symbol of symbols) {
      const saved = (await this.deps.checkpoints.get(symbol))?.value;
      if (saved && saved.seed === this.deps.seed) {
        // Regenerate from the hour before the last checkpoint: the bars in flight are rebuilt whole.
        const from = saved.previous ?? { hour: saved.hour, state: saved.state };
        // The regenerated series is at `from` again: crossing the saved hour re-saves it with the
        // hour before as `previous` (seeding this with `saved` made `previous` the same hour).
        this.checkpoints.set(symbol, { symbol, seed: saved.seed, hour: from.hour, state: from.state, previous: null });
        this.generators.set(symbol, new SyntheticTickGenerator(instrument(symbol), from.state));
      } else {
        const { hour, state } = await this.buildHistory(symbol, now);
        const checkpoint: SyntheticCheckpoint = { symbol, seed: this.deps.seed, hour, state, previous: null };
        await this.deps.checkpoints.put(symbol, checkpoint);
        this.checkpoints.set(symbol, checkpoint);
        this.generators.set(symbol, new SyntheticTickGenerator(instrument(symbol), state));
      }
    }
    await this.catchUp(this.now());
    this.deps.log.info({ symbols: symbols.length, ms: Math.round(performance.now() - started) }, 'synthetic market ready');
    this.timer = setInterval(() => {
      this.running = this.running
        .then(() => this.catchUp(this.now()))
        .catch((err: unknown) => {
          this.deps.log.error({ err }, 'synthetic feed failed; it retries on the next beat');
        });
    }, this.deps.intervalMs ?? 250);
  }

  private now(): number {
    return (this.deps.clock ?? liveClock).now();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running.catch(() => undefined);
  }

  /**
   * Generates every symbol's ticks up to `until` and hands them to the live pipeline. The
   * writes are issued without awaiting in between, so the pipeline takes them in one go (its
   * grace timer cannot close a bar of a catch-up between two pieces); storage is awaited after.
   */
  private async catchUp(until: number): Promise<void> {
    const writes: Array<Promise<void>> = [];
    const saves: Array<Promise<unknown>> = [];
    for (const [symbol, generator] of this.generators) {
      let batch: Tick[] = [];
      generator.generate(
        until,
        (tick) => {
          batch.push(tick);
          if (batch.length >= 50_000) {
            writes.push(this.deps.sink.write(batch));
            batch = [];
          }
        },
        (hour, state) => saves.push(this.saveCheckpoint(symbol, hour, state)),
      );
      if (batch.length > 0) writes.push(this.deps.sink.write(batch));
    }
    await Promise.all(writes);
    await Promise.all(saves);
  }

  private saveCheckpoint(symbol: Symbol, hour: number, state: GeneratorState): Promise<unknown> {
    const current = this.checkpoints.get(symbol);
    const next: SyntheticCheckpoint = {
      symbol,
      seed: this.deps.seed,
      hour,
      state,
      previous: current ? { hour: current.hour, state: current.state } : null,
    };
    this.checkpoints.set(symbol, next);
    return this.deps.checkpoints.put(symbol, next);
  }

  /**
   * Generates history from `historyDays` before today's start up to the current hour, resamples
   * it into bars and stores them (and the most recent `tickDays` of raw ticks) in bulk. Returns
   * the checkpoint at the current hour, where the live feed takes over.
   */
  private async buildHistory(symbol: Symbol, now: number): Promise<{ hour: number; state: GeneratorState }> {
    const started = performance.now();
    const endHour = Math.floor(now / HOUR_MS) * HOUR_MS;
    const startMs = Math.floor(now / DAY_MS) * DAY_MS - this.deps.historyDays * DAY_MS;
    const keepTicksFrom = endHour - this.deps.tickDays * DAY_MS;
    const generator = new SyntheticTickGenerator(instrument(symbol), initialState(instrument(symbol), startMs, this.deps.seed));
    let bars: BarMessage[] = [];
    const resampler = new StreamingResampler((bar) => bars.push(bar));
    let handOver: GeneratorState | null = null;
    let ticks: Tick[] = [];
    let barCount = 0;
    // Inserts run on the engine's own threads: the next day is generated while the last batch is
    // written, and a batch waits only for the one before it.
    let writing: Promise<unknown> = Promise.resolve();
    const write = async (task: () => Promise<unknown>) => {
      await writing;
      writing = task();
    };
    for (let until = startMs + DAY_MS; ; until += DAY_MS) {
      const last = until >= endHour;
      generator.generate(
        Math.min(until, endHour),
        (tick) => {
          if (tick.ts >= endHour) return; // the live feed regenerates these from the checkpoint
          resampler.push(tick, 'synthetic');
          if (tick.ts >= keepTicksFrom) ticks.push(tick);
        },
        (hour, state) => {
          if (hour === endHour) handOver = state;
        },
      );
      if (last) resampler.flush();
      if (bars.length >= BAR_BATCH || last) {
        const batch = bars;
        bars = [];
        barCount += batch.length;
        await write(() => this.deps.bars.insert(batch));
      }
      if (ticks.length >= BAR_BATCH || (last && ticks.length > 0)) {
        const batch = ticks;
        ticks = [];
        await write(() => this.deps.ticks.insert(batch, 'synthetic'));
      }
      if (last) break;
    }
    await writing;
    const state = handOver ?? generator.snapshot();
    this.deps.log.info(
      { symbol, days: this.deps.historyDays, bars: barCount, ms: Math.round(performance.now() - started) },
      'synthetic history built',
    );
    return { hour: endHour, state };
  }
}
