import { z } from 'zod';

/**
 * What POST /api/v1/optimize searches: the parameters a trader tunes, each a range or a list of
 * choices, the search method, its size and seed, and the objective. The names, their bounds and
 * whether the strategy has them are checked by src/optimize/search-space.ts (a 422 naming the
 * parameter); this file holds the shapes and the engine/model classification.
 */

/** Parameters the position engine applies to the model's probabilities: no retrain, many per pass. */
export const ENGINE_PARAMS = [
  'stop_loss',
  'take_profit',
  'trailing_stop',
  'confidence_threshold',
  'cooldown',
  'direction',
  'max_positions',
  'on_opposite',
  'session_filter',
  'skip_days',
] as const;
export type EngineParam = (typeof ENGINE_PARAMS)[number];

/** Parameters that change the model: each trial with a new value is a retrain. */
export const MODEL_PARAM = 'model_type';
/** `model_params.<hyperparameter>` and `indicators.<key>` (prefixes of model parameters). */
export const MODEL_PARAMS_PREFIX = 'model_params.';
export const INDICATORS_PREFIX = 'indicators.';

/**
 * `engine`: reuses the trained model's probabilities and runs only the position engine (levels,
 * threshold, pos_rules, filters). `model`: the model class, its hyperparameters and indicator
 * periods, which need a retrain.
 */
export const ParamClass = z
  .enum(['engine', 'model'])
  .describe(
    'engine: reuses the model’s probabilities, runs only the position engine; model: needs a retrain (model_type, model_params.*, indicators.*)',
  );
export type ParamClass = z.infer<typeof ParamClass>;

/** The class of a parameter name; undefined for a name that is not a parameter. */
export function paramClass(name: string): ParamClass | undefined {
  if ((ENGINE_PARAMS as readonly string[]).includes(name)) return 'engine';
  if (name === MODEL_PARAM || name.startsWith(MODEL_PARAMS_PREFIX) || name.startsWith(INDICATORS_PREFIX)) return 'model';
  return undefined;
}

export const OPTIMIZE_METHODS = ['grid', 'random', 'tpe'] as const;
export const OptimizeMethod = z
  .enum(OPTIMIZE_METHODS)
  .describe(
    'grid: every combination once (ranges need a step); random: independent draws; tpe: Tree-structured Parzen Estimator, which draws more where earlier trials scored well. All run by optuna',
  );
export type OptimizeMethod = z.infer<typeof OptimizeMethod>;

/** Most trials one optimisation runs, and most combinations a grid may have. */
export const MAX_TRIALS = 10_000;
export const MAX_GRID_SIZE = MAX_TRIALS;
/**
 * Most trials of tpe: optuna's TPE scores every candidate against every trial told, per parameter,
 * so a suggestion grows faster than linearly with the trials (25 sets of 8 parameters: ~1 s after
 * 200 trials, ~15 s after 1,000 on the loaded 2-core dev machine). Random goes further.
 */
export const MAX_TPE_TRIALS = 1_000;
/** Trials of random and tpe when `trials` is not given. */
export const DEFAULT_TRIALS = 50;
/** Most values in one list of choices. */
export const MAX_CHOICES = 1_000;

const bound = z.number().min(-1e9).max(1e9);

export const IntRange = z
  .strictObject({
    type: z.literal('int').describe('Whole numbers from low to high'),
    low: z.number().int().min(-1e9).max(1e9).describe('Smallest value (inclusive)'),
    high: z.number().int().min(-1e9).max(1e9).describe('Largest value (inclusive); high − low must be a multiple of step'),
    step: z.number().int().min(1).max(1e9).optional().describe('Distance between values (default 1); not with log'),
    log: z.boolean().optional().describe('Draw on a log scale (low ≥ 1); random and tpe only'),
  })
  .describe('An integer range, e.g. {"type":"int","low":5,"high":50,"step":5}');
export type IntRange = z.infer<typeof IntRange>;

export const FloatRange = z
  .strictObject({
    type: z.literal('float').describe('Real numbers from low to high'),
    low: bound.describe('Smallest value (inclusive)'),
    high: bound.describe('Largest value (inclusive); with step, high − low must be a multiple of it'),
    step: z.number().gt(0).max(1e9).optional().describe('Distance between values: required by grid; not with log'),
    log: z.boolean().optional().describe('Draw on a log scale (low > 0), e.g. learning_rate; random and tpe only'),
  })
  .describe('A real range, e.g. {"type":"float","low":0.5,"high":0.8,"step":0.05}');
export type FloatRange = z.infer<typeof FloatRange>;

/** One value of a list of choices: a number, a name, true/false, null (= none), or a list (session_filter, skip_days). */
export const ChoiceValue = z
  .union([
    z.number().min(-1e9).max(1e9),
    z.string().min(1).max(64),
    z.boolean(),
    z.null(),
    z.array(z.union([z.number().int().min(-1e9).max(1e9), z.string().min(1).max(16)])).max(7),
  ])
  .describe(
    'A value as strategy_config() would hold it: a number, a name, true/false, null (none), or a list ([start_hour, end_hour], ["fri"])',
  );
