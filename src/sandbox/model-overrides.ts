/**
 * The model an optimiser trial asks for instead of the code's own: trainer.py merges these over
 * strategy_config() before the fit, and this is the same merge on the trusted side, checked with
 * the StrategyConfig schema that checks every config (so a trial's config is refused before its
 * fit, and its time budget is sized on what will really be fitted).
 */
import { UnprocessableError } from '../errors.ts';
import { StrategyConfig, type StrategyIndicators } from '../../schemas/strategy.ts';

export interface ModelOverrides {
  model_type?: StrategyConfig['model_type'];
  /** Merged over the code's model_params when model_type stays; alone when it changes (another class's params would not fit). */
  model_params?: Record<string, unknown>;
  /**
   * Merged over strategy_config()["indicators"] for the whole job (ops.py: the code's own
   * strategy_config() returns the merged config), so its feature_engineering computes with them.
   */
  indicators?: StrategyIndicators;
}

/** The config with the overrides merged as trainer.py merges them; 422 naming each field the schema refuses. */
export function applyOverrides(config: StrategyConfig, overrides: ModelOverrides): StrategyConfig {
  const changed = overrides.model_type !== undefined && overrides.model_type !== config.model_type;
  const merged = {
    ...config,
    model_type: overrides.model_type ?? config.model_type,
    model_params: { ...(changed ? {} : config.model_params), ...overrides.model_params },
    ...(overrides.indicators ? { indicators: { ...config.indicators, ...overrides.indicators } } : {}),
  };
  const checked = StrategyConfig.safeParse(merged);
  if (!checked.success) {
    throw new UnprocessableError(
      `the model overrides make an invalid strategy_config: ${checked.error.issues.map((i) => `${i.path.join('.') || '(config)'}: ${i.message}`).join('; ')}`,
    );
  }
  return checked.data;
}
