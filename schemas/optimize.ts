import { z } from 'zod';
import { ExecutionSettings, riskUnitBounds, TradeStats } from './backtest.ts';
import { IsoDate, IsoDateTime, Symbol, Timeframe } from './common.ts';
import { CHANNELS, Channel, DeployRequest } from './live.ts';
import { FoldScheme, RobustnessReport } from './robustness.ts';
import { ChoiceValue, Objective, OptimizeMethod, OptimizeSearch } from './optimize-space.ts';
import { strictObject } from './strict.ts';
import { codeMarketFields, DEFAULT_MARKET, MarketUsed, MAX_CODE_CHARS, ModelName } from './training.ts';

/**
 * POST /api/v1/optimize: a walk-forward optimisation job over a strategy's search space, what
 * GET /optimize/{id} and its stream answer, and the record kept in KV (`sf_optimize`).
 */

/** Trials kept per KV value of `sf_optimize_trials` (each value stays far under NATS's 1 MiB). */
export const TRIALS_PER_CHUNK = 200;

export const WalkForwardSettings = strictObject({
  folds: z
    .number()
    .int()
    .min(2)
    .max(10)
    .default(5)
    .describe('Out-of-sample folds k: the last k windows of the span, each scored by a fold model that never saw it'),
  scheme: FoldScheme.default('anchored'),
  embargo: z.number().int().min(0).max(1000).default(0).describe('Bars skipped after the purge gap at the start of each fold'),
}).meta({ id: 'OptimizeWalkForward' });
export type WalkForwardSettings = z.infer<typeof WalkForwardSettings>;

export const OptimizeDeploy = strictObject({
  channels: z.array(Channel).min(1).max(CHANNELS.length).default(['sse']),
  webhook_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional(),
  messenger_chat_id: z.string().min(1).max(64).optional(),
  // The same destinations as POST /deploy.
  webhook_template: DeployRequest.shape.webhook_template,
  discord_webhook_url: DeployRequest.shape.discord_webhook_url,
  slack_webhook_url: DeployRequest.shape.slack_webhook_url,
}).meta({ id: 'OptimizeDeploy' });
export type OptimizeDeploy = z.infer<typeof OptimizeDeploy>;

export const OptimizeRequest = strictObject({
  code: z
    .string()
    .min(1)
    .max(MAX_CODE_CHARS)
    .describe('Full strategy code (feature_engineering + strategy_config): the base every trial changes'),
  ...codeMarketFields,
  start_date: IsoDate.optional().describe('First UTC day of the span; default as POST /train'),
  end_date: IsoDate.optional().describe('Last UTC day of the span; default: the latest bar'),
  ...OptimizeSearch.shape,
  walk_forward: WalkForwardSettings.default({ folds: 5, scheme: 'anchored', embargo: 0 }),
  save_as: ModelName.optional().describe(
    'Save the chosen trial as a model of this name when the job is done (else later: POST /optimize/{id}/save)',
  ),
  deploy: OptimizeDeploy.optional().describe('With save_as: deploy the saved model when it is trained'),
  ...ExecutionSettings.shape,
})
  .superRefine(riskUnitBounds)
  .meta({ id: 'OptimizeRequest' });
export type OptimizeRequest = z.infer<typeof OptimizeRequest>;

/** An optimise request with its market resolved (the request's, else the code header's, else the default): what the job keeps. */
export const OptimizeJobRequest = OptimizeRequest.safeExtend({
  symbol: Symbol.default(DEFAULT_MARKET.symbol),
  timeframe: Timeframe.default(DEFAULT_MARKET.timeframe),
});
export type OptimizeJobRequest = z.infer<typeof OptimizeJobRequest>;

export const OPTIMIZE_STATUSES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export const OptimizeStatus = z.enum(OPTIMIZE_STATUSES);
export type OptimizeStatus = z.infer<typeof OptimizeStatus>;

export const TRIAL_STATES = ['pending', 'done', 'failed', 'cancelled'] as const;

export const TrialMetrics = TradeStats.extend({
  sharpe: z.number().describe('Per-bar Sharpe of mark-to-market equity over the window (mean / sd of bar returns, not annualised)'),
}).meta({ id: 'TrialMetrics' });
export type TrialMetrics = z.infer<typeof TrialMetrics>;

