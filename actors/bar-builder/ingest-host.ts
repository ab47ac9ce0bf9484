import {
  ensureStream,
  followStream,
  lastBySubject,
  openBucket,
  subscribe,
  type Bus,
  type FollowedStream,
  type JsonKv,
  type TopicSubscription,
} from '../../src/bus/index.ts';
import { LeaseHost, openClaims, type LeaseContext, type LeaseHolder } from '../../src/kernel/index.ts';
import { liveClock, type Clock } from '../../src/lib/clock.ts';
import type { Logger } from '../../src/log.ts';
import {
  countTickRecords,
  decodeTickPayloadInto,
  FeedClocks,
  TickSequencer,
  writeColumns,
  type MarketData,
} from '../../src/market/index.ts';
import { TickColumns, TickWriter } from '../../src/store/index.ts';
import { SYMBOLS, type Symbol } from '../../schemas/common.ts';
import type { BarMessage } from '../../schemas/market.ts';
import { Buckets, Streams, TICK_SOURCE_HEADER, Topics } from '../../schemas/messages.ts';
import { BarBuilder } from './bar-builder.ts';
import { BarWriter } from './bar-writer.ts';

const HOUR_MS = 3_600_000;
/** A reader that read nothing for this long while its stream holds more has stalled. */
const STALL_MS = 15_000;
/**
 * What the server may send a symbol's reader ahead: 4 MiB, larger than any message (NATS' 1 MiB
 * payload limit), so eight symbols stay well inside the server's 64 MiB pending limit per connection.
 */
const AHEAD_BYTES = 4 * 2 ** 20;
/** Ticks the process holds for storage before its readers wait (back-pressure). */
const MAX_PENDING_TICKS = 2_000_000;
const LEASE_PREFIX = 'ingest.';
const leaseKey = (symbol: Symbol): string => `${LEASE_PREFIX}${symbol}`;

export interface IngestHostDeps {
  bus: Bus;
  market: Pick<MarketData, 'ticks' | 'bars'>;
  log: Logger;
  replicas?: number;
  graceMs?: number;
  /** How long a symbol's reader hears no feed clock before it goes by its own (default CLOCK_SILENT_MS). */
  clockSilentMs?: number;
  /** Symbols this process may take (default: every symbol). */
  symbols?: readonly Symbol[];
  renewMs?: number;
  /** Feed clocks, cursor times and the restart backoff (default liveClock). */
  clock?: Clock;
}

interface SymbolIngestDeps extends IngestHostDeps {
  symbol: Symbol;
  cursors: JsonKv<typeof Buckets.ingest.schema>;
  /** The symbol's lease: how long this process may still write on it (0: lost), and how to fault. */
  lease: LeaseContext;
  clock: Clock;
  /** Takes a stopped reader's counters, so the process's totals never go back. */
  retired: (stats: IngestStats) => void;
  /** The process's one writer of ticks and bars, shared by every symbol's bar builder. */
  writer: BarWriter;
}

/**
 * Bar building of one symbol while this process holds its lease: reads `ticks.<SYMBOL>` from the
 * TICKS stream from the symbol's cursor (the first message of the hour whose bars are open) and
 * resamples them with a bar builder of its own. Bars of that hour the previous owner stored
 * already are stored again with the same values — the bars table replaces a row with the same
 * (symbol, timeframe, ts) and reads use FINAL — so a take-over leaves no bar missing or doubled.
 * The cursor moves to the next hour once the hour's bars are stored. A failed store, or a broken
 * read of the stream, faults it: the host restarts it from the cursor after a backoff.
 */
class SymbolIngest implements LeaseHolder {
  private builder: BarBuilder | null = null;
  private follower: FollowedStream | null = null;
  private reading: Promise<void> = Promise.resolve();
  /** The TICKS sequence of the first message holding a tick of each hour seen (by hour start). */
  private readonly hourStarts = new Map<number, number>();
  private hour = Number.NEGATIVE_INFINITY;
  private failure: unknown = null;
  /** The TICKS sequence of the last message handed to the bar builder. */
  private lastSeq = 0;
  private clockSub: TopicSubscription | null = null;
  private stopWatch: (() => void) | null = null;

  constructor(private readonly deps: SymbolIngestDeps) {}

