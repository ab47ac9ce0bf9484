/** The whole-history backtest: the position engine stepped over a range of bars. */
import type { ClosedTrade } from '../../schemas/backtest.ts';
import { PositionEngine } from './position-engine.ts';
import type { BarColumns, EngineOptions } from './types.ts';

export interface BacktestRun {
  /**
   * Closed trades in exit order; whatever was still open closed at the last bar's close ('end').
   * Made from the engine's compact log on first read (then kept).
   */
  readonly trades: ClosedTrade[];
  /** How many trades (without making them). */
  tradeCount: number;
  /** Equity in USD at each bar's close over the range (see PositionEngine.equity); the last = capital + Σ pnl. */
  equity: Float64Array;
  /** Bar open times of the range (a view of bars.ts). */
  ts: Float64Array;
  capital: number;
  /** The range of bar indexes run, `to` exclusive. */
  from: number;
  to: number;
}

/**
 * Steps a fresh engine over bars [from, to): `signals[i]` (−1/0/1, from bar i's close) and
 * `entryMask[i]` (bit 1 long allowed, bit 2 short allowed, bit 4 close longs, bit 8 close shorts;
 * absent = both, no exit) go with bar i; the
 * signal of the last bar has no next open and does nothing. Whatever is open at the end closes at
 * the last bar's close.
 */
export function runBacktest(
  opts: EngineOptions,
  bars: BarColumns,
  signals: Int8Array,
  range: { from: number; to: number },
  entryMask?: Uint8Array,
): BacktestRun {
  const { from, to } = range;
  const n = bars.ts.length;
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to && to <= n)) {
    throw new RangeError(`runBacktest: range [${from}, ${to}) is not inside the ${n} bars`);
  }
  if (signals.length < to) throw new RangeError(`runBacktest: ${signals.length} signals for bars up to ${to}`);
  if (entryMask && entryMask.length < to) throw new RangeError(`runBacktest: ${entryMask.length} entry masks for bars up to ${to}`);
  const engine = new PositionEngine(opts);
  const equity = new Float64Array(to - from);
  const last = to - 1;
  if (entryMask) {
    for (let i = from; i < last; i++) {
      engine.step(bars, i, signals[i]!, entryMask[i]!);
      engine.writeEquity(bars, i, equity, i - from);
    }
  } else {
    for (let i = from; i < last; i++) {
      engine.step(bars, i, signals[i]!);
      engine.writeEquity(bars, i, equity, i - from);
    }
  }
  if (to > from) {
    engine.step(bars, last, signals[last]!, entryMask ? entryMask[last]! : 3);
    engine.finish(bars, last);
    engine.writeEquity(bars, last, equity, last - from);
  }
  let trades: ClosedTrade[] | null = null;
  return {
    get trades() {
      return (trades ??= engine.closedTrades());
    },
    tradeCount: engine.closedCount,
    equity,
    ts: bars.ts.subarray(from, to),
    capital: opts.capital ?? 10_000,
    from,
    to,
  };
}
