/**
 * The batching steps every live source shares (NATS, Kafka, OANDA): number ticks per symbol,
 * keep each symbol in time order, cut batches, and write them to the sink with retries.
 */
import type { Symbol } from '../../../schemas/common.ts';
import type { Tick } from '../../../schemas/market.ts';
import { TickColumns } from '../../store/index.ts';
import { TickSequencer, writeColumns, type SourceStats, type TickSink } from '../tick-sink.ts';
import type { LogThrottle } from './log-throttle.ts';
import { tickVolume, type TickMessage } from './tick-decoder.ts';

/** What the live sources report beyond the common counters. */
export interface LiveSourceStats extends SourceStats {
  /** Valid ticks not stored: the sink fell behind (bounded buffer) or refused their batch. */
  dropped: number;
  /** Valid ticks older than the previous tick of their symbol (the sink takes time order only). */
  late: number;
  /** Decoded ticks buffered or being written right now. */
  pending: number;
  /** Records refused undecoded because the sink was behind (a full per-symbol queue). */
  shed: number;
  /** `shed` by symbol (symbols that shed nothing are left out). */
  shedBySymbol: Partial<Record<Symbol, number>>;
  /** Messages waiting undecoded. */
  queued: number;
}

export interface SequencedTicks {
  ticks: Tick[];
  /** Ticks skipped because their ts went back in time. */
  late: number;
}

/**
 * Per-symbol TickSequencers plus the last accepted ts. A tick older than the last one is refused
 * rather than passed on: the sink contract is time order, and a repeated ts with a fresh seq 0
 * would collide with the key of a tick already stored.
 */
export class SymbolSequencers {
  private readonly bySymbol = new Map<Symbol, { seq: TickSequencer; lastTs: number }>();

  sequence(symbol: Symbol, messages: readonly TickMessage[]): SequencedTicks {
    let state = this.bySymbol.get(symbol);
    if (!state) this.bySymbol.set(symbol, (state = { seq: new TickSequencer(), lastTs: -Infinity }));
    const ticks: Tick[] = [];
    let late = 0;
    for (const m of messages) {
      if (m.ts < state.lastTs) late++;
      else {
        state.lastTs = m.ts;
        ticks.push({ symbol, ts: m.ts, seq: state.seq.next(m.ts), bid: m.bid, ask: m.ask, volume: tickVolume(m) });
      }
    }
    return { ticks, late };
  }
}

/**
 * SymbolSequencers' rules for one symbol's columns: numbers the rows [from, length) and removes
 * (in place) those older than the tick before them.
 */
export class ColumnSequencer {
  private readonly numbers = new TickSequencer();
  private lastTs = Number.NEGATIVE_INFINITY;

  /** Returns how many rows were removed as late. */
  sequence(cols: TickColumns, from: number): number {
    const { ts, seq } = cols;
    let to = from;
    for (let i = from; i < cols.length; i++) {
      const t = ts[i]!;
      if (t < this.lastTs) continue;
      this.lastTs = t;
      if (to !== i) cols.move(i, to);
      seq[to++] = this.numbers.next(t);
    }
    const late = cols.length - to;
    cols.length = to;
    return late;
  }
}

/** Splits into consecutive slices of at most `size`. */
export function chunk<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export interface RetryOptions {
  /** Where failures are reported; shared per source so a sink that is down logs a line per interval, not per batch. */
  throttle: LogThrottle;
  /** Attempts before giving up; Infinity retries until `signal` aborts. */
  attempts: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/**
 * Writes one batch, retrying a failing sink with exponential delays. Resolves true once the sink
 * accepted it, false when attempts ran out or `signal` aborted; never rejects.
 */
export async function writeWithRetry(sink: TickSink, ticks: readonly Tick[] | TickColumns, options: RetryOptions): Promise<boolean> {
  const { throttle, attempts, baseDelayMs = 100, maxDelayMs = 5000, signal } = options;
  for (let attempt = 1; ; attempt++) {
    if (signal?.aborted) return false;
    try {
      await (ticks instanceof TickColumns ? writeColumns(sink, ticks) : sink.write(ticks));
      return true;
    } catch (err) {
      const symbol = ticks instanceof TickColumns ? ticks.symbol : ticks[0]?.symbol;
      if (attempt >= attempts) {
        throttle.error('sink.giveup', { err, symbol, ticks: ticks.length, attempts: attempt }, 'tick sink refused a batch; it is dropped');
        return false;
      }
      const delay = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
      throttle.warn('sink.retry', { err, symbol, attempt, retryInMs: delay }, 'tick sink write failed; retrying');
      if (!(await sleep(delay, signal))) return false;
    }
  }
}

/** Waits `ms`; resolves false early if `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
