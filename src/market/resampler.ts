import type { Symbol } from '../../schemas/common.ts';
import type { BarMessage, DataSource, Tick } from '../../schemas/market.ts';
import type { TickColumns } from '../store/index.ts';
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

/** What the resampler keeps per symbol. */
interface SymbolState {
  /** The open bar of each timeframe (TIMEFRAMES order). While the 1-min bar is open, all are. */
  bars: Array<OpenBar | null>;
  /** The latest end of any closed bar: a tick before it would reopen a closed bar. */
  closedUntil: number;
  /** When its ticks last arrived (wall clock), to tell a quiet market from a busy one. */
  lastArrival: number;
  /** The key (ts, seq) of the last tick taken: a tick not after it is a repeat or late. */
  lastTs: number;
  lastSeq: number;
}

const SIZES = TIMEFRAMES.map((tf) => TIMEFRAME_MS[tf]);
const MINUTE = SIZES[0]!;

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
  private readonly symbols = new Map<Symbol, SymbolState>();
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
    return this.take(tick.symbol, this.state(tick.symbol), tick.ts, tick.seq, tick.bid, tick.ask, tick.volume, source);
  }

  /**
   * Takes a batch of one symbol's ticks, as push() would one by one, and removes from the
   * columns (in place) the ticks it refused, so that what is left is what it took. Ticks stamped
   * after `maxTs` are refused too (a clock far ahead would make every true tick look late) and
   * counted apart: returns how many.
   */
  pushColumns(cols: TickColumns, source: DataSource, maxTs = Number.POSITIVE_INFINITY): number {
    const symbol = cols.symbol;
    const state = this.state(symbol);
    const { ts, seq, bid, ask, volume } = cols;
    let future = 0;
    let to = 0;
    for (let i = 0; i < cols.length; i++) {
      if (ts[i]! > maxTs) future++;
      else if (this.take(symbol, state, ts[i]!, seq[i]!, bid[i]!, ask[i]!, volume[i]!, source)) {
        if (to !== i) cols.move(i, to);
        to++;
      }
    }
    cols.length = to;
    return future;
  }

  /** Records that ticks of `symbol` arrived at wall-clock `now` (once per batch is enough). */
  arrived(symbol: Symbol, now: number): void {
    this.state(symbol).lastArrival = now;
  }

  /**
   * Closes every bar whose end plus the grace time lies at or before `now` — for symbols whose
   * ticks have stopped arriving for the grace time. While ticks keep coming (a replay or a
   * catch-up runs far behind the clock), bars close by the rule that never guesses: a tick of a
   * later bar. `only` limits it to one symbol; `until` (at most `now`) stands in for `now` as the
   * time bars end by, where the ticks' source has a clock of its own that is behind.
   */
  closeDue(now: number, only?: Symbol, until = now): void {
    const by = Math.min(now, until);
    for (const [symbol, state] of this.symbols) {
      if ((only !== undefined && symbol !== only) || !this.hasDue(state, now)) continue;
      const bars = state.bars;
      for (let i = 0; i < TIMEFRAMES.length; i++) {
        const bar = bars[i];
        if (bar && bar.ts + SIZES[i]! + this.graceMs <= by) {
          this.emit(symbol, state, i, bar);
          bars[i] = null;
        }
      }
    }
  }

  /** The symbols `closeDue(now)` would close bars of: a caller that can ask its source whether more ticks wait does so first. */
  dueSymbols(now: number): Symbol[] {
    const due: Symbol[] = [];
    for (const [symbol, state] of this.symbols) if (this.hasDue(state, now)) due.push(symbol);
    return due;
  }

  private hasDue(state: SymbolState, now: number): boolean {
    if (now - state.lastArrival < this.graceMs) return false;
    return state.bars.some((bar, i) => bar !== null && bar.ts + SIZES[i]! + this.graceMs <= now);
  }

  /** Closes every open bar (end of a finite input). */
  flush(): void {
    for (const state of this.symbols.values()) state.lastArrival = Number.NEGATIVE_INFINITY;
    this.closeDue(Number.POSITIVE_INFINITY);
  }

  stats(): ResamplerStats {
    return { ...this.counters };
  }

  private state(symbol: Symbol): SymbolState {
    let state = this.symbols.get(symbol);
    if (!state) {
      state = {
        bars: TIMEFRAMES.map(() => null),
        closedUntil: Number.NEGATIVE_INFINITY,
        lastArrival: Number.NEGATIVE_INFINITY,
        lastTs: Number.NEGATIVE_INFINITY,
        lastSeq: -1,
      };
      this.symbols.set(symbol, state);
    }
    return state;
  }

  private take(
    symbol: Symbol,
    state: SymbolState,
    ts: number,
    seq: number,
    bid: number,
    ask: number,
    volume: number,
    source: DataSource,
  ): boolean {
    const bars = state.bars;
    const first = bars[0];
    const floor = first && first.ts > state.closedUntil ? first.ts : state.closedUntil;
    if (ts < floor || ts < state.lastTs || (ts === state.lastTs && seq <= state.lastSeq)) {
      this.counters.late++;
      return false;
    }
    state.lastTs = ts;
    state.lastSeq = seq;
    this.counters.ticks++;
    // The common case: the tick falls in the open 1-min bar, hence in every open bar.
    if (first && ts < first.ts + MINUTE) {
      for (let i = 0; i < bars.length; i++) {
        const bar = bars[i]!;
        if (bid > bar.high) bar.high = bid;
        if (bid < bar.low) bar.low = bid;
        bar.close = bid;
        bar.volumeSum += volume;
        bar.ticks++;
      }
      return true;
    }
    for (let i = 0; i < bars.length; i++) {
      const size = SIZES[i]!;
      const bucket = Math.floor(ts / size) * size;
      const bar = bars[i];
      if (bar && bar.ts === bucket) {
        if (bid > bar.high) bar.high = bid;
        if (bid < bar.low) bar.low = bid;
        bar.close = bid;
        bar.volumeSum += volume;
        bar.ticks++;
        continue;
      }
      if (bar) this.emit(symbol, state, i, bar);
      bars[i] = { ts: bucket, open: bid, high: bid, low: bid, close: bid, volumeSum: volume, ticks: 1, spread: ask - bid, source };
    }
    return true;
  }

  private emit(symbol: Symbol, state: SymbolState, i: number, bar: OpenBar): void {
    this.counters.bars++;
    const end = bar.ts + SIZES[i]!;
    if (end > state.closedUntil) state.closedUntil = end;
    this.onBar({
      symbol,
      timeframe: TIMEFRAMES[i]!,
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
