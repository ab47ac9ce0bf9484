import { z } from 'zod';

/**
 * Strategy code shapes: what `strategy_config()` must return (the contract's "Strategy code
 * contract" table, with the bounds the trainer enforces) and what the static check answers.
 * The JSON Schema of StrategyConfig for the Python side is generated from here
 * (src/sandbox/python/strategy_config.schema.json), never written by hand.
 */

/** Keys the trainer sets itself (threads, seeds, logging): a strategy may not choose them. */
const SET_BY_US = ['n_jobs', 'random_state', 'verbosity', 'verbose', 'nthread', 'seed'] as const;

const refusedKey = (key: string, why: string) => z.never({ error: `${key} ${why}; remove it` }).optional();

/** `n_jobs` & co. as explicit refusals, so the message says why rather than "unrecognized key". */
const setByUs = Object.fromEntries(SET_BY_US.map((k) => [k, refusedKey(k, 'is set by the trainer')])) as Record<
  (typeof SET_BY_US)[number],
  z.ZodOptional<z.ZodNever>
>;

const int = (min: number, max: number) => z.number().int().min(min).max(max);
const num = (min: number, max: number) => z.number().min(min).max(max);
/** 0 < x ≤ 1, for sampling fractions. */
const fraction = z.number().gt(0).max(1);

// Depth is capped (and None refused, even for forests) because the ONNX graph and the live
// scoring cost grow with 2^depth per tree; 16 is deep enough for 25k rows.
const MAX_DEPTH = int(1, 16);
const N_ESTIMATORS = int(1, 500);
const MAX_FEATURES = z.union([z.enum(['sqrt', 'log2']), fraction, z.null()]);

const treeParams = {
  n_estimators: N_ESTIMATORS,
  max_depth: MAX_DEPTH,
  min_samples_split: int(2, 10_000),
  min_samples_leaf: int(1, 10_000),
  min_weight_fraction_leaf: num(0, 0.5),
  max_features: MAX_FEATURES,
  max_leaf_nodes: z.union([int(2, 100_000), z.null()]),
  min_impurity_decrease: num(0, 1),
  ccp_alpha: num(0, 1),
};

const forestParams = {
  ...treeParams,
  criterion: z.enum(['gini', 'entropy', 'log_loss']),
  bootstrap: z.boolean(),
  max_samples: z.union([fraction, z.null()]),
  class_weight: z.union([z.enum(['balanced', 'balanced_subsample']), z.null()]),
  ...setByUs,
};

const params = <T extends z.ZodRawShape>(shape: T) => z.strictObject(shape).partial();

export const XGBParams = params({
  n_estimators: N_ESTIMATORS,
  max_depth: MAX_DEPTH,
  learning_rate: num(0.001, 1),
  subsample: fraction,
  colsample_bytree: fraction,
  colsample_bylevel: fraction,
  colsample_bynode: fraction,
  min_child_weight: num(0, 1000),
  gamma: num(0, 1000),
  reg_alpha: num(0, 1000),
  reg_lambda: num(0, 1000),
  max_delta_step: num(0, 100),
  scale_pos_weight: num(0.001, 1000),
  use_label_encoder: refusedKey('use_label_encoder', 'is not accepted by XGBClassifier (contract)'),
  eval_metric: refusedKey('eval_metric', 'is chosen by the trainer (contract)'),
  ...setByUs,
});

export const RandomForestParams = params(forestParams);
export const ExtraTreesParams = params(forestParams);

export const GradientBoostingParams = params({
  ...treeParams,
  learning_rate: num(0.001, 1),
  subsample: fraction,
  // log_loss only: the ONNX export reproduces its sigmoid/softmax post-transform exactly.
  loss: z.literal('log_loss'),
  criterion: z.enum(['friedman_mse', 'squared_error']),
  ...setByUs,
});

export const AdaBoostParams = params({
  n_estimators: N_ESTIMATORS,
  learning_rate: num(0.001, 10),
  algorithm: z.enum(['SAMME', 'SAMME.R']),
  ...setByUs,
});

export const LogisticRegressionParams = params({
  C: num(1e-4, 1e4),
  penalty: z.union([z.enum(['l1', 'l2', 'elasticnet']), z.null()]),
  solver: z.enum(['lbfgs', 'liblinear', 'newton-cg', 'newton-cholesky', 'sag', 'saga']),
  l1_ratio: z.union([num(0, 1), z.null()]),
  max_iter: int(1, 10_000),
  tol: num(1e-10, 1),
  fit_intercept: z.boolean(),
  class_weight: z.union([z.literal('balanced'), z.null()]),
  ...setByUs,
});

