import { z } from 'zod';
import { TradeStats } from './backtest.ts';
import { IsoDateTime } from './common.ts';

/**
 * "Is the edge real?": the robustness report every trained model carries (GET /results →
 * `robustness`, GET /train/{id} when done, one_shot's `done`), and its parts. Computed by
 * src/robustness/ from the out-of-sample trades and the walk-forward folds; the verdict rule and
 * its thresholds are documented on Verdict and in src/robustness/verdict.ts.
 */

const Span = z.object({
  from: IsoDateTime.describe('First bar (open time)'),
  to: IsoDateTime.describe('Last bar (open time)'),
  bars: z.number().int(),
});

export const FoldScheme = z
  .enum(['rolling', 'anchored'])
  .describe(
    'rolling: each fold trains on the window just before its test; anchored: each fold trains on everything from the first bar up to its test',
  );
export type FoldScheme = z.infer<typeof FoldScheme>;

export const WalkForwardFold = z.object({
  index: z.number().int().min(0),
  train: Span.describe('Bars the fold model was fitted on'),
  test: Span.describe('Its out-of-sample bars, after the purge gap and embargo'),
  stats: TradeStats.describe('The position engine over the test bars, with the fold model’s signals'),
  train_stats: TradeStats.describe('The same engine over the fold’s own training bars (in-sample)'),
});
export type WalkForwardFold = z.infer<typeof WalkForwardFold>;

export const WalkForward = z
  .object({
    scheme: FoldScheme,
    k: z.number().int().min(2).describe('Out-of-sample folds'),
    purge_bars: z
      .number()
      .int()
      .min(0)
      .describe('Bars dropped between a fold’s training rows and its test: their targets overlap the test (target_horizon)'),
    embargo_bars: z.number().int().min(0).describe('Bars skipped at the start of each test after the purge'),
    folds: z.array(WalkForwardFold),
    fold_trees: z
      .number()
      .int()
      .min(1)
      .nullable()
      .optional()
      .describe(
        'Trees of each fold model when the model is a forest (RandomForest/ExtraTrees): an eighth of the main forest’s, at least 30 — the mean of fewer of the same iid trees, an unbiased but noisier p(up), at an eighth of the cost; null: the fold models have the main model’s parameters',
      ),
    profitable: z.number().int().min(0).describe('Folds whose test return is > 0'),
    efficiency: z
      .number()
      .nullable()
      .describe(
        'Walk-forward efficiency: annualised out-of-sample return over annualised in-sample return, across the folds; null when the in-sample return is ≤ 0',
      ),
  })
  .meta({ id: 'WalkForward' });
export type WalkForward = z.infer<typeof WalkForward>;

export const SharpeSignificance = z
  .object({
    returns: z
      .literal('bar')
      .describe('What a return is: the change of mark-to-market equity from one bar close to the next, over capital, on the test span'),
    observations: z.number().int().min(0).describe('T: returns used'),
    sharpe: z.number().describe('Observed Sharpe ratio per bar (mean / standard deviation), not annualised'),
    sharpe_annualised: z.number().describe('sharpe × √(bars per year of this timeframe)'),
    skewness: z.number(),
    kurtosis: z.number().describe('Pearson kurtosis (3 for a normal distribution)'),
    psr: z
      .number()
      .min(0)
      .max(1)
      .describe('Probabilistic Sharpe Ratio: P(true Sharpe > 0) given T, skewness and kurtosis (Bailey & López de Prado 2012)'),
    trials: z
      .number()
      .int()
      .min(1)
      .describe(
        'N: variants tried. For a trained model: the models and finished train jobs of this account on the same symbol and timeframe whose code descends from this one’s (≥ 0.7 by the fork-descent measure: Dice similarity of 8-token runs; a fork starts as a copy of its parent’s code), each job once, this one included, except that the jobs saved from one optimisation (POST /optimize/{id}/save: this one, or others) count together as that optimisation’s trials run; for an optimisation: its trials',
      ),
    expected_max_sharpe: z.number().describe('SR₀: the Sharpe the best of N unskilled trials would show by luck (per bar)'),
    dsr: z.number().min(0).max(1).describe('Deflated Sharpe Ratio: P(true Sharpe > SR₀) (Bailey & López de Prado 2014)'),
    p_value: z.number().min(0).max(1).describe('1 − dsr: how likely a Sharpe this high is luck across N trials'),
  })
  .meta({ id: 'SharpeSignificance' });
export type SharpeSignificance = z.infer<typeof SharpeSignificance>;

