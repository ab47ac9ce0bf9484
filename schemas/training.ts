import { z } from 'zod';
import { ExecutionSettings, riskUnitBounds, Trade, TradeStats } from './backtest.ts';
import { ErrorBody, IsoDate, IsoDateTime, Symbol, Timeframe } from './common.ts';
import { IndicatorsObject } from './indicators.ts';
import { ResponseSource } from './market.ts';
import { ModelIdentity } from './model-identity.ts';
import { RobustnessReport } from './robustness.ts';
import { StaticViolation, StrategyConfig } from './strategy.ts';
import { strictObject } from './strict.ts';

/**
 * Train jobs, models and their results: what POST /train takes, what GET /train/{id},
 * /models, /results, /predict and /signals answer, and the records the trainer keeps in KV.
 */

export const MODEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9 _.\-]{0,59}$/;
export const ModelName = z
  .string()
  .regex(MODEL_NAME_PATTERN, 'model_name: 1-60 characters, letters, digits, space, `_`, `.`, `-`, starting with a letter or digit')
  .describe('Display name, unique per user: training under an existing name replaces that model');

export const AiModel = z.enum(['sonnet', 'opus', 'haiku', 'sonnet-haiku']);

export const MAX_CODE_CHARS = 100_000;
export const MIN_TRAIN_BARS = 300;
export const MAX_TRAIN_BARS = 400_000;

/** Where a code route's market came from: the request's field, the code's `# signalforge:` header line, or the default. */
export const MarketSource = z.enum(['request', 'code header', 'default']);
export type MarketSource = z.infer<typeof MarketSource>;

/** The market a job runs on when the request names none and the code's header none either. */
export const DEFAULT_MARKET = { symbol: 'EURUSD', timeframe: '15min' } as const;

/** The market POST /train (or /optimize) runs the code on, and where each part of it came from. */
export const MarketUsed = z
  .object({
    symbol: Symbol,
    timeframe: Timeframe,
    symbol_from: MarketSource.describe(
      'request: the body named it; code header: the code’s `# signalforge: symbol=…` line (the body named none); default: neither did (EURUSD)',
    ),
    timeframe_from: MarketSource.describe('request, code header (its `timeframe=…`), or default (15min)'),
  })
  .meta({ id: 'MarketUsed' });
export type MarketUsed = z.infer<typeof MarketUsed>;

/** symbol and timeframe of a request that takes strategy code: optional, resolved against the code's header. */
export const codeMarketFields = {
  symbol: Symbol.optional().describe(
    'Default: the symbol of the code’s `# signalforge: symbol=… timeframe=…` header line (generated code has one), else EURUSD. ' +
      'When the body and the header both name a symbol they must be the same (400 otherwise: the code’s thresholds and pip-scaled features are that pair’s)',
  ),
  timeframe: Timeframe.optional().describe(
    'Default: the timeframe of the code’s header line, else 15min. The body’s wins over the header’s',
  ),
};

export const TrainRequest = strictObject({
  code: z.string().min(1).max(MAX_CODE_CHARS).describe('Full strategy code (feature_engineering + strategy_config)'),
  ...codeMarketFields,
  start_date: IsoDate.optional().describe(
    'First UTC day of the trained span; default: the span ending at end_date (1min 60 days, 5min 180, 15min 365, 1h 730)',
  ),
  end_date: IsoDate.optional().describe(
    'Last UTC day of the trained span (default: the latest bar). Bars after it are the post-cutoff predictions',
  ),
  train_split: z
    .number()
    .min(0.3)
    .max(0.9)
    .default(0.7)
    .describe(
      'Share of the labelled bars, chronologically first, that train the model; the rest (after a purge gap of target_horizon bars) is the test',
    ),
  model_name: ModelName.optional().describe(
    'Default `Model N+1`: N = your models, or the last number handed out if higher (trains submitted at once get distinct names; a number is not handed out twice)',
  ),
  ai_model: AiModel.optional().describe('Recorded with the model; training does not depend on it'),
  indicators: IndicatorsObject.optional().describe('Recorded with the job; the code decides the features'),
  confidence_threshold: z
    .number()
    .min(0.5)
    .max(0.99)
    .optional()
    .describe('Overrides strategy_config signal_threshold: p(up) ≥ t is long, p(up) ≤ 1 − t is short'),
  wf_folds: z
    .number()
    .int()
    .min(2)
    .max(10)
    .default(5)
    .describe(
      'Walk-forward folds of the robustness report: the labelled bars of the trained span are cut into wf_folds + 1 consecutive blocks, and fold i fits ' +
        'the same model on block i (rolling) or blocks 0…i (anchored) and is backtested on block i + 1, after a purge gap of target_horizon bars and an ' +
        'embargo of 1 % of the labelled bars. A fold too small to fit (under 50 rows) or holding one target class is skipped and named in warnings. ' +
        'Each fold is one more fit: the job’s CPU budget grows with them',
    ),
  wf_scheme: z
    .enum(['rolling', 'anchored'])
    .default('rolling')
    .describe(
      'rolling: each fold model fits only the block just before its test; anchored: everything from the first bar up to it (more fitting time: k/2 fits’ worth instead of k/(k+1))',
    ),
  ...ExecutionSettings.shape,
})
  .superRefine(riskUnitBounds)
  .meta({ id: 'TrainRequest' });