/** The model classes the trainer fits and exports to ONNX (AdaBoost is beyond the contract's list). */
export const MODEL_TYPES = [
  'XGBClassifier',
  'RandomForestClassifier',
  'GradientBoostingClassifier',
  'ExtraTreesClassifier',
  'LogisticRegression',
  'AdaBoostClassifier',
] as const;
export const ModelType = z.enum(MODEL_TYPES);
export type ModelType = z.infer<typeof ModelType>;

/** Days of the week as skip_days names them (UTC). */
export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

const ratioOrNull = z.union([z.number().gt(0).max(0.2), z.null()]);
const hour = int(0, 23);
// A regex rather than a refine, so the JSON Schema carries it too.
const line = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .regex(/^[^\r\n]*$/, 'must be one line');

/**
 * A trailing stop: a decimal ratio like stop_loss (the stop trails the best price since entry by
 * ratio × that price), a number of pips, or a multiple of ATR. Optional in strategy_config
 * (absent/null = none).
 */
export const TrailingStop = z
  .union([
    z.number().gt(0).max(0.2),
    z.strictObject({
      atr: num(0.1, 20).describe('ATR multiple: the stop trails the best price by atr × ATR(period)'),
      period: int(2, 200).default(14).describe('ATR period (Wilder), default 14'),
    }),
    z.strictObject({
      pips: num(0.1, 10_000).describe('The stop trails the best price by this many pips (0.0001; 0.01 for JPY pairs; 1 for BTCUSD)'),
    }),
    z.null(),
  ])
  .describe(
    'Decimal ratio (0.01 = trail 1 % behind the best price since entry), {"pips": n} (trail n pips) or {"atr": k, "period": n} (trail k × ATR(n)); null/absent = none. Never loosens; stop_loss stays as a floor',
  );
export type TrailingStop = z.infer<typeof TrailingStop>;

/**
 * The indicator values the strategy's feature_engineering reads (`strategy_config()["indicators"]`):
 * the contract's flat Indicators object (`<indicator>_<param>` numbers, `<indicator>_enabled`
 * booleans; keys and bounds in GET /indicator-schema). Optional. What the optimiser tunes as
 * `indicators.<key>`, and what a model's features are computed with wherever they are computed.
 */
export const StrategyIndicators = z
  .record(
    z.string().regex(/^[a-z][a-z0-9_]{0,63}$/, 'must be a lowercase key like rsi_period'),
    z.union([z.number().min(-1_000_000).max(1_000_000), z.boolean()]),
  )
  .refine((o) => Object.keys(o).length <= 200, 'at most 200 indicator keys')
  .describe(
    'The indicator values feature_engineering reads through strategy_config()["indicators"]: flat `<indicator>_<param>` numbers and `<indicator>_enabled` booleans (GET /api/v1/indicator-schema). ' +
      'Optional; its keys are what POST /optimize can tune as indicators.<key>',
  );
export type StrategyIndicators = z.infer<typeof StrategyIndicators>;