  async start(): Promise<void> {
    const { symbol, cursors, market, bus, log } = this.deps;
    const cursor = (await cursors.get(symbol))?.value ?? null;
    const fromTs = cursor?.from_ts ?? 0;
    const clocks = new FeedClocks(this.deps.clock.now(), this.deps.clockSilentMs);
    const builder = (this.builder = new BarBuilder({
      writer: this.deps.writer,
      ticks: market.ticks,
      bars: market.bars,
      bus,
      log,
      ...(this.deps.graceMs !== undefined ? { graceMs: this.deps.graceMs } : {}),
      onStored: (bars) => this.stored(bars),
      onStoreFailed: (err) => this.fail(err),
      // Ticks that could not be stored are still in the stream past the cursor: the restart reads them again.
      onTicksFailed: (err) => this.fail(err),
      quietUntil: (_symbol, now) => this.quietUntil(clocks, now),
    }));
    this.clockSub = subscribe(bus, Topics.tickClock, Topics.tickClock.subject(symbol), (clock) =>
      clocks.hear(clock, this.deps.clock.now()),
    );
    await builder.start();
    // Our generator's ticks (marked by the synthetic feed) make bars that say synthetic; any other feed's are live.
    const sinks = { live: builder.sink('live'), synthetic: builder.sink('synthetic') };
    const sequencer = new TickSequencer();
    let lastTs = Number.NEGATIVE_INFINITY;
    // From the cursor, or (never ingested here) every tick the stream still holds.
    const follower = (this.follower = await followStream(bus, Streams.ticks, Topics.ticks.subject(symbol), cursor?.seq ?? 1, AHEAD_BYTES));
    log.info({ symbol, from_seq: cursor?.seq ?? 1, from_ts: fromTs }, 'ingest: building the bars of a symbol');
    this.watchProgress();
    this.reading = (async () => {
      for await (const msg of follower) {
        // Straight from the bytes (JSON or a tick frame) into columns, no object per tick; malformed records are skipped.
        const ticks = new TickColumns(symbol, countTickRecords(msg.data));
        decodeTickPayloadInto(msg.data, ticks);
        // Left out in place: ticks of hours whose bars are stored already, and late ones (the resampler would refuse them).
        let kept = 0;
        for (let i = 0; i < ticks.length; i++) {
          const ts = ticks.ts[i]!;
          if (ts < fromTs || ts < lastTs) continue;
          lastTs = ts;
          const hour = Math.floor(ts / HOUR_MS) * HOUR_MS;
          if (hour > this.hour) {
            this.hour = hour;
            this.hourStarts.set(hour, msg.seq);
          }
          if (i !== kept) ticks.move(i, kept);
          ticks.seq[kept] = sequencer.next(ts);
          kept++;
        }
        ticks.length = kept;
        if (kept > 0) await writeColumns(msg.header(TICK_SOURCE_HEADER) === 'synthetic' ? sinks.synthetic : sinks.live, ticks);
        else ticks.release();
        this.lastSeq = msg.seq;
      }
    })().catch((err: unknown) => this.fail(err));
  }

  /**
   * A reader that stopped reading while the stream holds more of its symbol (its consumer lost in
   * a reconnect under overload, say) faults: the host restarts it from the cursor. Back-pressure
   * from a slow store pauses it too, but never for this long.
   */
  private watchProgress(): void {
    let seen = this.lastSeq;
    this.stopWatch = this.deps.clock.every(STALL_MS, () => {
      const at = this.lastSeq;
      if (at !== seen) {
        seen = at;
        return;
      }
      void lastBySubject(this.deps.bus, Streams.ticks.name, Topics.ticks.subject(this.deps.symbol)).then(
        (last) => {
          if ((last?.seq ?? 0) > at && this.lastSeq === at) this.fail(new Error(`ingest: the ${this.deps.symbol} reader stalled at ${at}`));
        },
        () => undefined,
      );
    });
  }

  /**
   * Up to when the symbol's bars may close without a later tick: never while the stream holds a
   * message of it not read yet; else by its publishers' least clock, so ticks a publisher still
   * holds (its publishes held up by a NATS node failing over) are not made late; else, when no
   * publisher tells a clock (outside feeds on core NATS), by this process's clock.
   */
  private async quietUntil(clocks: FeedClocks, now: number): Promise<number> {
    // The clocks before the stream: a clock vouches only for ticks stored before it was told.
    const clock = clocks.until(now);
    if (clock === Number.NEGATIVE_INFINITY) return clock;
    const last = (await lastBySubject(this.deps.bus, Streams.ticks.name, Topics.ticks.subject(this.deps.symbol)))?.seq ?? 0;
    return last > this.lastSeq ? Number.NEGATIVE_INFINITY : (clock ?? now);
  }

