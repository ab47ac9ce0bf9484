/**
 * Push-side batching for sources that cannot be paused (core NATS, a broker's HTTP stream), built
 * so that overload costs as little as possible: one lane per symbol keeps what arrives AS IT
 * ARRIVED (a NATS payload's bytes, undecoded) in a queue bounded by `maxQueued` units (bytes for
 * payloads). When the queue is full, a new item is shed on the spot — counted (records, per
 * symbol), never decoded. A pump decodes queued items into columns only when the lane can write
 * them: up to `maxBatch` ticks per sink write, one write in flight per lane (so each symbol stays
 * in order), each write awaited (the sink's back-pressure). So under overload the CPU goes to the
 * ticks that will be stored, and the stored rate stays at capacity instead of falling with the
 * offered load, as it did when every message was decoded and then dropped.
 */
import type { Symbol } from '../../../schemas/common.ts';
import type { Logger } from '../../log.ts';
import { TickColumns } from '../../store/index.ts';
import type { TickSink } from '../tick-sink.ts';
import { LogThrottle } from './log-throttle.ts';
import { ColumnSequencer, writeWithRetry } from './tick-batching.ts';

/** How a source's items are held, counted and decoded. */
export interface LaneCodec<T> {
  /** What an item costs in the queue, in the unit of `maxQueued` (bytes, or 1 per tick). */
  size(item: T): number;
  /** Records an item holds (what a shed item is counted as); must be cheap. */
  records(item: T): number;
  /** Appends the item's valid ticks to `out` (seq is assigned by the lane); the source counts what it rejects. */
  decode(symbol: Symbol, item: T, out: TickColumns): void;
}

export interface TickLanesOptions {
  sink: TickSink;
  log: Logger;
  /** Ticks per sink write at most (default 8192). */
  maxBatch?: number;
  /** How long the first queued item may wait for company (default 5 ms). */
  maxDelayMs?: number;
  /** Per-symbol bound on the queue, in the codec's unit. An item bigger than that still passes an empty queue. */
  maxQueued?: number;
  /**
   * Sink attempts per batch before it is counted as dropped (default 1). The sink takes ticks in
   * during the call and rejects only when storing them failed, so a second attempt would feed the
   * resampler the same ticks twice; core NATS is at-most-once anyway. Raise it only for a sink
   * that takes nothing in when it rejects.
   */
  writeAttempts?: number;
}

interface Lane<T> {
  symbol: Symbol;
  queue: T[];
  head: number;
  queuedUnits: number;
  /** Decoded ticks not yet handed to the sink. */
  staged: TickColumns;
  /** Ticks in the write in flight. */
  writing: number;
  /** Settles when the write in flight does. */
  write: Promise<void> | null;
  timer: NodeJS.Timeout | null;
  immediate: NodeJS.Immediate | null;
  sequencer: ColumnSequencer;
}

export class TickLanes<T> {
  accepted = 0;
  /** Ticks the sink refused. */
  dropped = 0;
  late = 0;
  /** Records shed undecoded because their symbol's queue was full (or the lanes were closed). */
  shed = 0;
  readonly shedBySymbol = new Map<Symbol, number>();
  private closed = false;
  private readonly lanes = new Map<Symbol, Lane<T>>();
  private readonly throttle: LogThrottle;
  private readonly maxBatch: number;
  private readonly maxDelayMs: number;
  private readonly maxQueued: number;

  constructor(
    private readonly codec: LaneCodec<T>,
    private readonly options: TickLanesOptions,
  ) {
    this.maxBatch = options.maxBatch ?? 8192;
    this.maxDelayMs = options.maxDelayMs ?? 5;
    this.maxQueued = options.maxQueued ?? 4 * 2 ** 20;
    this.throttle = new LogThrottle(options.log);
  }

  /** Decoded ticks held (staged or being written), across all symbols. */
  pending(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.staged.length + lane.writing;
    return n;
  }

  /** Items queued undecoded, across all symbols. */
  queued(): number {
    let n = 0;
    for (const lane of this.lanes.values()) n += lane.queue.length - lane.head;
    return n;
  }