export type TrainRequest = z.infer<typeof TrainRequest>;

/** A train request with its market resolved (the request's, else the code header's, else the default): what the job keeps. */
export const TrainJobRequest = TrainRequest.safeExtend({
  symbol: Symbol.default(DEFAULT_MARKET.symbol),
  timeframe: Timeframe.default(DEFAULT_MARKET.timeframe),
});
export type TrainJobRequest = z.infer<typeof TrainJobRequest>;

/** 400 of POST /train: the error, plus every rule the code breaks when the static check refused it. */
export const TrainRejected = ErrorBody.extend({
  violations: z
    .array(StaticViolation)
    .optional()
    .describe('Each broken rule with line, col, rule id and a one-line fix (static check only)'),
}).meta({ id: 'TrainRejected' });

export const JOB_STATUSES = ['queued', 'running', 'done', 'failed'] as const;
export const JobStatus = z.enum(JOB_STATUSES);
export type JobStatus = z.infer<typeof JobStatus>;

export const TrainStart = z
  .object({
    job_id: z.number().int().describe('Poll GET /api/v1/train/{job_id}'),
    model_name: z.string(),
    model_stem: z.string().describe('`<user_id>_<SYMBOL>_<timeframe>_<model_name>`'),
    status: z.literal('queued'),
    market: MarketUsed.optional().describe(
      'The symbol and timeframe the job trains on, and where each came from: `code header` when the body named none and the code’s header line did',
    ),
  })
  .meta({ id: 'TrainStart' });
export type TrainStart = z.infer<typeof TrainStart>;

const stats = (what: string) => TradeStats.optional().describe(`${what}; present when status is done`);

/** A train job started by one_shot carries the pipeline's outcome (GET /train/{job_id} → `one_shot`). */
export const OneShotOutcome = z
  .object({
    status: z
      .enum(['running', 'deployed', 'refunded', 'not_deployed'])
      .describe(
        'running until the model is deployed or the fee refunded; not_deployed: the verdict fell short of the request’s deploy_if (model kept, fee refunded)',
      ),
    reason: z.string().optional().describe('Why the fee was refunded, or the model not deployed'),
    deployment_id: z.string().optional(),
    // The secret itself stays on the deployment (delivery signs with it) and is never kept on the job: its view is read again and again.
    webhook_secret_set: z
      .literal(true)
      .optional()
      .describe(
        'The deployment has a webhook channel with a signing secret. The secret is shown once, in one_shot’s done event; when the deploy completed after a restart (no stream to show it) ' +
          'POST /api/v1/deploy the model again for one — its deployment is replaced, and the new secret is in that response',
      ),
  })
  .meta({ id: 'OneShotOutcome' });
export type OneShotOutcome = z.infer<typeof OneShotOutcome>;

