import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { BarMessage, DataSource, Tick } from '../../schemas/market.ts';
import { TIMEFRAME_MS, TIMEFRAMES } from '../lib/timeframes.ts';

/** A bar being built. Field names follow BarMessage; `volumeSum` feeds `volume` at close. */
interface OpenBar {
  ts: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volumeSum: number;
  ticks: number;
  spread: number;
  source: DataSource;
}

export interface ResamplerStats {
  ticks: number;
  late: number;
  bars: number;
}

/**
 * The bar rules, in one place, for every streaming tick source:
 * - price is the bid; a bar is stamped with its open time (UTC epoch ms);
 * - open/close are the first/last tick in arrival order, high/low the extremes;
 * - volume is the summed tick volume when the source gives volumes, else the tick count;
 * - spread is ask − bid of the opening tick (what a fill at the open pays);
 * - a bar exists only where ticks exist; it closes when a tick of a later bar arrives, or when
 *   `closeDue(now)` finds its end plus the grace time has passed and its symbol has gone quiet.
 * A tick older than the open 1-min bar, or inside any bar already closed, is late: counted and
 * dropped, so no closed bar is ever reopened and every timeframe aggregates the same ticks. The SQL rebuild in bars-repo follows the same rules.
 */
export class StreamingResampler {
  private readonly open = new Map<Symbol, Array<OpenBar | null>>();
  /** Per symbol, the latest end of any closed bar: a tick before it would reopen a closed bar. */
  private readonly closedUntil = new Map<Symbol, number>();
  /** Per symbol, when its ticks last arrived (wall clock), to tell a quiet market from a busy one. */
  private readonly lastArrival = new Map<Symbol, number>();
  /** Per symbol, the key (ts, seq) of the last tick taken: a tick not after it is a repeat or late. */
  private readonly lastKey = new Map<Symbol, { ts: number; seq: number }>();
  private readonly counters: ResamplerStats = { ticks: 0, late: 0, bars: 0 };

  constructor(
    private readonly onBar: (bar: BarMessage) => void,
    private readonly graceMs = 2_000,
  ) {}

  /**
   * Takes one tick; false when it is late or a repeat (a source retrying a batch), and then
   * nothing changes, so a retried write is harmless.
   */
  push(tick: Tick, source: DataSource): boolean {
    let bars = this.open.get(tick.symbol);
    if (!bars) {
      bars = TIMEFRAMES.map(() => null);
      this.open.set(tick.symbol, bars);
    }
    const floor = Math.max(bars[0]?.ts ?? Number.NEGATIVE_INFINITY, this.closedUntil.get(tick.symbol) ?? Number.NEGATIVE_INFINITY);
    const last = this.lastKey.get(tick.symbol);
    if (tick.ts < floor || (last && (tick.ts < last.ts || (tick.ts === last.ts && tick.seq <= last.seq)))) {
      this.counters.late++;
      return false;
    }
    if (last) {
      last.ts = tick.ts;
      last.seq = tick.seq;
    } else this.lastKey.set(tick.symbol, { ts: tick.ts, seq: tick.seq });
    this.counters.ticks++;
    for (let i = 0; i < TIMEFRAMES.length; i++) {
      const size = TIMEFRAME_MS[TIMEFRAMES[i]!];
      const bucket = Math.floor(tick.ts / size) * size;
      const bar = bars[i];
      if (bar && bar.ts === bucket) {
        if (tick.bid > bar.high) bar.high = tick.bid;
        if (tick.bid < bar.low) bar.low = tick.bid;
        bar.close = tick.bid;
        bar.volumeSum += tick.volume;
        bar.ticks++;
        continue;
      }
      if (bar) this.emit(tick.symbol, TIMEFRAMES[i]!, bar);
      bars[i] = {
        ts: bucket,
        open: tick.bid,
        high: tick.bid,
        low: tick.bid,
        close: tick.bid,
        volumeSum: tick.volume,
        ticks: 1,
        spread: tick.ask - tick.bid,
        source,
      };
    }
    return true;
  }

  /** Records that ticks of `symbol` arrived at wall-clock `now` (once per batch is enough). */
  arrived(symbol: Symbol, now: number): void {
    this.lastArrival.set(symbol, now);
  }

  /**
   * Closes every bar whose end plus the grace time lies at or before `now` — for symbols whose
   * ticks have stopped arriving for the grace time. While ticks keep coming (a replay or a
   * catch-up runs far behind the clock), bars close by the rule that never guesses: a tick of a
   * later bar.
   */
  closeDue(now: number): void {
    for (const [symbol, bars] of this.open) {
      if (now - (this.lastArrival.get(symbol) ?? Number.NEGATIVE_INFINITY) < this.graceMs) continue;
      for (let i = 0; i < TIMEFRAMES.length; i++) {
        const bar = bars[i];
        const timeframe = TIMEFRAMES[i]!;
        if (bar && bar.ts + TIMEFRAME_MS[timeframe] + this.graceMs <= now) {
          this.emit(symbol, timeframe, bar);
          bars[i] = null;
        }
      }
    }
  }

  /** Closes every open bar (end of a finite input). */
  flush(): void {
    this.lastArrival.clear();
    this.closeDue(Number.POSITIVE_INFINITY);
  }

  stats(): ResamplerStats {
    return { ...this.counters };
  }

  private emit(symbol: Symbol, timeframe: Timeframe, bar: OpenBar): void {
    this.counters.bars++;
    const end = bar.ts + TIMEFRAME_MS[timeframe];
    if (end > (this.closedUntil.get(symbol) ?? Number.NEGATIVE_INFINITY)) this.closedUntil.set(symbol, end);
    this.onBar({
      symbol,
      timeframe,
      ts: bar.ts,
      open: bar.open,
      high: bar.high,
      low: bar.low,
      close: bar.close,
      volume: bar.volumeSum > 0 ? bar.volumeSum : bar.ticks,
      ticks: bar.ticks,
      spread: bar.spread,
      source: bar.source,
    });
  }
}
