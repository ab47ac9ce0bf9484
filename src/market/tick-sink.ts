import type { Tick } from '../../schemas/market.ts';

/**
 * Where every tick source delivers: the file importer, the NATS and Kafka consumers, the broker
 * stream and the synthetic feed all write batches of ticks of one symbol, in time order, here.
 * The sink takes the ticks in during the call itself; the promise resolves once they are
 * stored, which is how a source applies back-pressure.
 */
export interface TickSink {
  write(ticks: readonly Tick[]): Promise<void>;
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
