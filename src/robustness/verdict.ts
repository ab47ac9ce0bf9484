/**
 * The verdict on a model: `overfit`, `robust` or `inconclusive`, with its reasons in words a
 * trader reads. The rule, in order:
 *
 *  1. overfit when the out-of-sample record contradicts the in-sample one — any of:
 *     a. training made money, the test lost money, and random entries did at least as well as the
 *        test in at least half their runs (return p-value ≥ CHANCE_P);
 *     b. walk-forward efficiency < 0 (out-of-sample folds lost while in-sample won);
 *     c. more than half of the walk-forward folds lost money out of sample while the folds'
 *        training spans made money on average;
 *     d. PBO > PBO_OVERFIT, when an optimisation measured it.
 *  2. robust when all of: at least MIN_TRADES test trades, a deflated-Sharpe p-value below
 *     SIGNIFICANCE_P, a random-entry return p-value below SIGNIFICANCE_P, and walk-forward folds
 *     of which at least MIN_PROFITABLE_FOLDS are profitable (no folds: not robust).
 *  3. inconclusive otherwise; the reasons name what fell short.
 *
 * With entry rules (meta-labelling) the last reason says whether the model adds anything over the
 * trader's rule alone (model-vs-rule.ts). It does not move the verdict: that judges the strategy
 * as traded, and a robust one whose model adds nothing owes its edge to the rule.
 */
import type { TradeStats } from '../../schemas/backtest.ts';
import type { ModelVsRule, RandomBaseline, SharpeSignificance, Verdict, WalkForward } from '../../schemas/robustness.ts';

/** Below ~30 trades one or two lucky trades can make the whole result, and the normal approximations behind the p-values do not hold yet (the usual central-limit rule of thumb). */
export const MIN_TRADES = 30;
/** The conventional 5 % false-positive rate: of twenty strategies with no edge, one passes by luck. */
export const SIGNIFICANCE_P = 0.05;
/** A test return that random entries match in at least half their runs is no better than a coin flip, so a training profit beside it was learned, not found. */
export const CHANCE_P = 0.5;
/** More than a coin flip's share of folds must win (3 of 5), so one lucky period cannot carry the verdict. */
export const MIN_PROFITABLE_FOLDS = 0.6;
/** Above 0.5 the best in-sample variant is more likely than not to land in the bottom half out of sample: choosing by backtest did worse than choosing at random. */
export const PBO_OVERFIT = 0.5;
/** Below 0 the out-of-sample folds lost money while their training spans made it. */
export const MIN_EFFICIENCY = 0;

export interface VerdictInput {
  /** The contract's train and test splits, at the request's capital. */
  train: Pick<TradeStats, 'n' | 'ret'>;
  test: Pick<TradeStats, 'n' | 'ret'>;
  sharpe: Pick<SharpeSignificance, 'p_value' | 'trials'>;
  randomBaseline: Pick<RandomBaseline, 'return_p_value'>;
  walkForward: Pick<WalkForward, 'k' | 'folds' | 'profitable' | 'efficiency'> | null;
  /** Probability of backtest overfitting, when an optimisation measured it. */
  pbo?: number | null | undefined;
  /** A meta-labelled model against the trader's rule alone (modelVsRule): said last, whatever the verdict. */
  modelVsRule?: Pick<ModelVsRule, 'words'> | null | undefined;
}

export interface VerdictResult {
  verdict: Verdict;
  reasons: string[];
}

/** A decimal return as a signed percentage a trader reads: +289 %, −27 %, +4.5 %. */
export function percent(x: number): string {
  const v = x * 100;
  const digits = Math.abs(v) >= 10 || v === 0 ? 0 : Math.abs(v) >= 1 ? 1 : 2;
  const text = Math.abs(v).toFixed(digits);
  if (Number(text) === 0) return '0 %';
  return `${v < 0 ? '−' : '+'}${text} %`;
}