export const Histogram = z.object({
  edges: z.array(z.number()).describe('Bin edges, ascending: counts[i] covers [edges[i], edges[i+1])'),
  counts: z.array(z.number().int().min(0)),
});
export type Histogram = z.infer<typeof Histogram>;

export const RandomBaseline = z
  .object({
    runs: z.number().int().min(1),
    seed: z.number().int(),
    trades: z.number().int().min(0).describe('Trades per run: the out-of-sample trade count'),
    return_p_value: z
      .number()
      .min(0)
      .max(1)
      .describe('Share of random runs whose return ≥ the strategy’s (with the +1 correction: (k + 1) / (runs + 1))'),
    pf_p_value: z.number().min(0).max(1).describe('The same for profit factor'),
    strategy_return: z.number(),
    strategy_pf: z.number(),
    returns: Histogram.describe('Final returns of the random runs'),
  })
  .describe('The same number of trades, holding times and long/short mix, entered at random bars of the test span')
  .meta({ id: 'RandomBaseline' });
export type RandomBaseline = z.infer<typeof RandomBaseline>;

const Percentiles = z.object({ p5: z.number(), p50: z.number(), p95: z.number() });

export const MonteCarlo = z
  .object({
    runs: z.number().int().min(1),
    seed: z.number().int(),
    final_return: Percentiles.describe('Total return, decimal'),
    max_drawdown: Percentiles.describe('Signed decimal ≤ 0 (p5 is the deepest)'),
    prob_half_loss: z.number().min(0).max(1).describe('Share of runs whose equity fell to half the capital or below at some trade'),
    fan: z
      .array(z.object({ trade: z.number().int(), p5: z.number(), p50: z.number(), p95: z.number() }))
      .describe('Equity (USD) after each trade number, at most 100 points'),
  })
  .describe('Bootstrap of the out-of-sample trades (drawn with replacement, same count), at the request’s capital and lot size')
  .meta({ id: 'MonteCarlo' });
export type MonteCarlo = z.infer<typeof MonteCarlo>;

export const MinTrackRecord = z
  .object({
    bars: z
      .number()
      .nullable()
      .describe('Bars of live trading after which the observed Sharpe would be significant at 95 %; null when the Sharpe is ≤ 0 (never)'),
    days: z.number().nullable().describe('The same in calendar days at this timeframe’s bars per day'),
  })
  .meta({ id: 'MinTrackRecord' });
export type MinTrackRecord = z.infer<typeof MinTrackRecord>;

export const Verdict = z
  .enum(['robust', 'inconclusive', 'overfit'])
  .describe(
    'overfit: the out-of-sample record contradicts the in-sample one (see reasons); robust: enough trades, a deflated-Sharpe p-value < 0.05, ' +
      'a random-entry p-value < 0.05 and most walk-forward folds profitable; inconclusive: anything between. Rule: src/robustness/verdict.ts',
  );
export type Verdict = z.infer<typeof Verdict>;

export const ModelVsRule = z
  .object({
    adds: z
      .boolean()
      .describe(
        "true when the rule trades the model confirmed beat random picks of as many of the rule's trades (p < 0.05) and the strategy as traded made more than the rule alone on the test span",
      ),
    p_value: z
      .number()
      .nullable()
      .describe('One-sided permutation p-value of that test; null when the model confirmed none or all of them'),
    rule_trades: z.number().int().describe('Trades of the rule alone on the test span'),
    chosen_trades: z.number().int().describe('Of those, the ones the model confirmed'),
    words: z.string().describe("The same in plain words (also the last of the verdict's reasons)"),
  })
  .describe(
    "Meta-labelled models (strategy_config entry_long / entry_short): does the model add anything over the trader's rule alone? The detail is GET /api/v1/results/{model} → meta_label",
  )
  .meta({ id: 'ModelVsRule' });
export type ModelVsRule = z.infer<typeof ModelVsRule>;

export const RobustnessReport = z
  .object({
    verdict: Verdict,
    reasons: z
      .array(z.string())
      .describe(
        'Why, in plain words, most important first; with entry rules the last says whether the model adds anything over the rule (model_vs_rule)',
      ),
    walk_forward: WalkForward.nullable().describe('null when the bars are too few for the folds'),
    sharpe: SharpeSignificance,
    random_baseline: RandomBaseline,
    monte_carlo: MonteCarlo,
    min_track_record: MinTrackRecord,
    model_vs_rule: ModelVsRule.optional().describe(
      "With entry rules only: the model against the trader's rule alone. It does not change the verdict, which judges the strategy as traded (rule + model): a robust strategy whose model adds nothing owes its edge to the rule",
    ),
  })
  .meta({ id: 'RobustnessReport' });
export type RobustnessReport = z.infer<typeof RobustnessReport>;
