/**
 * Is the edge real? Statistics over the position engine's runs (issue 34 §1–2), pure and seeded:
 * Sharpe significance (PSR, DSR, minimum track record), the random-entry baseline, the Monte
 * Carlo of the trades, CSCV's probability of backtest overfitting, the degradation slope, the
 * verdict and the whole report. Shapes: schemas/robustness.ts.
 */
export { normalCdf, normalQuantile, moments, type Moments } from './normal.ts';
export {
  EULER_GAMMA,
  SIGNIFICANCE,
  deflatedSharpe,
  expectedMaxSharpe,
  minTrackRecord,
  minTrackRecordLength,
  probabilisticSharpe,
  sharpeOf,
  sharpeSignificance,
  sharpeVarianceFactor,
  type SharpeSample,
  type SignificanceOptions,
} from './sharpe.ts';
export { histogram, quantileSorted } from './histogram.ts';
export { randomBaseline, profitFactor, BASELINE_RUNS, type BaselineTrade, type RandomBaselineInput } from './random-baseline.ts';
export { monteCarlo, fanTrades, HALF_LOSS, MONTE_CARLO_RUNS, type MonteCarloInput } from './monte-carlo.ts';
export { cscvPbo, cscvPboFitting, cscvPboOffThread, halfMasks, type Pbo } from './cscv.ts';
export { degradation, type Degradation } from './degradation.ts';
export {
  verdictOf,
  percent,
  CHANCE_P,
  MIN_EFFICIENCY,
  MIN_PROFITABLE_FOLDS,
  MIN_TRADES,
  PBO_OVERFIT,
  SIGNIFICANCE_P,
  type VerdictInput,
  type VerdictResult,
} from './verdict.ts';
export { modelVsRule, type RuleUplift } from './model-vs-rule.ts';
export {
  robustnessReport,
  robustnessReportOffThread,
  barReturns,
  barsPerDay,
  barsPerYear,
  DEFAULT_SEED,
  type RobustnessInput,
} from './report.ts';