export const ParamSet = z.record(z.string(), ChoiceValue);
export type ParamSet = z.infer<typeof ParamSet>;

export const OptimizeTrial = z
  .object({
    trial: z.number().int().min(0),
    params: ParamSet,
    state: z.enum(TRIAL_STATES),
    error: z.string().optional().describe('Why the trial failed (its strategy’s error); the other trials go on'),
    in_sample: TrialMetrics.nullable().describe('Every fold but the last (the windows the optimiser chooses on)'),
    out_of_sample: TrialMetrics.nullable().describe('The last fold, which no choice looked at'),
    value: z.number().nullable().describe('The objective’s metric in-sample; null when failed'),
    feasible: z.boolean().nullable().describe('Whether the in-sample metrics meet every constraint of the objective'),
  })
  .meta({ id: 'OptimizeTrial' });
export type OptimizeTrial = z.infer<typeof OptimizeTrial>;

const Span = z.object({ from: IsoDateTime, to: IsoDateTime, bars: z.number().int() });

export const WalkForwardStep = z.object({
  in_sample: Span.describe('The folds before this one: where the step’s parameters were chosen'),
  out_of_sample: Span.describe('The fold tested with them'),
  chosen_trial: z.number().int().nullable().describe('The trial best in-sample at this step; null when none was feasible'),
  return: z.number().describe('Its return on the out-of-sample fold (equity change / capital)'),
});

export const WalkForwardResult = z
  .object({
    steps: z.array(WalkForwardStep),
    oos_return: z.number().describe('Stitched: the sum of the steps’ out-of-sample returns'),
    oos_equity: z
      .array(z.object({ time: IsoDateTime, equity: z.number() }))
      .describe('Stitched out-of-sample equity (USD, from capital) at each fold end'),
  })
  .meta({ id: 'OptimizeWalkForwardResult' });
export type WalkForwardResult = z.infer<typeof WalkForwardResult>;

export const PboResult = z
  .object({
    pbo: z
      .number()
      .min(0)
      .max(1)
      .describe(
        'Probability of Backtest Overfitting by CSCV: the share of in-sample/out-of-sample splits whose in-sample best ranks below the out-of-sample median',
      ),
    slices: z.number().int().describe('S: time slices of the trial × slice return matrix'),
    logits: z.array(z.number()).describe('λ of each split: logit of the in-sample best’s out-of-sample relative rank'),
  })
  .meta({ id: 'Pbo' });

export const Degradation = z
  .object({
    slope: z
      .number()
      .describe('Least-squares slope of out-of-sample against in-sample objective over the trials: near 1 holds up, ≤ 0 is overfit'),
    intercept: z.number(),
    points: z.number().int(),
  })
  .meta({ id: 'Degradation' });

export const SavedModel = z.object({
  model_name: z.string(),
  model_stem: z.string(),
  train_job_id: z.number().int().describe('GET /api/v1/train/{train_job_id} follows the training of the saved model'),
  deployment_id: z.string().optional().describe('Present once the saved model is trained and deployed (deploy asked)'),
  // The secret itself stays on the deployment (delivery signs with it) and is never kept here: this view is read again and again.
  webhook_secret_set: z
    .literal(true)
    .optional()
    .describe(
      'The deployment has a webhook channel with a signing secret. The secret is not shown here (a secret is shown only in the response that makes it, and no response made this one): ' +
        'POST /api/v1/deploy the model again for one — its deployment is replaced, and the new secret is in that response',
    ),
  deploy_error: z.string().optional().describe('Why the deploy asked for did not happen'),
});

