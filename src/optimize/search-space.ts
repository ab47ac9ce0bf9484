/**
 * The search space of an optimisation, checked against the strategy it tunes: every parameter
 * named, in bounds, and one the strategy has; a grid no bigger than the maximum (its size computed
 * from the axes, never enumerated to find out). Every problem is a 422 that says what to change.
 */
import type { z } from 'zod';
import { MAX_RISK_DISTANCE, type RiskUnit } from '../../schemas/backtest.ts';
import type { IndicatorRules } from '../../schemas/indicators.ts';
import {
  DEFAULT_TRIALS,
  ENGINE_PARAMS,
  INDICATORS_PREFIX,
  MAX_GRID_SIZE,
  MAX_TPE_TRIALS,
  MODEL_PARAM,
  MODEL_PARAMS_PREFIX,
  paramClass,
  type ChoiceValue,
  type OptimizeMethod,
  type OptimizeSearch,
  type ParamClass,
  type ParamSpec,
} from '../../schemas/optimize-space.ts';
import {
  AdaBoostParams,
  ExtraTreesParams,
  GradientBoostingParams,
  LogisticRegressionParams,
  MODEL_TYPES,
  RandomForestParams,
  WEEKDAYS,
  XGBParams,
  type ModelType,
  type StrategyConfig,
} from '../../schemas/strategy.ts';
import { UnprocessableError } from '../errors.ts';

/** One parameter of a checked space. */
export interface SpaceParam {
  name: string;
  class: ParamClass;
  spec: ParamSpec;
}

/** A search space checked against its strategy: parameters sorted by name (the grid's order). */
export interface SearchSpace {
  method: OptimizeMethod;
  seed: number;
  /** Trials to run: the request's, or the default; a grid's at most its size. */
  trials: number;
  params: SpaceParam[];
  /** Combinations of the grid (method grid), else null. */
  gridSize: number | null;
  /** Every parameter is an engine parameter: the model is trained once. */
  engineOnly: boolean;
}

/** What the space is checked against. */
export interface SpaceContext {
  /** The strategy's parsed strategy_config(). */
  config: StrategyConfig;
  /** The indicator registry (INDICATOR_RULES of src/indicators). */
  indicators: readonly IndicatorRules[];
  /** The request's risk_unit (stop_loss and take_profit are in it); default pips. */
  riskUnit?: RiskUnit;
}

/** What one parameter's values must be. */
interface Rule {
  /** int: whole numbers only; float: any number in bounds; none: choices only. */
  numeric: 'int' | 'float' | 'none';
  /** A value's problem, or null when it is fine. */
  check: (value: ChoiceValue) => string | null;
}

const PARAMS_OF: Record<ModelType, z.ZodObject> = {
  XGBClassifier: XGBParams,
  RandomForestClassifier: RandomForestParams,
  GradientBoostingClassifier: GradientBoostingParams,
  ExtraTreesClassifier: ExtraTreesParams,
  LogisticRegression: LogisticRegressionParams,
  AdaBoostClassifier: AdaBoostParams,
};

const show = (v: unknown) => JSON.stringify(v);
const inRange =
  (lo: number, hi: number, int: boolean, open = false) =>
  (v: ChoiceValue) =>
    typeof v !== 'number' || (int && !Number.isInteger(v)) || (open ? v <= lo : v < lo) || v > hi
      ? `${show(v)} is not ${int ? 'a whole number' : 'a number'} ${open ? `above ${lo}` : `from ${lo}`} to ${hi}`
      : null;
const nullable = (check: Rule['check']) => (v: ChoiceValue) => (v === null ? null : check(v));
const oneOf = (names: readonly string[]) => (v: ChoiceValue) =>
  typeof v === 'string' && names.includes(v) ? null : `${show(v)} is not one of ${names.join(', ')}`;

function sessionFilter(v: ChoiceValue): string | null {
  if (v === null) return null;
  const hour = (h: unknown) => typeof h === 'number' && Number.isInteger(h) && h >= 0 && h <= 23;
  if (!Array.isArray(v) || v.length !== 2 || !hour(v[0]) || !hour(v[1])) return `${show(v)} is not [start_hour, end_hour] (0–23) or null`;
  return v[0] === v[1] ? `${show(v)}: start and end hour must differ; use null for all hours` : null;
}

