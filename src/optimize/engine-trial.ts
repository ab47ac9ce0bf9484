/**
 * A trial's parameter set → what the position engine takes: EngineOptions (engineOptions), signals
 * (toSignals) and the entry mask (strategyMask) — the scoring chain's own functions, so a trial
 * trades exactly as the same settings would after POST /train.
 */
import type { SweepTrial } from '../backtest/index.ts';
import { UnprocessableError } from '../errors.ts';
import { engineOptions, strategyMask, strategySignals, type BarColumns, type FeatureRows } from '../scoring/index.ts';
import type { IntrabarResolver } from '../backtest/index.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { ParamSet } from '../../schemas/optimize.ts';
import { TrailingStop, WEEKDAYS, type StrategyConfig } from '../../schemas/strategy.ts';
import type { ModelSettings } from '../../schemas/training.ts';

/** The trial's base: the strategy's config and the request's settings, as a train job would record them. */
export interface TrialBase {
  symbol: Symbol;
  timeframe: Timeframe;
  config: StrategyConfig;
  settings: ModelSettings;
}

/** `pos_rules.cooldown` and `cooldown` name the same thing. */
const bare = (name: string) => name.replace(/^(pos_rules|filters|levels)\./, '');

const int = (name: string, v: unknown, min: number, max: number): number => {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    throw new UnprocessableError(`${name}: ${JSON.stringify(v)} is not an integer in [${min}, ${max}]`);
  return v;
};
const oneOf = <T extends string>(name: string, v: unknown, values: readonly T[]): T => {
  if (typeof v !== 'string' || !values.includes(v as T))
    throw new UnprocessableError(`${name}: ${JSON.stringify(v)} is not one of ${values.join(', ')}`);
  return v as T;
};
const numOrNull = (name: string, v: unknown): number | null => {
  if (v === null) return null;
  if (typeof v !== 'number' || !Number.isFinite(v) || v <= 0)
    throw new UnprocessableError(`${name}: ${JSON.stringify(v)} is not a positive number or null`);
  return v;
};

/** A trailing_stop value in the unit of the strategy's own trailing stop (a ratio, pips, or an ATR multiple); null switches it off. */
function trailIn(own: StrategyConfig['trailing_stop'], name: string, v: unknown): TrailingStop {
  if (v === null) return null;
  const value = numOrNull(name, v)!;
  const parsed = TrailingStop.safeParse(
    own && typeof own === 'object' ? ('pips' in own ? { pips: value } : { atr: value, period: own.period }) : value,
  );
  if (!parsed.success)
    throw new UnprocessableError(
      `${name}: ${value} is out of bounds for the strategy's trailing stop (${parsed.error.issues.map((i) => i.message).join('; ')})`,
    );
  return parsed.data;
}

/**
 * The config and settings a parameter set makes of the base. Model parameters (model_type,
 * model_params.*, indicators.*) are not the engine's: they change the probabilities, and are
 * applied by the fit, never here.
 */
export function applyEngineParams(base: TrialBase, params: ParamSet): TrialBase {
  const config = { ...base.config } as StrategyConfig;
  const settings = { ...base.settings };
  let sessionStart: number | null = null;
  let sessionEnd: number | null = null;
  for (const [raw, v] of Object.entries(params)) {
    const name = bare(raw);
    switch (name) {
      case 'confidence_threshold':
      case 'signal_threshold':
        if (typeof v !== 'number' || !(v >= 0.5 && v <= 0.99))
          throw new UnprocessableError(`${raw}: ${JSON.stringify(v)} is not in [0.5, 0.99]`);
        settings.confidence_threshold = v;
        break;
      case 'stop_loss':
        settings.stop_loss = numOrNull(raw, v);
        break;
      case 'take_profit':
        settings.take_profit = numOrNull(raw, v);
        break;
      case 'trailing_stop':
        config.trailing_stop = trailIn(base.config.trailing_stop, raw, v);
        break;
      case 'trailing_stop_pips':
        config.trailing_stop = v === null ? null : { pips: numOrNull(raw, v)! };
        break;
      case 'trailing_stop_atr':
        config.trailing_stop = v === null ? null : { atr: numOrNull(raw, v)!, period: 14 };
        break;
      case 'cooldown':
        config.cooldown = int(raw, v, 0, 500);
        break;
      case 'max_positions':
        config.max_positions = int(raw, v, 1, 10);
        break;
      case 'direction':
        config.direction = oneOf(raw, v, ['both', 'long', 'short'] as const);
        break;
      case 'on_opposite':
        config.on_opposite = oneOf(raw, v, ['reverse', 'close_only', 'ignore'] as const);
        break;
      case 'min_atr':
        config.min_atr = v === null ? null : (numOrNull(raw, v) as number);
        break;
      case 'session_filter':
        if (v === null) config.session_filter = null;
        else if (Array.isArray(v) && v.length === 2 && v[0] !== v[1])
          config.session_filter = [int(raw, v[0], 0, 23), int(raw, v[1], 0, 23)];
        else throw new UnprocessableError(`${raw}: ${JSON.stringify(v)} is not [start_hour, end_hour] (differing) or null`);
        break;
      case 'session_start':
        sessionStart = int(raw, v, 0, 23);
        break;
      case 'session_end':
        sessionEnd = int(raw, v, 0, 23);
        break;
      case 'skip_days':
        if (!Array.isArray(v) || v.length > 6)
          throw new UnprocessableError(`${raw}: ${JSON.stringify(v)} is not a list of at most 6 weekdays`);
        config.skip_days = v.map((d) => oneOf(raw, d, WEEKDAYS));
        break;
      default:
        break; // model parameters: applied by the fit
    }
  }
  if (sessionStart !== null || sessionEnd !== null) {
    const [s0, e0] = config.session_filter ?? [0, 0];
    const start = sessionStart ?? s0;
    const end = sessionEnd ?? e0;
    config.session_filter = start === end ? null : [start, end];
  }
  return { symbol: base.symbol, timeframe: base.timeframe, config, settings };
}

/** The probabilities and feature rows a trial is scored from (one fit's, or the stitched folds'). */
export interface TrialInputs {
  bars: BarColumns;
  /** p(up) per bar (NaN where no model scored it). */
  pUp: Float32Array;
  /** Feature rows of the bars, for the filter and exit columns the config names. */
  features: FeatureRows;
  resolver: IntrabarResolver | null;
}

/** The engine's inputs of one trial: its options, its signals and its entry mask. */
export function engineTrial(base: TrialBase, params: ParamSet, inputs: TrialInputs): SweepTrial {
  const spec = applyEngineParams(base, params);
  // Session hours and skipped days travel in the options (the engine judges them on the fill bar); the rest is the mask.
  return {
    options: engineOptions(spec, inputs.resolver),
    signals: strategySignals(spec, inputs.features, inputs.pUp),
    mask: strategyMask(inputs.bars, spec, inputs.features),
  };
}