export type ChoiceValue = z.infer<typeof ChoiceValue>;

export const Choices = z
  .strictObject({
    type: z.literal('choice').describe('One of the listed values'),
    values: z.array(ChoiceValue).min(1).max(MAX_CHOICES).describe(`The values to try, each once (at most ${MAX_CHOICES})`),
  })
  .describe('A list of choices, e.g. {"type":"choice","values":["reverse","close_only"]}');
export type Choices = z.infer<typeof Choices>;

export const ParamSpec = z
  .discriminatedUnion('type', [IntRange, FloatRange, Choices])
  .meta({ id: 'OptimizeParam' })
  .describe('How one parameter varies: an int or float range (with step or log), or a list of choices');
export type ParamSpec = z.infer<typeof ParamSpec>;

const NAMES =
  'Parameter name → its range or choices. Engine parameters (no retrain): stop_loss and take_profit (in the request’s risk_unit, null = none), ' +
  'trailing_stop (in the unit of the strategy’s own trailing_stop: a ratio, pips, or an ATR multiple), confidence_threshold (0.5–0.95), cooldown (bars), ' +
  'direction (both/long/short), max_positions (1–10), on_opposite (reverse/close_only/ignore), session_filter ([start_hour, end_hour] UTC or null), ' +
  'skip_days (lists of mon…sun). Model parameters (a retrain each): model_type, model_params.<name> (the hyperparameters strategy_config allows for ' +
  'the model type, e.g. model_params.n_estimators, model_params.max_depth, model_params.learning_rate), indicators.<key> (an indicator parameter from ' +
  'GET /api/v1/indicator-schema, e.g. indicators.rsi_period, within its bounds there; only one the strategy reads: its strategy_config() returns it in ' +
  '"indicators" and its feature_engineering computes with strategy_config()["indicators"]["<key>"] — offline-generated strategies do for their first ' +
  'SMA, EMA, RSI, ATR, MACD and stochastic; another key is refused with 422)';

/** The search fields of an optimisation request (POST /api/v1/optimize spreads this shape). */
export const OptimizeSearch = z.object({
  parameters: z.record(z.string().min(1).max(100), ParamSpec).describe(NAMES),
  method: OptimizeMethod.default('tpe'),
  trials: z
    .number()
    .int()
    .min(1)
    .max(MAX_TRIALS)
    .optional()
    .describe(
      `Trials to run (at most ${MAX_TRIALS.toLocaleString('en')}; tpe at most ${MAX_TPE_TRIALS.toLocaleString('en')}): random and tpe default to ${DEFAULT_TRIALS}; ` +
        'grid defaults to, and stops at, the grid’s size',
    ),
  seed: z
    .number()
    .int()
    .min(0)
    .max(2 ** 31 - 1)
    .default(0)
    .describe('Seed of the sampler: the same request and seed suggest the same trials'),
  optimization: z
    .string()
    .min(1)
    .max(300)
    .optional()
    .describe(
      'The objective: a metric (pf, sharpe, ret, wr, expect, rr, np, mdd, n, …) or plain language, e.g. "maximise profit factor with drawdown under 10 %" ' +
        'or "highest return, at least 50 trades, win rate above 55%". One metric is optimised; the rest are constraints. The answer echoes how it was read',
    ),
});
export type OptimizeSearch = z.infer<typeof OptimizeSearch>;
export type OptimizeSearchInput = z.input<typeof OptimizeSearch>;

/** An objective's constraint: `metric op value`, values as TradeStats holds them (decimals, mdd signed ≤ 0). */
export const ObjectiveConstraint = z.object({
  metric: z.string().describe('A TradeStats field or sharpe'),
  op: z.enum(['>=', '>', '<=', '<']).describe('How the trial’s metric must compare with value'),
  value: z
    .number()
    .describe(
      'The bound, as TradeStats holds the metric: decimals for rates and returns (0.55 = 55 %), mdd signed (−0.1 = a 10 % drawdown)',
    ),
});
export type ObjectiveConstraint = z.infer<typeof ObjectiveConstraint>;

/** The objective as parsed from `optimization`, and the sentence that says how it was read. */
export const Objective = z
  .object({
    metric: z
      .string()
      .describe('The metric optimised: a TradeStats field (n, wins, losses, wr, ret, pf, rr, expect, mdd, np, avg, best, worst) or sharpe'),
    direction: z
      .enum(['maximize', 'minimize'])
      .describe(
        'Whether the optimiser looks for the largest or the smallest value of metric (mdd is ≤ 0: maximize = the shallowest drawdown)',
      ),
    constraints: z.array(ObjectiveConstraint).describe('Trials that miss one are kept and reported, but never chosen'),
    echo: z.string().describe('How the objective was understood, in words'),
  })
  .meta({ id: 'Objective' });
export type Objective = z.infer<typeof Objective>;