function skipDays(v: ChoiceValue): string | null {
  if (!Array.isArray(v) || v.length > 6 || v.some((d) => !(WEEKDAYS as readonly unknown[]).includes(d))) {
    return `${show(v)} is not a list of at most 6 days (${WEEKDAYS.join(', ')}); [] skips none`;
  }
  return new Set(v).size === v.length ? null : `${show(v)} names a day twice`;
}

/** The trailing stop's unit follows the strategy's own trailing_stop; a strategy without one has none to tune. */
function trailingRule(config: StrategyConfig): Rule | string {
  const t = config.trailing_stop;
  if (t === undefined || t === null) {
    return 'the strategy has no trailing_stop (strategy_config() sets none), so its unit is unknown: set one in strategy_config() to tune it, or drop trailing_stop';
  }
  if (typeof t === 'number') return { numeric: 'float', check: nullable(inRange(0, 0.2, false, true)) };
  if ('pips' in t) return { numeric: 'float', check: nullable(inRange(0.1, 10_000, false)) };
  return { numeric: 'float', check: nullable(inRange(0.1, 20, false)) };
}

function engineRule(name: (typeof ENGINE_PARAMS)[number], ctx: SpaceContext): Rule | string {
  switch (name) {
    case 'stop_loss':
    case 'take_profit':
      return { numeric: 'float', check: nullable(inRange(0, ctx.riskUnit === 'pct' ? 1 : MAX_RISK_DISTANCE, false, true)) };
    case 'trailing_stop':
      return trailingRule(ctx.config);
    case 'confidence_threshold':
      return { numeric: 'float', check: inRange(0.5, 0.95, false) };
    case 'cooldown':
      return { numeric: 'int', check: inRange(0, 500, true) };
    case 'max_positions':
      return { numeric: 'int', check: inRange(1, 10, true) };
    case 'direction':
      return { numeric: 'none', check: oneOf(['both', 'long', 'short']) };
    case 'on_opposite':
      return { numeric: 'none', check: oneOf(['reverse', 'close_only', 'ignore']) };
    case 'session_filter':
      return { numeric: 'none', check: sessionFilter };
    case 'skip_days':
      return { numeric: 'none', check: skipDays };
  }
}

/** Unwraps optional/nullable/default to the inner schema, noting whether null is allowed. */
function inner(schema: z.ZodType): z.ZodType {
  let s = schema as z.ZodType & { unwrap?: () => z.ZodType };
  while ((s.def.type === 'optional' || s.def.type === 'nullable' || s.def.type === 'default') && s.unwrap) s = s.unwrap() as typeof s;
  return s;
}

/** int when every number the schema accepts is whole, float when some are, none when it takes no numbers. */
function numericKind(schema: z.ZodType): Rule['numeric'] {
  const s = inner(schema);
  if (s.def.type === 'number') return (s as z.ZodNumber).format === 'safeint' ? 'int' : 'float';
  if (s.def.type === 'union') {
    const kinds = (s as z.ZodUnion).options.map((o) => numericKind(o as z.ZodType)).filter((k) => k !== 'none');
    return kinds.length === 0 ? 'none' : kinds.includes('float') ? 'float' : 'int';
  }
  return 'none';
}

/** A hyperparameter of every model type the space can train, or why not. */
function hyperparameterRule(param: string, types: readonly ModelType[]): Rule | string {
  const schemas: z.ZodType[] = [];
  const lacking: ModelType[] = [];
  const setByUs: ModelType[] = [];
  for (const type of types) {
    const schema = PARAMS_OF[type].shape[param] as z.ZodType | undefined;
    if (!schema) lacking.push(type);
    else if (inner(schema).def.type === 'never') setByUs.push(type);
    else schemas.push(schema);
  }
  if (setByUs.length > 0) return `model_params.${param} is set by the trainer; it cannot be tuned`;
  if (lacking.length > 0) {
    const allowed = (t: ModelType) =>
      Object.entries(PARAMS_OF[t].shape)
        .filter(([, s]) => inner(s as z.ZodType).def.type !== 'never')
        .map(([k]) => k)
        .join(', ');
    const which = types.length > 1 ? ` (a model_type choice)` : ` (the strategy's model_type)`;
    return `model_params.${param} is not a hyperparameter of ${lacking.join(' or ')}${which}; ${lacking[0]} has ${allowed(lacking[0]!)}`;
  }
  const kinds = schemas.map(numericKind);
  const numeric = kinds.includes('none') ? 'none' : kinds.includes('float') ? 'float' : 'int';
  return {
    numeric,
    check: (v) => {
      for (const [i, schema] of schemas.entries()) {
        const r = schema.safeParse(v);
        if (!r.success) return `${show(v)} is not allowed for ${types[i]}: ${r.error.issues[0]?.message ?? 'invalid'}`;
      }
      return null;
    },
  };
}

