/** A valid `strategy_config()` result for tests: plain settings, the model asked for. */
import { StrategyConfig } from '../../schemas/strategy.ts';

export const strategyConfig = (model_type: string, model_params: object = {}, title = 'a strategy'): StrategyConfig =>
  StrategyConfig.parse({
    model_type,
    model_params,
    signal_threshold: 0.55,
    direction: 'both',
    stop_loss: null,
    take_profit: null,
    cooldown: 0,
    max_positions: 1,
    on_opposite: 'reverse',
    session_filter: null,
    min_atr: null,
    trend_filter: null,
    target_horizon: 4,
    objective: '',
    notes: '',
    title,
  });