export const JobView = z
  .object({
    job_id: z.number().int(),
    status: JobStatus,
    model_name: z.string(),
    model_stem: z.string(),
    symbol: Symbol,
    timeframe: Timeframe,
    created_at: IsoDateTime,
    started_at: IsoDateTime.nullable(),
    finished_at: IsoDateTime.nullable(),
    stage: z.string().nullable().describe('While running: loading bars, checking code, training, backtesting, saving'),
    train_stats: stats('Backtest over the training span (in-sample)'),
    test_stats: stats('Backtest over the test span (out-of-sample)'),
    long_stats: stats('Long trades of the test span'),
    short_stats: stats('Short trades of the test span'),
    robustness: RobustnessReport.optional().describe(
      'Is the edge real? Walk-forward folds, deflated Sharpe, random-entry baseline, Monte Carlo and a verdict; present when status is done',
    ),
    error: z.string().optional().describe('Why the job failed; present when status is failed'),
    one_shot: OneShotOutcome.optional().describe(
      'For a job started by POST /one_shot: whether the pipeline deployed the model or refunded its fee',
    ),
  })
  .meta({ id: 'TrainJob' });
export type JobView = z.infer<typeof JobView>;

export const JobIdParams = z.object({
  job_id: z.coerce
    .number()
    .int()
    .positive()
    .meta({ examples: [42] }),
});

/** Where a model saved from an optimisation came from (POST /optimize/{id}/save): its deflated Sharpe counts the optimisation's trials. */
export const ModelOptimization = z
  .object({
    optimize_id: z.number().int().describe('GET /api/v1/optimize/{optimize_id}: the optimisation the model was saved from'),
    trial: z.number().int().describe('The trial saved (its chosen trial)'),
    trials_run: z.number().int().min(1).describe('Trials that optimisation ran (done or failed): all of them count in the model’s N'),
  })
  .meta({ id: 'ModelOptimization' });
export type ModelOptimization = z.infer<typeof ModelOptimization>;

/** The job as the trainer keeps it (KV `sf_jobs`, key = job id). */
export const JobRecord = z.object({
  job_id: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  status: JobStatus,
  model_name: z.string(),
  model_stem: z.string(),
  request: TrainJobRequest,
  created_at: z.number().int(),
  started_at: z.number().int().nullable(),
  finished_at: z.number().int().nullable(),
  stage: z.string().nullable(),
  attempts: z.number().int(),
  cap_counted_at: z.number().int(),
  error: z.string().optional(),
  stats: z.object({ train: TradeStats, test: TradeStats, long: TradeStats, short: TradeStats }).optional(),
  robustness: RobustnessReport.optional(),
  one_shot: OneShotOutcome.optional(),
  /** An optimisation's chosen trial saved as a model: the model class/hyperparameters and engine settings the fit and backtest use instead of the code's. */
  overrides: z
    .object({
      model: z
        .object({
          model_type: z.string().optional(),
          model_params: z.record(z.string(), z.unknown()).optional(),
          indicators: z.record(z.string(), z.union([z.number(), z.boolean()])).optional(),
        })
        .optional(),
      config: z.record(z.string(), z.unknown()).optional(),
    })
    .optional(),
  /** Set by the service for an optimisation's chosen trial saved as a model: carried to the model and counted in N. */
  optimization: ModelOptimization.optional(),
});
export type JobRecord = z.infer<typeof JobRecord>;

/** What the work queue carries: the job id (the record holds the rest). */
export const TrainJobMessage = z.object({ job_id: z.number().int() });

const Span = z.object({
  from: IsoDateTime.describe('First bar (open time)'),
  to: IsoDateTime.describe('Last bar (open time)'),
  bars: z.number().int(),
});

/** The execution settings a model was backtested with (the request's, defaults filled in). */
export const ModelSettings = z.object({
  ...ExecutionSettings.shape,
  confidence_threshold: z.number().describe('The signal threshold used (request, else strategy_config signal_threshold)'),
  train_split: z.number(),
});
export type ModelSettings = z.infer<typeof ModelSettings>;