/** How a strategy makes an indicator parameter tunable: said in every refusal of one it does not read. */
export const howToReadIndicator = (key: string, value: number) =>
  `return it from strategy_config() as "indicators": {"${key}": ${value}, …} and compute the indicator in feature_engineering ` +
  `with strategy_config()["indicators"]["${key}"] instead of a literal (naming its columns without the value, or from it)`;

/**
 * An indicator parameter of the registry that the strategy reads: its strategy_config() returns
 * the key in "indicators" (the only way a value reaches its feature_engineering), else a 422 that
 * says how to make it tunable.
 */
function indicatorRule(key: string, ctx: SpaceContext): Rule | string {
  const p = ctx.indicators.flatMap((r) => r.params).find((q) => q.key === key);
  if (!p) {
    const keys = ctx.indicators.flatMap((r) => r.params.map((q) => q.key)).join(', ');
    return `indicators.${key} is not an indicator parameter; the indicator parameters are ${keys} (GET /api/v1/indicator-schema)`;
  }
  const own = ctx.config.indicators ?? {};
  if (typeof own[key] !== 'number') {
    const read = Object.keys(own).filter((k) => typeof own[k] === 'number');
    return (
      `indicators.${key}: the strategy does not read it (its strategy_config() returns ${read.length ? `indicators ${read.join(', ')} but not ${key}` : 'no "indicators"'}), ` +
      `so tuning it would change nothing; to make it tunable, ${howToReadIndicator(key, p.default)}`
    );
  }
  return { numeric: p.type === 'integer' ? 'int' : 'float', check: inRange(p.min, p.max, p.type === 'integer') };
}

/** Lowest and highest value a parameter takes in the space (its choices, or its range). */
function extent(spec: ParamSpec): [number, number] | null {
  if (spec.type !== 'choice') return [spec.low, spec.high];
  const numbers = spec.values.filter((v): v is number => typeof v === 'number');
  return numbers.length ? [Math.min(...numbers), Math.max(...numbers)] : null;
}

/**
 * The registry's rules between two parameters of one indicator (MACD: fast < slow), over every
 * combination the space can draw: the tuned parameters' extents, the strategy's own value for the other.
 */
function constraintProblems(params: readonly SpaceParam[], ctx: SpaceContext): Array<{ parameter: string; message: string }> {
  const out: Array<{ parameter: string; message: string }> = [];
  const own = ctx.config.indicators ?? {};
  const tuned = new Map(params.map((p) => [p.name, p.spec]));
  for (const r of ctx.indicators) {
    for (const c of r.constraints) {
      const [left, right] = [`${r.name}_${c.param}`, `${r.name}_${c.less_than}`];
      const spec = (k: string) => tuned.get(`${INDICATORS_PREFIX}${k}`);
      if (!spec(left) && !spec(right)) continue;
      const range = (k: string): [number, number] | null => {
        const s = spec(k);
        if (s) return extent(s);
        const v = own[k] ?? r.params.find((p) => p.key === k)?.default;
        return typeof v === 'number' ? [v, v] : null;
      };
      const [a, b] = [range(left), range(right)];
      if (a && b && !(a[1] < b[0])) {
        out.push({
          parameter: `${INDICATORS_PREFIX}${spec(left) ? left : right}`,
          message: `${left} must stay below ${right} in every trial, but ${left} reaches ${a[1]} and ${right} goes down to ${b[0]}: narrow the ranges so that they do not overlap`,
        });
      }
    }
  }
  return out;
}