  /** Queues one item, or sheds it when its symbol's queue is full. O(1) unless shed. */
  offer(symbol: Symbol, item: T): void {
    const lane = this.lane(symbol);
    const size = this.codec.size(item);
    if (this.closed || (lane.queuedUnits > 0 && lane.queuedUnits + size > this.maxQueued)) {
      const records = this.codec.records(item);
      this.shed += records;
      this.shedBySymbol.set(symbol, (this.shedBySymbol.get(symbol) ?? 0) + records);
      if (!this.closed) {
        this.throttle.warn(
          `full.${symbol}`,
          { symbol, shed: records, maxQueued: this.maxQueued },
          'tick sink is behind; shedding ticks undecoded',
        );
      }
      return;
    }
    lane.queue.push(item);
    lane.queuedUnits += size;
    if (!lane.write && !lane.timer && !lane.immediate) lane.timer = setTimeout(() => this.pump(lane), this.maxDelayMs);
  }

  /** Decodes and writes everything queued now, and waits until it settled. */
  async flush(): Promise<void> {
    for (;;) {
      const busy = [...this.lanes.values()].filter((l) => l.write || l.head < l.queue.length || l.staged.length > 0);
      if (busy.length === 0) return;
      for (const lane of busy) if (!lane.write) this.pump(lane);
      await Promise.all(busy.map((l) => l.write));
    }
  }

  /** Flushes, then sheds (counts) anything offered later. */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private lane(symbol: Symbol): Lane<T> {
    let lane = this.lanes.get(symbol);
    if (!lane) {
      lane = {
        symbol,
        queue: [],
        head: 0,
        queuedUnits: 0,
        staged: new TickColumns(symbol, 256),
        writing: 0,
        write: null,
        timer: null,
        immediate: null,
        sequencer: new ColumnSequencer(),
      };
      this.lanes.set(symbol, lane);
    }
    return lane;
  }

  /** Decodes up to one batch from the queue and writes it; called when the lane is idle. */
  private pump(lane: Lane<T>): void {
    if (lane.timer) clearTimeout(lane.timer);
    if (lane.immediate) clearImmediate(lane.immediate);
    lane.timer = null;
    lane.immediate = null;
    if (lane.write) return;
    this.decodeQueued(lane);
    if (lane.staged.length === 0) return;
    const batch = this.takeBatch(lane);
    lane.writing = batch.length;
    const { sink, writeAttempts = 1 } = this.options;
    // writeWithRetry never rejects, so a lane never wedges.
    lane.write = writeWithRetry(sink, batch, { throttle: this.throttle, attempts: writeAttempts }).then((ok) => {
      if (ok) this.accepted += batch.length;
      else this.dropped += batch.length;
      lane.writing = 0;
      lane.write = null;
      // The next batch waits for the event loop's next turn, so reading the socket (and
      // shedding) keeps its share of the thread however fast the sink answers.
      if (lane.head < lane.queue.length || lane.staged.length > 0) lane.immediate = setImmediate(() => this.pump(lane));
    });
  }

  /** Decodes queued items into the staged columns until a batch is full or the queue is empty. */
  private decodeQueued(lane: Lane<T>): void {
    const staged = lane.staged;
    while (staged.length < this.maxBatch && lane.head < lane.queue.length) {
      const item = lane.queue[lane.head]!;
      lane.queue[lane.head++] = undefined as T;
      lane.queuedUnits -= this.codec.size(item);
      const from = staged.length;
      this.codec.decode(lane.symbol, item, staged);
      const late = lane.sequencer.sequence(staged, from);
      if (late > 0) {
        this.late += late;
        this.throttle.warn(
          `late.${lane.symbol}`,
          { symbol: lane.symbol, late },
          'ticks older than the previous tick of their symbol skipped',
        );
      }
    }
    if (lane.head === lane.queue.length) {
      lane.queue = [];
      lane.head = 0;
    }
  }

  /**
   * The first `maxBatch` staged ticks as an exactly sized batch of their own (the sink may keep
   * it until stored); the staging columns stay with the lane and are reused.
   */
  private takeBatch(lane: Lane<T>): TickColumns {
    const staged = lane.staged;
    const n = Math.min(staged.length, this.maxBatch);
    const batch = staged.slice(0, n);
    staged.dropFront(n);
    return batch;
  }
}