/** A trained model (KV `sf_models`, key `<user_id>.<hex of model_name>`); artifacts live in the object store. */
export const ModelRecord = z.object({
  user_id: z.number().int(),
  username: z.string(),
  model_name: z.string(),
  stem: z.string(),
  symbol: Symbol,
  timeframe: Timeframe,
  model_type: z.string(),
  title: z.string(),
  trained_at: z.number().int(),
  job_id: z.number().int(),
  source: ResponseSource,
  features: z.array(z.string()),
  warmup: z.number().int(),
  config: StrategyConfig,
  settings: ModelSettings,
  train_stats: TradeStats,
  test_stats: TradeStats,
  long_stats: TradeStats,
  short_stats: TradeStats,
  trained_span: z.object({ from: z.number(), to: z.number() }).describe('epoch ms of the first and last bar trained on'),
  // Optional: records trained before it was kept still parse (a fork then falls back to trained_span).
  fit_span: z
    .object({ from: z.number(), to: z.number() })
    .optional()
    .describe('epoch ms of the first and last bar of the fit span, warm-up included: what a fork trains on to reproduce the model'),
  /** Bumped on every retrain under this name, so stale artifacts are never mixed with new ones. */
  artifact: z.string(),
  // Optional: models trained before the report existed still parse (they show no verdict).
  robustness: RobustnessReport.optional(),
  // Optional: absent for models not saved from an optimisation (and for those saved before it was kept).
  optimization: ModelOptimization.optional(),
});
export type ModelRecord = z.infer<typeof ModelRecord>;

export const ModelInfo = z
  .object({
    name: z.string().describe('Stem `<user_id>_<SYMBOL>_<timeframe>_<model_name>`'),
    ...ModelIdentity.shape,
    model_type: z.string(),
    title: z.string(),
    trained_at: IsoDateTime,
    train_stats: TradeStats,
    test_stats: TradeStats,
    optimization: ModelOptimization.nullable().describe(
      'The optimisation this model was saved from (POST /optimize/{id}/save); null when trained otherwise',
    ),
  })
  .meta({ id: 'ModelInfo' });

export const ModelList = z
  .object({ count: z.number().int(), models: z.array(ModelInfo).describe('Newest first') })
  .meta({ id: 'ModelList' });

export const ModelParams = z.object({
  name: z
    .string()
    .min(1)
    .max(200)
    .describe('Stem or display name')
    .meta({ examples: ['7_EURUSD_15min_Model 3'] }),
});
export const ResultsParams = z.object({
  model: z
    .string()
    .min(1)
    .max(200)
    .describe('Stem or display name')
    .meta({ examples: ['7_EURUSD_15min_Model 3'] }),
});

export const DeletedModel = z
  .object({
    deleted: z.literal(true),
    model: z.string().describe('The stem removed'),
    undeployed: z.boolean().describe('Whether a deployment of it was stopped'),
  })
  .meta({ id: 'DeletedModel' });
export type DeletedModel = z.infer<typeof DeletedModel>;

export const ModelCode = z
  .object({
    model: z.string().describe('The stem'),
    model_name: z.string(),
    code: z.string().describe('The strategy code this model was trained from (feature_engineering + strategy_config), as submitted'),
  })
  .meta({ id: 'ModelCode' });
export type ModelCode = z.infer<typeof ModelCode>;

export const SignalPoint = z.object({
  time: IsoDateTime.describe('Bar open time of the bar whose close produced the signal'),
  signal: z.union([z.literal(-1), z.literal(0), z.literal(1)]).describe('1 long, -1 short, 0 flat (after filters)'),
  p_up: z
    .number()
    .describe(
      "Model probability (ONNX, float32) that close[t + target_horizon] > close[t]; with entry rules (labels: meta), P(win) of the rule's trade from this bar",
    ),
  close: z.number().describe('Close of that bar'),
});
export type SignalPoint = z.infer<typeof SignalPoint>;

const TimePoint = <K extends string>(key: K, what: string) =>
  z.object({ time: IsoDateTime, [key]: z.number().describe(what) } as { time: typeof IsoDateTime } & Record<K, z.ZodNumber>);

/**
 * Does the model earn its place? A meta-labelled model (strategy_config entry_long / entry_short)
 * against its own rule on the test span (src/training/meta-label-report.ts).
 */