/** The model types a space can train: model_type's valid choices, else the strategy's own. */
function modelTypes(parameters: Record<string, ParamSpec>, config: StrategyConfig): ModelType[] {
  const spec = parameters[MODEL_PARAM];
  if (spec?.type !== 'choice') return [config.model_type];
  const chosen = spec.values.filter((v): v is ModelType => typeof v === 'string' && (MODEL_TYPES as readonly string[]).includes(v));
  return chosen.length > 0 ? [...new Set(chosen)] : [config.model_type];
}

function ruleFor(name: string, parameters: Record<string, ParamSpec>, ctx: SpaceContext): Rule | string {
  if ((ENGINE_PARAMS as readonly string[]).includes(name)) return engineRule(name as (typeof ENGINE_PARAMS)[number], ctx);
  if (name === MODEL_PARAM) return { numeric: 'none', check: oneOf(MODEL_TYPES) };
  if (name.startsWith(MODEL_PARAMS_PREFIX))
    return hyperparameterRule(name.slice(MODEL_PARAMS_PREFIX.length), modelTypes(parameters, ctx.config));
  if (name.startsWith(INDICATORS_PREFIX)) return indicatorRule(name.slice(INDICATORS_PREFIX.length), ctx);
  return (
    `'${name}' is not a parameter; the parameters are ${ENGINE_PARAMS.join(', ')}, ${MODEL_PARAM}, ` +
    `${MODEL_PARAMS_PREFIX}<hyperparameter> and ${INDICATORS_PREFIX}<key>`
  );
}

/** A number printed without float noise (0.1 + 0.2 → 0.3). */
const clean = (x: number) => Number(x.toPrecision(12));

/** Is x a whole multiple of step (up to float rounding)? */
const multiple = (x: number, step: number) => Math.abs(x / step - Math.round(x / step)) < 1e-9;

/** Problems of one parameter's spec under its rule (empty when fine). */
function specProblems(name: string, spec: ParamSpec, rule: Rule, method: OptimizeMethod): string[] {
  if (spec.type === 'choice') {
    const out = spec.values.flatMap((v) => {
      const p = rule.check(v);
      return p ? [`${name}: ${p}`] : [];
    });
    const seen = new Set(spec.values.map((v) => show(v)));
    if (seen.size !== spec.values.length) out.push(`${name}: a value is listed twice; list each once`);
    return out;
  }
  const { low, high, step, log } = spec;
  if (rule.numeric === 'none') return [`${name} takes no range: list its values, e.g. {"type":"choice","values":[…]}`];
  if (spec.type === 'float' && rule.numeric === 'int') return [`${name} is a whole number: use {"type":"int",…}`];
  const out: string[] = [];
  if (low > high) out.push(`${name}: low (${low}) is above high (${high})`);
  for (const [which, v] of [
    ['low', low],
    ['high', high],
  ] as const) {
    const p = rule.check(v);
    if (p) out.push(`${name}: ${which} ${p}`);
  }
  if (step !== undefined && log) out.push(`${name}: step and log cannot both be given; pick one`);
  if (log && low <= 0) out.push(`${name}: a log range needs low > 0`);
  if (log && method === 'grid') out.push(`${name}: a grid has no log scale; give a step or a list of choices`);
  if (step !== undefined && low <= high && !multiple(high - low, step)) {
    const below = clean(low + Math.floor((high - low) / step) * step);
    out.push(`${name}: high − low (${clean(high - low)}) is not a multiple of step (${step}): use high ${below} or ${clean(below + step)}`);
  }
  if (method === 'grid' && spec.type === 'float' && step === undefined && !log) {
    out.push(`${name}: a grid needs a step for a float range (e.g. "step": ${clean((high - low) / 10) || 1}), or a list of choices`);
  }
  return out;
}

/** Points of one axis of the grid (Infinity for a float range without a step). */
export function axisSize(spec: ParamSpec): number {
  if (spec.type === 'choice') return spec.values.length;
  if (spec.high < spec.low) return 0;
  if (spec.type === 'float' && spec.step === undefined) return Infinity;
  return Math.floor((spec.high - spec.low) / (spec.step ?? 1) + 1e-9) + 1;
}

/** Combinations of the grid: the product of its axes, computed without enumerating (Infinity past 1e308). */
export function gridSize(specs: readonly ParamSpec[]): number {
  return specs.reduce((n, s) => n * axisSize(s), 1);
}

