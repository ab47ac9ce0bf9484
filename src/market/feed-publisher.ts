import { randomUUID } from 'node:crypto';
import { lastBySubject, publish, publishEncoded, type Bus } from '../bus/index.ts';
import type { Symbol } from '../../schemas/common.ts';
import type { DataSource, Tick, TickMessage } from '../../schemas/market.ts';
import { Streams, TICK_SOURCE_HEADER, Topics } from '../../schemas/messages.ts';
import { liveClock, type Clock } from '../lib/clock.ts';
import { INSTRUMENTS } from '../lib/instruments.ts';
import { CLOCK_EVERY_MS } from './feed-clocks.ts';
import { encodeTickFrame } from './sources/tick-frame.ts';
import { decodeTickPayload, TickTopic } from './sources/tick-payload.ts';
import type { TickSink } from './tick-sink.ts';

/** Ticks per published message at most (~60 bytes each), stretched so a millisecond's ticks stay together. */
const MESSAGE_TICKS = 2_000;

export interface FeedPublisherStats {
  /** Ticks the TICKS stream acknowledged. */
  published: number;
  messages: number;
  /** Ticks at or before the last one the stream held when this publisher started (a take-over regenerating them). */
  skipped: number;
  /** Ticks not published because this process may no longer publish for the feed (its lease ran out). */
  refused: number;
  /** Epoch ms of the last acknowledged publish, or null. */
  lastPublishedAt: number | null;
}

export interface FeedPublisherDeps {
  bus: Pick<Bus, 'nc' | 'js' | 'jsm'>;
  /** Names the feed in message ids. */
  feed: string;
  /** What its ticks are: `synthetic` travels in a header, so the bars built from them say so (default live). */
  source?: Extract<DataSource, 'synthetic' | 'live'>;
  /** False once this process must stop publishing (the feed's lease is no longer safely its own). */
  mayPublish?: () => boolean;
  /**
   * The feed's clock: every tick stamped before it has been handed to `write` (default: this
   * machine's clock, right for a live feed; a replay's is its market time).
   */
  clock?: Clock;
}

/**
 * A tick sink that publishes on NATS `ticks.<SYMBOL>`, stored by the TICKS stream, for the
 * `ingest` role: a feed's ticks go to whichever process builds each symbol's bars, by the one
 * path every tick takes there. Each message's id is made of its ticks (symbol, first and last
 * (ts, seq), count), so a batch re-sent (a publish retried after a node died, Kafka records
 * replayed after a rebalance) is stored once within the stream's duplicate window. Each symbol's
 * messages go out one after another (a retried publish never overtakes a later batch), and a
 * millisecond's ticks are never split between two messages.
 *
 * While its clock runs (`startClock`), it also tells, for each symbol it has published, up to
 * when its ticks are stored (`TickClock` on `feeds.clock.<SYMBOL>`), in line behind that symbol's
 * publishes: a publisher held up is silent, and ingest keeps the symbol's bars open for it.
 */
export class FeedPublisher implements TickSink {
  private readonly after = new Map<Symbol, number>();
  private readonly chains = new Map<Symbol, Promise<void>>();
  private readonly id: string;
  /** Symbols whose clock this publisher tells: those it was handed ticks of since its clock started. */
  private readonly clocked = new Set<Symbol>();
  /** Symbols whose last write failed: their clock is not told until one gets through (the caller may write those ticks again). */
  private readonly clockHeld = new Set<Symbol>();
  /** Symbols with a clock waiting in line already (a held-up publisher queues one, not one per tick of the timer). */
  private readonly clockQueued = new Set<Symbol>();
  private clockTimer: NodeJS.Timeout | null = null;
  private readonly counts: FeedPublisherStats = { published: 0, messages: 0, skipped: 0, refused: 0, lastPublishedAt: null };

  constructor(private readonly deps: FeedPublisherDeps) {
    this.id = `${deps.feed}.${randomUUID().slice(0, 8)}`;
  }

  /**
   * Skips, from now on, every tick at or before the last tick the stream holds of each symbol:
   * a feed that regenerates its series from a checkpoint (the synthetic market taking over)
   * publishes only what its predecessor did not.
   */
  async resumeAfterStream(symbols: readonly Symbol[]): Promise<void> {
    this.after.clear();
    await Promise.all(
      symbols.map(async (symbol) => {
        const last = await lastBySubject(this.deps.bus, Streams.ticks.name, Topics.ticks.subject(symbol));
        if (!last) return;
        const ticks = decodeTickPayload(last.data).ticks;
        if (ticks.length > 0) this.after.set(symbol, Math.max(...ticks.map((t) => t.ts)));
      }),
    );
  }

  /** The last tick ts skipped up to, by symbol (what resumeAfterStream found). */
  resumedAfter(): Partial<Record<Symbol, number>> {
    return Object.fromEntries(this.after);
  }

