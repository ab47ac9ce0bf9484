/**
 * Trials on the position engine: every trial of a batch in one sweep over the folds' bars
 * (sweepBacktests: each trial exactly its own runBacktest), then per trial the metrics in-sample
 * (every fold but the last) and out-of-sample (the last fold), the metrics of each prefix of folds
 * (what walk-forward optimisation chooses on), each fold's return, and the returns per period
 * between equity marks (about a day each: the rows of CSCV's matrix).
 */
import { pnlStats, sweepBacktests, type SweepTrial } from '../backtest/index.ts';
import { TIMEFRAME_MS } from '../lib/timeframes.ts';
import type { BarColumns } from '../scoring/index.ts';
import type { Timeframe } from '../../schemas/common.ts';
import type { Objective } from '../../schemas/optimize-space.ts';
import type { TrialMetrics } from '../../schemas/optimize.ts';
import type { Range } from './fold-models.ts';

const DAY_MS = 86_400_000;

/** Where the sweep records equity: about once a day, and at the last bar of every fold. */
export interface MarkLayout {
  folds: Range[];
  /** The bars run: from the first fold's first bar to the last fold's end. */
  range: Range;
  marks: Int32Array;
  /** Per fold, the index in `marks` of its last bar. */
  foldEnd: number[];
}

export function markLayout(folds: readonly Range[], timeframe: Timeframe): MarkLayout {
  const range = { from: folds[0]!.from, to: folds[folds.length - 1]!.to };
  const step = Math.max(1, Math.round(DAY_MS / TIMEFRAME_MS[timeframe]));
  const set = new Set<number>();
  for (let i = range.from + step - 1; i < range.to; i += step) set.add(i);
  for (const f of folds) set.add(f.to - 1);
  const marks = Int32Array.from([...set].sort((a, b) => a - b));
  const at = new Map([...marks].map((m, j) => [m, j]));
  return { folds: [...folds], range, marks, foldEnd: folds.map((f) => at.get(f.to - 1)!) };
}

export interface TrialOutcome {
  inSample: TrialMetrics;
  outOfSample: TrialMetrics;
  /** Metrics over folds 0..s−1, for s = 1 … k−1 (prefix[k−2] is inSample). */
  prefix: TrialMetrics[];
  /** Each fold's return: equity change over the fold / capital. */
  foldReturns: number[];
  /** Return of each period between consecutive marks (the first from the range's start). */
  periodReturns: Float64Array;
}

/** Mean / sample sd; 0 when fewer than two values or no spread. */
export function sharpe(xs: ArrayLike<number>, from = 0, to = xs.length): number {
  const n = to - from;
  if (n < 2) return 0;
  let sum = 0;
  for (let i = from; i < to; i++) sum += xs[i]!;
  const mean = sum / n;
  let sq = 0;
  for (let i = from; i < to; i++) sq += (xs[i]! - mean) ** 2;
  const sd = Math.sqrt(sq / (n - 1));
  return sd > 0 ? mean / sd : 0;
}

const metrics = (pnls: Float64Array, capital: number, periods: Float64Array, from: number, to: number): TrialMetrics => ({
  ...pnlStats(pnls, capital),
  sharpe: sharpe(periods, from, to),
});

/** P&L of the trades (exit order kept) whose entry time passes `keep`: TradeStats of a subset without trade objects. */
function pnlsWhere(pnl: Float64Array, entryTs: Float64Array, keep: (ts: number) => boolean): Float64Array {
  const out = new Float64Array(pnl.length);
  let n = 0;
  for (let i = 0; i < pnl.length; i++) if (keep(entryTs[i]!)) out[n++] = pnl[i]!;
  return out.subarray(0, n);
}

/** Runs a batch of trials over the folds (one sweep) and measures each. */
export function evaluateTrials(bars: BarColumns, trials: readonly SweepTrial[], layout: MarkLayout, capital: number): TrialOutcome[] {
  if (trials.length === 0) return [];
  const results = sweepBacktests(bars, trials, layout.range, { marks: layout.marks });
  const { folds, foldEnd } = layout;
  const k = folds.length;
  const foldStartTs = folds.map((f) => bars.ts[f.from]!);
  return results.map((r) => {
    const periods = new Float64Array(r.markEquity.length);
    for (let j = 0; j < periods.length; j++) periods[j] = (r.markEquity[j]! - (j === 0 ? capital : r.markEquity[j - 1]!)) / capital;
    const foldReturns = foldEnd.map((end, f) => (r.markEquity[end]! - (f === 0 ? capital : r.markEquity[foldEnd[f - 1]!]!)) / capital);
    // A trade belongs to the fold it entered in.
    const before = (f: number) => pnlsWhere(r.pnl, r.entryTs, (ts) => ts < foldStartTs[f]!);
    const prefix: TrialMetrics[] = [];
    for (let s = 1; s < k; s++) prefix.push(metrics(before(s), capital, periods, 0, foldEnd[s - 1]! + 1));
    return {
      inSample: prefix[k - 2]!,
      outOfSample: metrics(
        pnlsWhere(r.pnl, r.entryTs, (ts) => ts >= foldStartTs[k - 1]!),
        capital,
        periods,
        foldEnd[k - 2]! + 1,
        periods.length,
      ),
      prefix,
      foldReturns,
      periodReturns: periods,
    };
  });
}

/** Whether value a beats b in the objective's direction. */
export const better = (direction: Objective['direction'], a: number, b: number): boolean => (direction === 'maximize' ? a > b : a < b);