/** The values of one axis, low to high (choices in their order). */
export function axisValues(spec: ParamSpec): ChoiceValue[] {
  if (spec.type === 'choice') return [...spec.values];
  const size = axisSize(spec);
  if (!Number.isFinite(size)) throw new Error('a float range without a step has no grid axis');
  const step = spec.step ?? 1;
  return Array.from({ length: size }, (_, i) => (spec.type === 'int' ? spec.low + i * step : clean(spec.low + i * step)));
}

/**
 * The grid's combinations in a stable order: parameters by name, the first slowest and the last
 * fastest (the order of optuna's GridSampler), each axis low to high or as listed.
 */
export function* enumerateGrid(space: Pick<SearchSpace, 'params'>): Generator<Record<string, ChoiceValue>> {
  const axes = space.params.map((p) => axisValues(p.spec));
  if (axes.some((a) => a.length === 0)) return;
  const at = axes.map(() => 0);
  for (;;) {
    yield Object.fromEntries(space.params.map((p, i) => [p.name, axes[i]![at[i]!]!]));
    let i = axes.length - 1;
    while (i >= 0 && ++at[i]! === axes[i]!.length) at[i--] = 0;
    if (i < 0) return;
  }
}

const count = (n: number) => (Number.isFinite(n) ? n.toLocaleString('en-US') : 'infinitely many');

/**
 * Checks the request's search against the strategy (its parsed strategy_config()) and the
 * indicator registry; throws UnprocessableError (422) with every problem, each naming its
 * parameter and what to do, or returns the checked space.
 */
export function checkSearchSpace(search: OptimizeSearch, ctx: SpaceContext): SearchSpace {
  const names = Object.keys(search.parameters).sort();
  if (names.length === 0) {
    throw new UnprocessableError(
      `the search space is empty: name at least one parameter to tune in "parameters", e.g. {"stop_loss": {"type":"float","low":10,"high":50,"step":10}}`,
    );
  }
  const problems: Array<{ parameter: string; message: string }> = [];
  const params: SpaceParam[] = [];
  for (const name of names) {
    const spec = search.parameters[name]!;
    const rule = ruleFor(name, search.parameters, ctx);
    if (typeof rule === 'string') {
      problems.push({ parameter: name, message: rule });
      continue;
    }
    for (const message of specProblems(name, spec, rule, search.method)) problems.push({ parameter: name, message });
    params.push({ name, class: paramClass(name)!, spec });
  }
  if (problems.length === 0) problems.push(...constraintProblems(params, ctx));
  if (problems.length > 0) {
    const error = new UnprocessableError(
      `the search space has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}: ${problems.map((p) => p.message).join('; ')}`,
    );
    error.details = { problems };
    throw error;
  }
  let gridSizeOf: number | null = null;
  if (search.method === 'grid') {
    gridSizeOf = gridSize(params.map((p) => p.spec));
    if (gridSizeOf > MAX_GRID_SIZE) {
      const axes = params.map((p) => `${p.name} ${count(axisSize(p.spec))}`).join(' × ');
      const error = new UnprocessableError(
        `the grid has ${count(gridSizeOf)} combinations (${axes}); the maximum is ${MAX_GRID_SIZE.toLocaleString('en-US')}: ` +
          'use larger steps or fewer values, or method "random" or "tpe" with a number of trials',
      );
      error.details = { grid_size: Number.isFinite(gridSizeOf) ? gridSizeOf : null, max_grid_size: MAX_GRID_SIZE };
      throw error;
    }
  }
  if (search.method === 'tpe' && (search.trials ?? DEFAULT_TRIALS) > MAX_TPE_TRIALS) {
    throw new UnprocessableError(
      `tpe runs at most ${MAX_TPE_TRIALS.toLocaleString('en-US')} trials (asked for ${search.trials!.toLocaleString('en-US')}): each suggestion weighs every earlier trial; ` +
        'ask for fewer trials, or use method "random" for more',
    );
  }
  const trials = gridSizeOf !== null ? Math.min(search.trials ?? gridSizeOf, gridSizeOf) : (search.trials ?? DEFAULT_TRIALS);
  return {
    method: search.method,
    seed: search.seed,
    trials,
    params,
    gridSize: gridSizeOf,
    engineOnly: params.every((p) => p.class === 'engine'),
  };
}
