/**
 * Push-side batching for sources that cannot be paused (core NATS, a broker's HTTP stream):
 * one lane per symbol gathers ticks, flushes at `maxBatch` ticks or `maxDelayMs` after the first
 * buffered one, and writes batches to the sink one after another, so each symbol stays in order.
 * A lane holds at most `maxPending` ticks (buffered + queued + being written); beyond that new
 * ticks are dropped and counted, so a slow sink costs data, never unbounded memory.
 */
import type { Symbol } from '../../../schemas/common.ts';
import type { Tick } from '../../../schemas/market.ts';
import type { Logger } from '../../log.ts';
import type { TickSink } from '../tick-sink.ts';
import { LogThrottle } from './log-throttle.ts';
import { SymbolSequencers, writeWithRetry } from './tick-batching.ts';
import type { TickMessage } from './tick-decoder.ts';

export interface TickLanesOptions {
  sink: TickSink;
  log: Logger;
  /** Ticks per sink write at most (default 1000). */
  maxBatch?: number;
  /** How long the first buffered tick may wait for company (default 5 ms). */
  maxDelayMs?: number;
  /** Per-symbol bound on ticks held in memory (default 50 000). */
  maxPending?: number;
  /**
   * Sink attempts per batch before it is counted as dropped (default 1). The sink takes ticks in
   * during the call and rejects only when storing them failed, so a second attempt would feed the
   * resampler the same ticks twice; core NATS is at-most-once anyway. Raise it only for a sink
   * that takes nothing in when it rejects.
   */
  writeAttempts?: number;
}

interface Lane {
  symbol: Symbol;
  buffer: Tick[];
  /** Ticks handed to the write chain and not settled yet. */
  queued: number;
  chain: Promise<void>;
  timer: NodeJS.Timeout | null;
}

export class TickLanes {
  accepted = 0;
  dropped = 0;
  late = 0;
  private closed = false;
  private readonly lanes = new Map<Symbol, Lane>();
  private readonly sequencers = new SymbolSequencers();
  private readonly throttle: LogThrottle;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly maxPending: number;

  constructor(private readonly options: TickLanesOptions) {
    this.maxBatch = options.maxBatch ?? 1000;
    this.maxDelayMs = options.maxDelayMs ?? 5;
    this.maxPending = options.maxPending ?? 50_000;
    this.throttle = new LogThrottle(options.log);
  }

  /** Ticks held in memory across all symbols. */
  pending(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.buffer.length + lane.queued;
    return n;
  }

  add(symbol: Symbol, messages: readonly TickMessage[]): void {
    if (messages.length === 0) return;
    if (this.closed) {
      this.dropped += messages.length;
      return;
    }
    const lane = this.lane(symbol);
    const room = Math.max(0, this.maxPending - lane.buffer.length - lane.queued);
    const { ticks, late, overflow } = this.sequencers.sequence(symbol, messages, room);
    this.late += late;
    this.dropped += overflow;
    if (late > 0) this.throttle.warn(`late.${symbol}`, { symbol, late }, 'ticks older than the previous tick of their symbol skipped');
    if (overflow > 0) {
      this.throttle.warn(`full.${symbol}`, { symbol, dropped: overflow, maxPending: this.maxPending }, 'tick sink is behind; dropping ticks');
    }
    for (const tick of ticks) {
      lane.buffer.push(tick);
      if (lane.buffer.length >= this.maxBatch) this.flushLane(lane);
    }
    if (lane.buffer.length > 0 && !lane.timer) {
      lane.timer = setTimeout(() => this.flushLane(lane), this.maxDelayMs);
      lane.timer.unref();
    }
  }

  /** Writes everything buffered now and waits until every write started so far settled. */
  async flush(): Promise<void> {
    for (const lane of this.lanes.values()) this.flushLane(lane);
    await Promise.all([...this.lanes.values()].map((lane) => lane.chain));
  }

  /** Flushes, then refuses (counts as dropped) anything added later. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private lane(symbol: Symbol): Lane {
    let lane = this.lanes.get(symbol);
    if (!lane) this.lanes.set(symbol, (lane = { symbol, buffer: [], queued: 0, chain: Promise.resolve(), timer: null }));
    return lane;
  }

  private flushLane(lane: Lane): void {
    if (lane.timer) clearTimeout(lane.timer);
    lane.timer = null;
    if (lane.buffer.length === 0) return;
    const batch = lane.buffer;
    lane.buffer = [];
    lane.queued += batch.length;
    const { sink, writeAttempts = 1 } = this.options;
    const throttle = this.throttle;
    // writeWithRetry never rejects, so the chain never breaks and order is kept.
    lane.chain = lane.chain.then(async () => {
      const ok = await writeWithRetry(sink, batch, { throttle, attempts: writeAttempts });
      lane.queued -= batch.length;
      if (ok) this.accepted += batch.length;
      else this.dropped += batch.length;
    });
  }
}