export const MetaLabelReport = z
  .object({
    rows: z
      .object({
        train: z.number().int().describe('Rule bars the model was fitted on (labelled, train span, purged)'),
        test: z.number().int().describe('Labelled rule bars of the test span'),
        purged: z.number().int().describe('Rule bars before the test whose label ended in it: left out of the fit'),
        both_skipped: z.number().int().describe('Bars where both entry rules fired: no row, no trade'),
      })
      .describe(
        'The rule rows of the trained span as the sandboxed trainer counted them (it labels and fits there): checked against the rows it scored and the labels it returned, shown for information; no figure of this report rests on them',
      ),
    labels: z
      .object({
        positives: z.number().int().describe('Trades of the rule alone on the test span that won: net P&L > 0'),
        chosen: z
          .number()
          .int()
          .describe(
            "Trades of the rule alone the model takes: P(win) at the trade's signal bar ≥ the confidence threshold (= uplift.chosen_trades)",
          ),
        base_rate: z.number().nullable().describe("positives / the rule alone's trades: the rule alone's precision; null without trades"),
        precision: z.number().nullable().describe('Won among the taken; null when the model took none'),
        recall: z.number().nullable().describe('Taken among the won; null when none won'),
      })
      .describe(
        "The model on the rule's trades, computed here, never from the sandbox's labels: the trades of the rule alone on the test span as the position engine made them (rule_alone; one position at a time, so a rule signal while a trade is open is no trade), " +
          "each won when its net P&L (after spread, commission and swap) is > 0, and taken when the model's P(win) at its signal bar (the bar before the entry) is ≥ the confidence threshold. " +
          "The model was fitted on triple-barrier labels (the take-profit before the stop within target_horizon bars, or a gain at that limit); the engine's trades may run past that limit under a trailing stop or exit rules, and it is their P&L that counts here",
      ),
    rule_alone: TradeStats.describe('The test span traded on every rule signal (the engine with the model ignored: threshold 0)'),
    rule_and_model: TradeStats.describe('The strategy on the test span: rule signals the model confirms'),
    uplift: z
      .object({
        pnl: z.number().describe('USD: rule + model minus the rule alone, on the test span'),
        rule_trades: z.number().int().describe('Trades of the rule alone on the test span'),
        chosen_trades: z.number().int().describe('Of those, the ones whose signal bar the model confirms'),
        chosen_pnl: z.number().describe('USD: summed P&L of the chosen trades'),
        random_pnl: z.number().describe("USD: expected summed P&L of as many trades drawn at random from the rule's"),
        p_value: z
          .number()
          .nullable()
          .describe(
            'One-sided permutation test: the share of random subsets (same size) doing at least as well as the chosen, (1 + hits) / (1 + draws); null when the model chose none or all',
          ),
        draws: z.number().int(),
        seed: z.number().int(),
      })
      .describe("Does the model pick the rule's better trades?"),
    verdict: z
      .string()
      .describe(
        "In words: whether the model adds anything over the rule alone: its confirmed trades beat random picks of the rule's (p < 0.05) and the strategy made more than the rule alone (uplift.pnl > 0)",
      ),
  })
  .meta({ id: 'MetaLabelReport' });
export type MetaLabelReport = z.infer<typeof MetaLabelReport>;