/** A share (0…1) as an unsigned percentage: 62 %, 4.8 %. */
const share = (x: number): string => `${(x * 100).toFixed(x * 100 >= 10 || x === 0 ? 0 : 1)} %`;
/** A p-value: two decimals, three below 0.01, "< 0.001" below that. */
const pValue = (p: number): string => (p < 0.001 ? '< 0.001' : p.toFixed(p < 0.01 ? 3 : 2));
const variants = (n: number) => `${n} variant${n === 1 ? '' : 's'} tried`;

export function verdictOf(input: VerdictInput): VerdictResult {
  const { verdict, reasons } = strategyVerdict(input);
  return { verdict, reasons: input.modelVsRule ? [...reasons, input.modelVsRule.words] : reasons };
}

/** The verdict on the strategy as traded (the rule above); the model-vs-rule reading only adds a reason. */
function strategyVerdict(input: VerdictInput): VerdictResult {
  const { train, test, sharpe, randomBaseline, walkForward, pbo } = input;
  const overfit: string[] = [];
  if (train.ret > 0 && test.ret < 0 && randomBaseline.return_p_value >= CHANCE_P) {
    overfit.push(
      `test return ${percent(test.ret)} against ${percent(train.ret)} in training: the model learned the training period ` +
        `(random entries did at least as well in ${share(randomBaseline.return_p_value)} of their runs)`,
    );
  }
  if (walkForward !== null) {
    if (walkForward.efficiency !== null && walkForward.efficiency < MIN_EFFICIENCY) {
      overfit.push(
        `walk-forward efficiency ${walkForward.efficiency.toFixed(2).replace('-', '−')}: the out-of-sample folds lost money while their training spans made it`,
      );
    }
    const folds = walkForward.folds;
    const losing = folds.filter((f) => f.stats.ret < 0).length;
    const trainMean = folds.length > 0 ? folds.reduce((s, f) => s + f.train_stats.ret, 0) / folds.length : 0;
    if (folds.length > 0 && losing > folds.length / 2 && trainMean > 0) {
      overfit.push(
        `${losing} of ${folds.length} walk-forward folds lost money out of sample while their training spans made ${percent(trainMean)} on average: the edge does not carry forward`,
      );
    }
  }
  if (pbo !== undefined && pbo !== null && pbo > PBO_OVERFIT) {
    overfit.push(
      `probability of backtest overfitting ${share(pbo)}: the best variant in training usually ends in the bottom half out of sample`,
    );
  }
  if (overfit.length > 0) return { verdict: 'overfit', reasons: overfit };

  const passed: string[] = [];
  const failed: string[] = [];
  if (test.n >= MIN_TRADES) passed.push(`${test.n} trades out of sample: enough to measure (at least ${MIN_TRADES})`);
  else failed.push(`${test.n} trade${test.n === 1 ? '' : 's'}: too few to tell (needs at least ${MIN_TRADES})`);
  if (sharpe.p_value < SIGNIFICANCE_P)
    passed.push(`deflated Sharpe p-value ${pValue(sharpe.p_value)} after ${variants(sharpe.trials)}: unlikely to be luck`);
  else
    failed.push(
      `deflated Sharpe p-value ${pValue(sharpe.p_value)} after ${variants(sharpe.trials)}: a Sharpe this high could be luck (needs below ${SIGNIFICANCE_P})`,
    );
  if (randomBaseline.return_p_value < SIGNIFICANCE_P) {
    passed.push(`random entries with the same trades did as well in only ${share(randomBaseline.return_p_value)} of their runs`);
  } else {
    failed.push(
      `random entries with the same trades did as well in ${share(randomBaseline.return_p_value)} of their runs (needs below ${share(SIGNIFICANCE_P)})`,
    );
  }
  if (walkForward === null) failed.push('no walk-forward folds (too few bars): one test span is all the out-of-sample evidence');
  else {
    const k = walkForward.folds.length || walkForward.k;
    const text = `${walkForward.profitable} of ${k} walk-forward folds profitable`;
    if (k > 0 && walkForward.profitable / k >= MIN_PROFITABLE_FOLDS) passed.push(text);
    else failed.push(`${text} (needs at least ${share(MIN_PROFITABLE_FOLDS)})`);
  }
  if (failed.length === 0) return { verdict: 'robust', reasons: passed };
  return { verdict: 'inconclusive', reasons: failed };
}
