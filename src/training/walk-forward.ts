/**
 * The walk-forward part of the robustness report: each fold model (fitted in the sandbox,
 * trainer.py, handed back as ONNX and scored on the trusted side: scoring's scoreFolds) through the
 * same decisions and position engine as the main backtest — the same threshold (toSignals), the
 * same entry mask and engine options the pipeline built — over the fold's test bars and, for the
 * in-sample side, its own training bars.
 */
import { runBacktest, tradeStats, type BacktestRun, type BarColumns, type EngineOptions } from '../backtest/index.ts';
import { isoFromMs } from '../lib/iso-time.ts';
import { toSignals, type EntryRules, type ScoredFold } from '../scoring/index.ts';
import type { FoldOptions } from '../sandbox/index.ts';
import type { WalkForward, WalkForwardFold } from '../../schemas/robustness.ts';

const YEAR_MS = 365.25 * 86_400_000;

/**
 * Bars skipped at the start of each fold's test after the purge gap: 1 % of the labelled bars,
 * López de Prado's default embargo (features built on rolling windows carry the train period's
 * state a little into the test).
 */
export const embargoBars = (labelledRows: number): number => Math.ceil(0.01 * Math.max(0, labelledRows));

/** The folds a train job asks the trainer for. */
export const foldOptions = (k: number, scheme: FoldOptions['scheme'], labelledRows: number): FoldOptions => ({
  k,
  scheme,
  embargo: embargoBars(labelledRows),
});

export interface WalkForwardInput {
  bars: BarColumns;
  /** The fold models' p(up), scored as the main model's (scoreFolds) over train.from … test.to − 1. */
  folds: readonly ScoredFold[];
  /** Trees of each fold forest (TrainResult.foldTrees); null when the fold models are not forests. */
  foldTrees: number | null;
  plan: FoldOptions;
  /** The purge gap: target_horizon bars. */
  purge: number;
  /** What the main backtest uses: its threshold, entry mask and engine options. */
  threshold: number;
  /** The entry rules of a meta-labelled model (entryRules), null in direction mode: toSignals as the main backtest. */
  rules?: EntryRules | null;
  mask: Uint8Array;
  options: EngineOptions;
  capital: number;
}

/** One fold's runs: the engine over its test bars and over its training bars, on the fold model's signals. */
export interface FoldRuns {
  fold: ScoredFold;
  test: BacktestRun;
  train: BacktestRun;
}

export function foldRuns(input: WalkForwardInput): FoldRuns[] {
  const { bars, threshold, mask, options } = input;
  return input.folds.map((fold) => {
    // 0 outside the fold's bars: its pUp is NaN there.
    const signals = toSignals(fold.pUp, threshold, input.rules);
    return {
      fold,
      test: runBacktest(options, bars, signals, fold.test, mask),
      train: runBacktest(options, bars, signals, fold.train, mask),
    };
  });
}

const span = (bars: BarColumns, r: { from: number; to: number }) => ({
  from: isoFromMs(bars.ts[r.from]!),
  to: isoFromMs(bars.ts[r.to - 1]!),
  bars: r.to - r.from,
});
const years = (bars: BarColumns, r: { from: number; to: number }) => (bars.ts[r.to - 1]! - bars.ts[r.from]!) / YEAR_MS;

/**
 * Walk-forward efficiency: annualised out-of-sample return over annualised in-sample return, each
 * the folds' summed return over their summed calendar time (simple, not compounded: a fold's
 * return is on the fixed capital, as TradeStats.ret is). null when the in-sample return is ≤ 0:
 * the ratio of two losses, or of a gain to a loss, says nothing about retained edge.
 */
export function walkForwardEfficiency(
  runs: readonly { test: { ret: number; years: number }; train: { ret: number; years: number } }[],
): number | null {
  const sum = (f: (r: (typeof runs)[number]) => number) => runs.reduce((s, r) => s + f(r), 0);
  const isYears = sum((r) => r.train.years);
  const oosYears = sum((r) => r.test.years);
  if (runs.length === 0 || isYears <= 0 || oosYears <= 0) return null;
  const inSample = sum((r) => r.train.ret) / isYears;
  if (!(inSample > 0)) return null;
  return sum((r) => r.test.ret) / oosYears / inSample;
}

/** The WalkForward object of the report; null when no fold could be fitted (too few bars for the folds). */
export function walkForward(input: WalkForwardInput): { report: WalkForward | null; runs: FoldRuns[] } {
  const runs = foldRuns(input);
  if (runs.length === 0) return { report: null, runs };
  const { bars, capital } = input;
  const folds: WalkForwardFold[] = runs.map((r) => ({
    index: r.fold.index,
    train: span(bars, r.fold.train),
    test: span(bars, r.fold.test),
    stats: tradeStats(r.test.trades, capital),
    train_stats: tradeStats(r.train.trades, capital),
  }));
  const efficiency = walkForwardEfficiency(
    runs.map((r, i) => ({
      test: { ret: folds[i]!.stats.ret, years: years(bars, r.fold.test) },
      train: { ret: folds[i]!.train_stats.ret, years: years(bars, r.fold.train) },
    })),
  );
  return {
    report: {
      scheme: input.plan.scheme,
      k: input.plan.k,
      purge_bars: input.purge,
      embargo_bars: input.plan.embargo,
      folds,
      fold_trees: input.foldTrees,
      profitable: folds.filter((f) => f.stats.ret > 0).length,
      efficiency,
    },
    runs,
  };
}