export const Results = z
  .object({
    model: z.string().describe('Stem'),
    model_name: z.string(),
    symbol: Symbol,
    timeframe: Timeframe,
    source: ResponseSource,
    model_type: z.string(),
    title: z.string(),
    trained_at: IsoDateTime,
    features: z.array(z.string()),
    warmup: z.number().int().describe('Bars of history each feature row needs (from the look-ahead analysis)'),
    settings: ModelSettings,
    spans: z.object({
      train: Span.describe('Bars the model was fitted on'),
      test: Span.describe('Out-of-sample bars, after a purge gap of target_horizon bars'),
      post_cutoff: Span.nullable().describe('Bars after end_date, scored by the model it never saw; null when none'),
    }),
    metrics: z.object({
      train: TradeStats,
      test: TradeStats,
      long: TradeStats.describe('Long trades of the test span'),
      short: TradeStats.describe('Short trades of the test span'),
    }),
    accuracy: z
      .object({ train: z.number(), test: z.number() })
      .describe("Share of bars whose direction (p_up > 0.5) was right (meta-labels: share of the rule's rows whose win/loss was right)"),
    trade_log: z
      .array(Trade.extend({ period: z.enum(['train', 'test']) }))
      .describe('Every trade of the train and test backtests, in exit order'),
    equity_curve: z
      .array(TimePoint('equity', 'Account equity in USD, marked to market at the bar close'))
      .describe('Test span, from capital; at most 1,000 points (evenly spaced bars, the last bar always included)'),
    drawdown: z.array(TimePoint('drawdown', '(equity − running peak) / capital, ≤ 0')).describe('Same points as equity_curve'),
    confusion_matrix: z
      .object({
        labels: z.union([z.tuple([z.literal('down'), z.literal('up')]), z.tuple([z.literal('loss'), z.literal('win')])]),
        matrix: z
          .array(z.array(z.number().int()))
          .describe('[actual][predicted] counts on the test rows: [[down→down, down→up], [up→down, up→up]] (meta-labels: loss/win)'),
      })
      .describe(
        'Test rows; "up" = close[t + target_horizon] > close[t], predicted up = p_up > 0.5. Meta-labels (labels: meta): the rule alone\'s trades on the test span (as meta_label.labels), "win" = net P&L > 0, predicted win = P(win) at the signal bar > 0.5',
      ),
    feature_importance: z
      .array(z.object({ feature: z.string(), importance: z.number() }))
      .describe('Largest first; tree models: impurity importance, linear: |coefficient| share'),
    rolling_accuracy: z
      .array(
        TimePoint(
          'accuracy',
          'Direction accuracy over the previous 100 test rows (meta-labels: win/loss accuracy over the previous 100 trades of the rule alone, as the confusion matrix)',
        ),
      )
      .describe('At most 500 points'),
    pred_trade_log: z.array(Trade).describe('Trades on the post-cutoff bars'),
    pred_signals: z.array(SignalPoint).describe('Non-zero signals on the post-cutoff bars'),
    pred_stats: TradeStats.nullable().describe('TradeStats of pred_trade_log; null when there are no post-cutoff bars'),
    robustness: RobustnessReport.optional().describe('Is the edge real? Absent only for models trained before the report existed'),
    optimization: ModelOptimization.nullable()
      .optional()
      .describe(
        'The optimisation this model was saved from (POST /optimize/{id}/save); null when trained otherwise; absent for models trained before it was kept',
      ),
    labels: z
      .enum(['direction', 'meta'])
      .optional()
      .describe(
        "direction: the model predicts p(up) and picks the side; meta: strategy_config sets entry rules, the model predicts P(win) of the rule's trade and confirms it (p_up is then P(win)); absent for models trained before meta-labels",
      ),
    meta_label: MetaLabelReport.nullable()
      .optional()
      .describe('The rule alone beside the rule + model on the test span; null in direction mode'),
    warnings: z.array(z.string()),
  })
  .meta({ id: 'Results' });
export type Results = z.infer<typeof Results>;

export const PredictRequest = strictObject({
  model_name: z.string().min(1).max(200).describe('Stem or display name'),
  start_date: IsoDate.optional().describe('Default: the day after the trained span'),
  end_date: IsoDate.optional().describe('Default: the latest bar'),
}).meta({ id: 'PredictRequest' });
export type PredictRequest = z.infer<typeof PredictRequest>;

export const PredictResponse = z
  .object({
    model: z.string(),
    source: ResponseSource,
    start: IsoDateTime,
    end: IsoDateTime,
    n_signals: z.number().int().describe('Non-zero signals in the span'),
    pnl: z.number().describe('Net USD P&L of the trades in the span'),
    win_rate: z.number().describe('wins / trades, 0 to 1'),
    signals: z.array(SignalPoint).describe('Non-zero signals, oldest first'),
    trades: z.array(Trade),
    stats: TradeStats,
  })
  .meta({ id: 'PredictResponse' });
export type PredictResponse = z.infer<typeof PredictResponse>;

export const SignalsResponse = z
  .object({
    model: z.string(),
    count: z.number().int(),
    updated_at: IsoDateTime.describe('When these signals were computed (training, or the latest POST /predict)'),
    signals: z.array(SignalPoint),
  })
  .meta({ id: 'SignalsResponse' });
export type SignalsResponse = z.infer<typeof SignalsResponse>;