export const OptimizeJobView = z
  .object({
    optimize_id: z.number().int(),
    status: OptimizeStatus,
    symbol: Symbol,
    timeframe: Timeframe,
    method: OptimizeMethod,
    objective: Objective.describe('How `optimization` was read: the metric, its direction and the constraints'),
    trials_planned: z.number().int(),
    trials_done: z.number().int(),
    trials_failed: z.number().int(),
    credits_charged: z.number().int(),
    credits_refunded: z.number().int(),
    created_at: IsoDateTime,
    started_at: IsoDateTime.nullable(),
    finished_at: IsoDateTime.nullable(),
    stage: z.string().nullable(),
    folds: z.array(Span).describe('The out-of-sample folds; the last is held out of every choice'),
    trials: z.array(OptimizeTrial),
    chosen_trial: z.number().int().nullable().describe('The trial best in-sample among the feasible (present when done)'),
    walk_forward: WalkForwardResult.nullable(),
    pbo: PboResult.nullable(),
    degradation: Degradation.nullable(),
    robustness: RobustnessReport.nullable().describe('The chosen trial’s robustness report, N = the trials run'),
    saved: SavedModel.nullable(),
    error: z.string().optional(),
  })
  .meta({ id: 'OptimizeJob' });
export type OptimizeJobView = z.infer<typeof OptimizeJobView>;

export const OptimizeStart = z
  .object({
    optimize_id: z.number().int().describe('Poll GET /api/v1/optimize/{optimize_id}, or follow its /stream'),
    status: z.literal('queued'),
    trials_planned: z.number().int(),
    credits_charged: z.number().int(),
    objective: Objective,
    market: MarketUsed.optional().describe('The symbol and timeframe the trials run on, and where each came from (as POST /train)'),
  })
  .meta({ id: 'OptimizeStart' });
export type OptimizeStart = z.infer<typeof OptimizeStart>;

export const OptimizeIdParams = z.object({
  optimize_id: z.coerce
    .number()
    .int()
    .positive()
    .meta({ examples: [7] }),
});

export const OptimizeSaveRequest = strictObject({
  model_name: ModelName,
  deploy: OptimizeDeploy.optional(),
}).meta({ id: 'OptimizeSaveRequest' });
export type OptimizeSaveRequest = z.infer<typeof OptimizeSaveRequest>;

/** The record (KV `sf_optimize`, key = optimize id). */
export const OptimizeRecord = z.object({
  optimize_id: z.number().int(),
  user_id: z.number().int(),
  username: z.string(),
  plan: z.string(),
  status: OptimizeStatus,
  request: OptimizeJobRequest,
  objective: Objective,
  trials_planned: z.number().int(),
  credits_per_trial: z.number().int(),
  credits_charged: z.number().int(),
  credits_refunded: z.number().int(),
  created_at: z.number().int(),
  started_at: z.number().int().nullable(),
  finished_at: z.number().int().nullable(),
  /** The runner's last sign of life; a running job whose heartbeat is older than the lease is an orphan (resumed or refunded). */
  heartbeat_at: z.number().int().nullable(),
  attempts: z.number().int(),
  stage: z.string().nullable(),
  cancel_requested: z.boolean(),
  folds: z.array(Span),
  /** Trials run so far (done or failed); the trials themselves are in `sf_optimize_trials`, TRIALS_PER_CHUNK a key. */
  trials_run: z.number().int(),
  trials_failed: z.number().int(),
  best_value: z.number().nullable(),
  chosen_trial: z.number().int().nullable(),
  walk_forward: WalkForwardResult.nullable(),
  pbo: PboResult.nullable(),
  degradation: Degradation.nullable(),
  robustness: RobustnessReport.nullable(),
  saved: SavedModel.nullable(),
  error: z.string().optional(),
});
export type OptimizeRecord = z.infer<typeof OptimizeRecord>;

/** A chunk of an optimisation's trials (KV `sf_optimize_trials`, key `<user_id>.<optimize_id>.<chunk>`). */
export const OptimizeTrialChunk = z.object({ trials: z.array(OptimizeTrial) });

/** SSE frames of GET /optimize/{id}/stream: `progress` on every change, then one `done` (the job view). */
export const OptimizeProgress = z
  .object({
    optimize_id: z.number().int(),
    status: OptimizeStatus,
    stage: z.string().nullable(),
    trials_planned: z.number().int(),
    trials_done: z.number().int(),
    trials_failed: z.number().int(),
    best_value: z.number().nullable().describe('The best in-sample objective so far among the feasible'),
    last_trial: OptimizeTrial.nullable(),
  })
  .meta({ id: 'OptimizeProgress' });
export type OptimizeProgress = z.infer<typeof OptimizeProgress>;
