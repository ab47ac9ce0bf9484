/**
 * The robustness report of a trained model (schemas/robustness.ts RobustnessReport): from the
 * test run of the contract's split, the train run, the engine options and the walk-forward folds
 * the caller ran, everything else computed here — Sharpe significance of the test's bar returns,
 * the random-entry baseline over the test span, the Monte Carlo of the test trades, the minimum
 * track record and the verdict. Pure and deterministic: the same inputs and seed, the same report.
 */
import type { RobustnessReport, WalkForward } from '../../schemas/robustness.ts';
import { tradeStats, type BacktestRun, type BarColumns, type EngineOptions } from '../backtest/index.ts';
import { runOffThread } from '../lib/off-thread.ts';
import { TIMEFRAME_MS, type Timeframe } from '../lib/timeframes.ts';
import { monteCarlo, MONTE_CARLO_RUNS } from './monte-carlo.ts';
import { randomBaseline, BASELINE_RUNS } from './random-baseline.ts';
import { minTrackRecord, sharpeSignificance } from './sharpe.ts';
import { verdictOf } from './verdict.ts';
import { modelVsRule, type RuleUplift } from './model-vs-rule.ts';

const DAY_MS = 86_400_000;
const DAYS_PER_YEAR = 365.25;
/** The seed when the caller gives none: reports are reproducible by default. */
export const DEFAULT_SEED = 34;

/**
 * Bars per calendar day of a timeframe: 24 hours of bars on the days the instrument trades —
 * every day for instruments that trade weekends (BTCUSD), 5 of 7 for FX (closed Friday 22:00 to
 * Sunday 22:00 UTC), averaged over the week. A constant, not measured from the bars, so a span with
 * gaps or a holiday does not change the annualisation.
 */
export function barsPerDay(timeframe: Timeframe, weekends: boolean): number {
  return (DAY_MS / TIMEFRAME_MS[timeframe]) * (weekends ? 1 : 5 / 7);
}

/** Bars per year (365.25 calendar days) at barsPerDay. */
export const barsPerYear = (timeframe: Timeframe, weekends: boolean): number => barsPerDay(timeframe, weekends) * DAYS_PER_YEAR;

/**
 * Per-bar returns of a run: the change of mark-to-market equity from one bar close to the next,
 * over the capital (not compounded: the engine trades a fixed lot size).
 */
export function barReturns(run: Pick<BacktestRun, 'equity' | 'capital'>): Float64Array {
  const { equity, capital } = run;
  const out = new Float64Array(Math.max(0, equity.length - 1));
  for (let i = 1; i < equity.length; i++) out[i - 1] = (equity[i]! - equity[i - 1]!) / capital;
  return out;
}

export interface RobustnessInput {
  bars: BarColumns;
  /** The out-of-sample run (the contract's test split), over `bars`. */
  test: Pick<BacktestRun, 'trades' | 'equity' | 'capital' | 'from' | 'to'>;
  /** The in-sample run (the training split). */
  train: Pick<BacktestRun, 'trades'>;
  options: EngineOptions;
  timeframe: Timeframe;
  walkForward: WalkForward | null;
  /**
   * N (variants tried, ≥ 1) and, when known (an optimisation), the variance of the trials'
   * Sharpes. The deflation compares per-bar Sharpes, so the variance must be of Sharpes of
   * per-bar returns — or say in `sharpePeriodBars` how many bars each return the trials' Sharpes
   * were measured on spanned (e.g. daily returns of 15-minute bars: 96); the variance is then
   * divided by it (a Sharpe of k-bar returns is √k times the per-bar one for uncorrelated returns).
   */
  trials: { n: number; sharpeVariance?: number | undefined; sharpePeriodBars?: number | undefined };
  /** Probability of backtest overfitting, when an optimisation measured it. */
  pbo?: number | undefined;
  /** A meta-labelled model's uplift over the trader's rule (MetaLabelReport.uplift); absent without entry rules. */
  ruleUplift?: RuleUplift | null | undefined;
  seed?: number | undefined;
  /** Random-entry runs (default 1,000). */
  baselineRuns?: number | undefined;
  /** Bootstrap runs (default 1,000). */
  monteCarloRuns?: number | undefined;
}

export function robustnessReport(input: RobustnessInput): RobustnessReport {
  const { bars, test, train, options, timeframe, walkForward, trials, pbo } = input;
  const seed = input.seed ?? DEFAULT_SEED;
  const capital = options.capital ?? 10_000;
  const weekends = options.instrument.weekends;
  const perYear = barsPerYear(timeframe, weekends);
  const returns = barReturns(test);
  const periodBars = trials.sharpePeriodBars ?? 1;
  if (!(periodBars > 0)) throw new RangeError(`robustnessReport: trials.sharpePeriodBars must be > 0, got ${periodBars}`);
  const trialSharpeVariance = trials.sharpeVariance === undefined ? undefined : trials.sharpeVariance / periodBars;
  const sharpe = sharpeSignificance(returns, { trials: trials.n, barsPerYear: perYear, trialSharpeVariance });
  const testTrades = test.trades;
  const random_baseline = randomBaseline({
    bars,
    range: { from: test.from, to: test.to },
    trades: testTrades,
    options,
    runs: input.baselineRuns ?? BASELINE_RUNS,
    seed,
  });
  const monte_carlo = monteCarlo({ pnl: testTrades.map((t) => t.pnl), capital, runs: input.monteCarloRuns ?? MONTE_CARLO_RUNS, seed });
  const model_vs_rule = input.ruleUplift ? modelVsRule(input.ruleUplift) : undefined;
  const { verdict, reasons } = verdictOf({
    train: tradeStats(train.trades, capital),
    test: tradeStats(testTrades, capital),
    sharpe,
    randomBaseline: random_baseline,
    walkForward,
    pbo,
    modelVsRule: model_vs_rule,
  });
  return {
    verdict,
    reasons,
    walk_forward: walkForward,
    sharpe,
    random_baseline,
    monte_carlo,
    min_track_record: minTrackRecord(sharpe, barsPerDay(timeframe, weekends)),
    ...(model_vs_rule ? { model_vs_rule } : {}),
  };
}

/**
 * robustnessReport on a worker thread (src/lib/off-thread.ts), the event loop free meanwhile: the
 * same report. What crosses is plain data: the test span's bars only (the report reads no other,
 * its indexes shifted to start at 0 — the same arithmetic on the same values), the runs' trades
 * and equity, the options without their intrabar resolver (a function; the report does not use it).
 */
export function robustnessReportOffThread(input: RobustnessInput, signal?: AbortSignal): Promise<RobustnessReport> {
  const { bars, test, train, options } = input;
  const { from, to } = test;
  // Fresh copies, moved to the worker: a view would take its whole underlying buffer along.
  const span = {
    ts: bars.ts.slice(from, to),
    open: bars.open.slice(from, to),
    close: bars.close.slice(from, to),
    spread: bars.spread.slice(from, to),
  };
  const equity = test.equity.slice();
  const portable: RobustnessInput = {
    ...input,
    bars: { ...span, high: new Float64Array(0), low: new Float64Array(0) },
    test: { trades: test.trades, equity, capital: test.capital, from: 0, to: to - from },
    train: { trades: train.trades },
    options: { ...options, resolver: null },
  };
  const transfer = [span.ts.buffer, span.open.buffer, span.close.buffer, span.spread.buffer, equity.buffer];
  return runOffThread<RobustnessReport>(new URL(import.meta.url), 'robustnessReport', [portable], {
    transfer,
    ...(signal ? { signal } : {}),
  });
}
