/**
 * The engine-only batched sweep: many backtests of the same bars — trials that differ only in what
 * the engine does with the model's probabilities (levels, trail, threshold, pos_rules, filters) —
 * in one pass over the bars, each trial exactly (bit for bit) the run `runBacktest` would give it:
 * every trial is a `PositionEngine` stepped by the same rules, so there is one implementation of
 * each rule.
 *
 * The pass is tiled: the bars are taken a block (4,096 bars, ~200 KB of columns) at a time, and
 * inside a block each trial's engine steps through every bar of it before the next trial's does.
 * A block's bars are read from memory once for all trials and then come from the cache, while
 * one engine's state stays in L1 for a whole block — measured on the bench (test/bench/engine-sweep.ts),
 * switching engines at every bar (or every 256 bars) costs more in cache misses on 1,000 engines'
 * state than it saves on bars. Trials are independent, so the order of (trial, bar) steps
 * changes no trade.
 *
 * Memory: per trial an engine (its open positions, and the P&L of its closed trades — 8 bytes each —
 * unless `trades` asks for the trades themselves) and the equity at the
 * `marks` only — never a full equity curve per trial.
 */
import type { ClosedTrade, TradeStats } from '../../schemas/backtest.ts';
import { PositionEngine } from './position-engine.ts';
import { pnlStats } from './stats.ts';
import type { BarColumns, EngineOptions } from './types.ts';

export interface SweepTrial {
  options: EngineOptions;
  /** −1/0/1 per bar (from bar i's close), as runBacktest takes them; trials may share one array. */
  signals: Int8Array;
  /** Entry and exit bits per bar (see runBacktest); absent = both sides may enter, no exit. */
  mask?: Uint8Array;
}

export interface SweepOptions {
  /** Bar indexes (inside the range, strictly increasing) at whose close each trial's equity is recorded. */
  marks?: Int32Array;
  /**
   * Also give each trial's closed trades as objects. Costly for many trials (1,000 trials of a
   * year of 15-minute bars make ~1.4 M objects, hundreds of MB): prefer `pnl` / `entryTs`.
   */
  trades?: boolean;
  /** Bars per tile (see the file comment; default 4,096); any value gives the same results. */
  block?: number;
}

export interface SweepResult {
  /** tradeStats of the trial's trades at its capital, as runBacktest's trades give them. */
  stats: TradeStats;
  tradeCount: number;
  /**
   * Each closed trade's net P&L and entry time, in exit order (runBacktest's trades' `pnl` and
   * `entryTs`): enough for the TradeStats of any subset — pnlStats(pnl of the trades entered in a
   * fold) — without making 1,000 trials' trade objects.
   */
  pnl: Float64Array;
  entryTs: Float64Array;
  /** Equity in USD at each mark's close: runBacktest's equity[mark − from]. */
  markEquity: Float64Array;
  trades?: ClosedTrade[];
}

const DEFAULT_BLOCK = 4_096;

/**
 * Runs every trial over bars [from, to) in one tiled pass (see the file comment). Each result equals,
 * to the bit, `runBacktest(trial.options, bars, trial.signals, range, trial.mask)`: its trades, the
 * tradeStats of them and its equity at the marks.
 */
export function sweepBacktests(
  bars: BarColumns,
  trials: readonly SweepTrial[],
  range: { from: number; to: number },
  opts: SweepOptions = {},
): SweepResult[] {
  const { from, to } = range;
  const n = bars.ts.length;
  if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to && to <= n)) {
    throw new RangeError(`sweepBacktests: range [${from}, ${to}) is not inside the ${n} bars`);
  }
  const marks = opts.marks ?? new Int32Array(0);
  for (let j = 0; j < marks.length; j++) {
    const m = marks[j]!;
    if (!(m >= from && m < to)) throw new RangeError(`sweepBacktests: mark ${m} is outside the range [${from}, ${to})`);
    if (j > 0 && !(m > marks[j - 1]!))
      throw new RangeError(`sweepBacktests: marks must be strictly increasing (${marks[j - 1]} then ${m})`);
  }
  const block = opts.block ?? DEFAULT_BLOCK;
  if (!(Number.isInteger(block) && block >= 1)) throw new RangeError(`sweepBacktests: block must be an integer ≥ 1, got ${block}`);
  const count = trials.length;
  let noMask: Uint8Array | null = null;
  const signals: Int8Array[] = new Array(count);
  const masks: Uint8Array[] = new Array(count);
  const engines: PositionEngine[] = new Array(count);
  const markEquity: Float64Array[] = new Array(count);
  for (let t = 0; t < count; t++) {
    const trial = trials[t]!;
    if (trial.signals.length < to)
      throw new RangeError(`sweepBacktests: trial ${t} has ${trial.signals.length} signals for bars up to ${to}`);
    if (trial.mask && trial.mask.length < to)
      throw new RangeError(`sweepBacktests: trial ${t} has ${trial.mask.length} entry masks for bars up to ${to}`);
    signals[t] = trial.signals;
    // runBacktest's default mask (3) as a column, so the inner loop has one shape.
    masks[t] = trial.mask ?? (noMask ??= new Uint8Array(to).fill(3));
    engines[t] = new PositionEngine(trial.options, opts.trades ? 'trades' : 'pnl');
    markEquity[t] = new Float64Array(marks.length);
  }

  const last = to - 1;
  let nextMark = 0;
  for (let start = from, end = from; start < to; start = end) {
    end = Math.min(start + block, to);
    // The marks inside this tile: each trial records them as it passes them (a tile is not cut at
    // marks, so daily marks keep tiles long).
    const firstMark = nextMark;
    while (nextMark < marks.length && marks[nextMark]! < end) nextMark++;
    for (let t = 0; t < count; t++) {
      const engine = engines[t]!;
      const sig = signals[t]!;
      const mask = masks[t]!;
      let i = start;
      for (let j = firstMark; j < nextMark; j++) {
        const m = marks[j]!;
        engine.stepRange(bars, i, m + 1, sig, mask);
        if (m === last) engine.finish(bars, last); // as runBacktest: the last bar's equity after the 'end' close
        engine.writeEquity(bars, m, markEquity[t]!, j);
        i = m + 1;
      }
      if (i < end) {
        engine.stepRange(bars, i, end, sig, mask);
        if (end === to) engine.finish(bars, last);
      }
    }
  }

  const results: SweepResult[] = new Array(count);
  for (let t = 0; t < count; t++) {
    const engine = engines[t]!;
    const result: SweepResult = {
      stats: pnlStats(engine.closedPnls(), trials[t]!.options.capital ?? 10_000),
      tradeCount: engine.closedCount,
      pnl: engine.closedPnls(),
      entryTs: engine.closedEntryTimes(),
      markEquity: markEquity[t]!,
    };
    if (opts.trades) result.trades = engine.closedTrades();
    results[t] = result;
  }
  return results;
}
