import type { Tick } from '../../schemas/market.ts';
import type { TickColumns } from '../store/index.ts';

/**
 * Where every tick source delivers: the file importer, the NATS and Kafka consumers, the broker
 * stream and the synthetic feed all write batches of ticks of one symbol, in time order, here.
 * The sink takes the ticks in during the call itself; the promise resolves when the sink is
 * ready for more — at once, or once stored for a sink that stores them itself (the importer),
 * or after its next insert for one that holds too many (the bar builder): the back-pressure a
 * source waits for.
 */
export interface TickSink {
  write(ticks: readonly Tick[]): Promise<void>;
  /**
   * The same for one symbol's ticks as columns (the high-rate path: no object per tick). The
   * sink may keep the columns; the caller must not touch them again. Optional: without it the
   * columns are written as objects (writeColumns below).
   */
  writeColumns?(ticks: TickColumns): Promise<void>;
}

/** Writes columns through the sink's columnar path when it has one. */
export function writeColumns(sink: TickSink, ticks: TickColumns): Promise<void> {
  return sink.writeColumns ? sink.writeColumns(ticks) : sink.write(ticks.toTicks());
}

/** Counters every source keeps and reports. */
export interface SourceStats {
  received: number;
  accepted: number;
  malformed: number;
}

/**
 * Numbers ticks that share a millisecond (0, 1, 2… in arrival order), so that (symbol, ts, seq)
 * identifies each tick and re-importing the same file yields the same keys. One per symbol stream.
 */
export class TickSequencer {
  private lastTs = Number.NEGATIVE_INFINITY;
  private lastSeq = 0;

  next(ts: number): number {
    if (ts === this.lastTs) return ++this.lastSeq;
    this.lastTs = ts;
    this.lastSeq = 0;
    return 0;
  }
}