  write(ticks: readonly Tick[]): Promise<void> {
    const bySymbol = new Map<Symbol, Tick[]>();
    for (const t of ticks) (bySymbol.get(t.symbol) ?? bySymbol.set(t.symbol, []).get(t.symbol)!).push(t);
    const written = Promise.all(
      [...bySymbol].map(([symbol, own]) =>
        this.inLine(symbol, () =>
          this.publishSymbol(symbol, own).then(
            () => void this.clockHeld.delete(symbol),
            (err: unknown) => {
              // Ticks that did not reach the stream: no clock vouches past them until a write gets through again.
              this.clockHeld.add(symbol);
              throw err;
            },
          ),
        ),
      ),
    ).then(() => undefined);
    if (this.clockTimer) {
      // A symbol new to the clock has it told right behind its first ticks, not half a second later.
      const added = [...bySymbol.keys()].filter((symbol) => !this.clocked.has(symbol));
      for (const symbol of added) this.clocked.add(symbol);
      if (added.length > 0) this.tellClock(added);
    }
    return written;
  }

  /** Runs `step` after everything queued for `symbol` before it (failed or not). */
  private inLine(symbol: Symbol, step: () => Promise<void>): Promise<void> {
    const run = (this.chains.get(symbol) ?? Promise.resolve()).catch(() => undefined).then(step);
    this.chains.set(symbol, run);
    return run;
  }

  /** Starts telling this publisher's clock every half second (while it holds its feed). */
  startClock(): void {
    this.clockTimer ??= setInterval(() => this.tellClock(), CLOCK_EVERY_MS);
    this.clockTimer.unref();
  }

  /**
   * Stops telling the clock. It does not say it stopped: a feed handed over (SIGTERM) goes on in
   * another process, whose first ticks are of the hand-over's seconds; readers keep the bars open
   * for them until this clock has been silent for CLOCK_SILENT_MS.
   */
  stopClock(): void {
    if (this.clockTimer) clearInterval(this.clockTimer);
    this.clockTimer = null;
    this.clocked.clear();
  }

  private tellClock(symbols: Iterable<Symbol> = this.clocked): void {
    // Read before queueing: it vouches only for ticks handed over by now, which are in line ahead.
    const until = (this.deps.clock ?? liveClock).now();
    for (const symbol of symbols) {
      if (this.clockQueued.has(symbol)) continue;
      this.clockQueued.add(symbol);
      void this.inLine(symbol, async () => {
        this.clockQueued.delete(symbol);
        // A process that may no longer publish for the feed does not vouch for it either.
        if (!this.clockTimer || this.clockHeld.has(symbol) || (this.deps.mayPublish && !this.deps.mayPublish())) return;
        await publish(this.deps.bus, Topics.tickClock, [symbol], { publisher: this.id, until });
      }).catch(() => undefined);
    }
  }

  private async publishSymbol(symbol: Symbol, ticks: readonly Tick[]): Promise<void> {
    const floor = this.after.get(symbol) ?? Number.NEGATIVE_INFINITY;
    let from = 0;
    while (from < ticks.length && ticks[from]!.ts <= floor) from++;
    this.counts.skipped += from;
    while (from < ticks.length) {
      let to = Math.min(ticks.length, from + MESSAGE_TICKS);
      while (to < ticks.length && ticks[to]!.ts === ticks[to - 1]!.ts) to++;
      if (this.deps.mayPublish && !this.deps.mayPublish()) {
        this.counts.refused += ticks.length - from;
        throw new Error(
          `feed ${this.deps.feed}: this process no longer holds its lease; ${ticks.length - from} ${symbol} ticks not published`,
        );
      }
      const part = ticks.slice(from, to);
      const first = part[0]!;
      const last = part[part.length - 1]!;
      const msgID = `${this.deps.feed}.${symbol}.${first.ts}.${first.seq}-${last.ts}.${last.seq}.${part.length}`;
      const options = { msgID, ...(this.deps.source === 'synthetic' ? { headers: { [TICK_SOURCE_HEADER]: 'synthetic' } } : {}) };
      const messages = part.map(toMessage);
      // A tick frame, a tenth of the JSON's bytes (the stream stores every one); JSON when a price does not fit it.
      const frame = encodeTickFrame(messages, INSTRUMENTS[symbol].digits);
      if (frame) await publishEncoded(this.deps.bus, TickTopic, [symbol], frame, options);
      else await publish(this.deps.bus, Topics.ticks, [symbol], messages, options);
      this.counts.published += part.length;
      this.counts.messages++;
      this.counts.lastPublishedAt = (this.deps.clock ?? liveClock).now();
      from = to;
    }
  }

  stats(): FeedPublisherStats {
    return { ...this.counts };
  }
}

/** The wire form of a tick (schemas/market.ts TickMessage); a summed volume travels as the bid volume. */
const toMessage = (t: Tick): TickMessage =>
  t.volume > 0 ? { ts: t.ts, bid: t.bid, ask: t.ask, bid_volume: t.volume } : { ts: t.ts, bid: t.bid, ask: t.ask };