  /** An hour's bars are stored: a take-over starts at the next hour's first message. */
  private stored(bars: readonly BarMessage[]): void {
    // After a failed store the cursor stays: the restart rebuilds the bars that were not stored.
    if (this.failure) return;
    for (const bar of bars) {
      if (bar.timeframe !== '1h') continue;
      const next = bar.ts + HOUR_MS;
      const seq = this.hourStarts.get(next);
      if (seq === undefined) continue;
      for (const hour of this.hourStarts.keys()) if (hour < next) this.hourStarts.delete(hour);
      // Only while the lease is ours: a process that lost it must not move the new owner's cursor.
      if (this.deps.lease.leaseLeftMs() <= 0) continue;
      this.deps.cursors.put(this.deps.symbol, { seq, from_ts: next, updated_at: this.deps.clock.now() }).catch((err: unknown) => {
        this.deps.log.warn({ err, symbol: this.deps.symbol }, 'ingest: the cursor was not written (a take-over replays a little more)');
      });
    }
  }

  /** The first failure faults the holder: the host restarts the symbol from its cursor. */
  private fail(err: unknown): void {
    this.failure ??= err;
    this.deps.lease.fault(err);
  }

  async stop(): Promise<void> {
    this.stopWatch?.();
    this.clockSub?.unsubscribe();
    await this.follower?.close().catch(() => undefined);
    await this.reading;
    await this.builder?.stop();
    this.deps.retired(this.stats());
  }

  stats(): IngestStats {
    return this.builder?.stats() ?? { ...NO_BARS };
  }
}

/** The counters of this process's bar building, summed over its symbols and every time it held them. */
export type IngestStats = ReturnType<BarBuilder['stats']>;
const NO_BARS: IngestStats = { ticks: 0, late: 0, bars: 0, storedTicks: 0, failedTicks: 0, storedBars: 0, future: 0 };

function addStats(into: IngestStats, more: IngestStats): IngestStats {
  for (const key of Object.keys(NO_BARS) as Array<keyof IngestStats>) into[key] += more[key];
  return into;
}

export interface IngestHost {
  host: LeaseHost<Symbol, SymbolIngest>;
  /** Symbols this process builds bars of now. */
  symbols(): Symbol[];
  /** Ticks read (from the stream), late, future, bars closed and stored: totals of this process. */
  stats(): IngestStats;
  stop(graceful?: boolean): Promise<void>;
}

/**
 * Ingest across processes: one writer per symbol, claimed (`ingest.<SYMBOL>` in `sf_claims`, as
 * actor hosts claim models). A process that dies stops renewing its heartbeat; another takes its
 * symbols over once the heartbeat expires and continues from their cursors. A symbol whose store
 * writes fail faults itself and is restarted from its cursor after a backoff.
 */
export async function buildIngestHost(deps: IngestHostDeps): Promise<IngestHost> {
  const r = deps.replicas ?? 1;
  await ensureStream(deps.bus, Streams.ticks, r);
  const [cursors, claims] = await Promise.all([openBucket(deps.bus, Buckets.ingest, r), openClaims(deps.bus, r)]);
  const symbols = deps.symbols ?? SYMBOLS;
  const clock = deps.clock ?? liveClock;
  const retired: IngestStats = { ...NO_BARS };
  // One writer for every symbol of the process: each insert costs ClickHouse a part whatever its
  // size, so eight symbols writing apart made eight times the inserts (and the engine's CPU).
  const tickWriter = new TickWriter(deps.market.ticks, deps.log, { highWater: MAX_PENDING_TICKS });
  const writer = new BarWriter({ ticks: tickWriter, bars: deps.market.bars, bus: deps.bus, log: deps.log, clock });
  const host = new LeaseHost<Symbol, SymbolIngest>({
    names: { actor: 'symbol ingest', spec: 'symbol', id: 'ingest_lease' },
    desired: { follow: async () => ({ all: () => [...symbols], stop: () => undefined }) },
    idOf: leaseKey,
    ...claims,
    create: async (symbol, lease) =>
      new SymbolIngest({ ...deps, symbol, cursors, lease, clock, writer, retired: (s) => addStats(retired, s) }),
    log: deps.log,
    clock,
    ...(deps.renewMs ? { renewMs: deps.renewMs } : {}),
  });
  await host.start();
  return {
    host,
    symbols: () => host.runningIds().map((id) => id.slice(LEASE_PREFIX.length) as Symbol),
    stats: () => ({
      ...host.holders().reduce((sum, holder) => addStats(sum, holder.stats()), { ...retired }),
      // The shared writer's own counts (each builder reports the writer's, which summed would repeat them).
      storedTicks: tickWriter.stored,
      failedTicks: tickWriter.failed,
    }),
    async stop(graceful = true) {
      await host.stop(graceful);
      await writer.flush();
    },
  };
}