const common = {
  signal_threshold: num(0.5, 0.95).describe(
    "predict_proba cutoff: without entry rules, p(up) >= it opens a long and p(up) <= 1 - it a short; with entry_long/entry_short (meta-labelling), P(win) >= it confirms the rule's trade",
  ),
  direction: z.enum(['both', 'long', 'short']),
  stop_loss: ratioOrNull.describe('Decimal ratio (0.005 = 0.5%); null disables'),
  take_profit: ratioOrNull.describe('Decimal ratio; null disables'),
  cooldown: int(0, 500).describe('Bars to wait after a close'),
  max_positions: int(1, 10),
  // `ignore` is not in the contract's table, but the position rules handle it, so accept it.
  on_opposite: z.enum(['reverse', 'close_only', 'ignore']),
  session_filter: z
    .union([z.tuple([hour, hour]).refine(([a, b]) => a !== b, 'start and end hour must differ; use null for all hours'), z.null()])
    .describe(
      '[start_hour, end_hour] UTC of the open time of the bar where a position opens (the bar after the signal), start != end (not expressible in JSON Schema: check it too); may wrap past midnight (e.g. [22, 6]); null = all hours',
    ),
  min_atr: z.union([num(0, 100), z.null()]).describe('Minimum NATR for entries'),
  trend_filter: z.union([z.string().min(1).max(100), z.null()]).describe('A feature column name'),
  // Optional keys (code written before them stays valid): absent = no day filter, no exit rule.
  skip_days: z
    .array(z.enum(WEEKDAYS))
    .max(6)
    .optional()
    .describe(
      'Days (UTC, of the open time of the bar where a position opens: the bar after the signal) on which no position opens, e.g. ["fri"]; open positions are kept',
    ),
  entry_filter: z
    .union([z.string().min(1).max(100), z.null()])
    .optional()
    .describe('A feature column: positions open only where it is > 0 at the signal bar\'s close (e.g. "only when ADX > 25")'),
  entry_long: z
    .union([z.string().min(1).max(100), z.null()])
    .optional()
    .describe(
      "A feature column, the trader's long entry rule: a long opens only where it is > 0 at the signal bar's close, and the model confirms (P(win) >= signal_threshold: the model is then trained on the rules' bars to score their trades, meta-labelling). When entry_long or entry_short is set, a side without a rule opens nothing (the trader stated the entries; an unstated side does not trade); set neither to let the model pick both sides",
    ),
  entry_short: z
    .union([z.string().min(1).max(100), z.null()])
    .optional()
    .describe(
      "A feature column, the trader's short entry rule: a short opens only where it is > 0 at the signal bar's close, and the model confirms (P(win) >= signal_threshold). When entry_long or entry_short is set, a side without a rule opens nothing",
    ),
  exit_long: z
    .union([z.string().min(1).max(100), z.null()])
    .optional()
    .describe("A feature column: where it is > 0 at a bar's close, open longs close at the next open and no long opens there"),
  exit_short: z
    .union([z.string().min(1).max(100), z.null()])
    .optional()
    .describe("A feature column: where it is > 0 at a bar's close, open shorts close at the next open and no short opens there"),
  trailing_stop: TrailingStop.optional(),
  indicators: StrategyIndicators.optional(),
  target_horizon: int(1, 200).describe(
    "Bars ahead for the target: the up/down label's horizon, or with entry rules a rule trade's time limit when its win or loss is labelled (triple barrier)",
  ),
  objective: line(0, 200),
  notes: line(0, 200),
  title: line(1, 60),
};

const member = <T extends ModelType, P extends z.ZodType>(modelType: T, modelParams: P) =>
  z.strictObject({ model_type: z.literal(modelType), model_params: modelParams, ...common });

/** What `strategy_config()` returns: every key required, no others; model_params per model_type. */
export const StrategyConfig = z
  .discriminatedUnion('model_type', [
    member('XGBClassifier', XGBParams),
    member('RandomForestClassifier', RandomForestParams),
    member('GradientBoostingClassifier', GradientBoostingParams),
    member('ExtraTreesClassifier', ExtraTreesParams),
    member('LogisticRegression', LogisticRegressionParams),
    member('AdaBoostClassifier', AdaBoostParams),
  ])
  .meta({ id: 'StrategyConfig' });
export type StrategyConfig = z.infer<typeof StrategyConfig>;

/**
 * The labelling a strategy_config asks for: meta when either entry rule is set (the model scores
 * the rules' trades, P(win)), else direction (p(up)). trainer.py decides the same.
 */
export const labelMode = (config: {
  entry_long?: string | null | undefined;
  entry_short?: string | null | undefined;
}): 'meta' | 'direction' => (config.entry_long || config.entry_short ? 'meta' : 'direction');

/**
 * signal_threshold when the trader states none, by label mode (the offline generator writes it).
 * direction: p(up) >= 0.55 long, <= 0.45 short — a band of no view between the two sides. meta: the
 * trader's rule proposes and the model only vetoes, so its trade is taken unless the model finds it
 * likelier to lose than win, P(win) >= 0.5 (López de Prado's meta-labelling bets at P > 0.5; 0.5 is
 * also signal_threshold's floor). A margin above it would veto trades the model has no view on.
 */
export const DEFAULT_SIGNAL_THRESHOLD = { direction: 0.55, meta: 0.5 } as const;

/** One problem found in strategy code; line and col are 1-based (col counts characters). */
export const StaticViolation = z.object({
  line: z.number().int().min(0),
  col: z.number().int().min(0),
  rule: z.string().describe('Stable rule id, e.g. `negative-shift`, `banned-import`'),
  message: z.string(),
  hint: z.string().describe('One-line fix'),
});
export type StaticViolation = z.infer<typeof StaticViolation>;

/** The static check's answer: all violations at once, `ok` iff there are none. */
export const CheckResult = z.object({
  ok: z.boolean(),
  violations: z.array(StaticViolation),
});
export type CheckResult = z.infer<typeof CheckResult>;
