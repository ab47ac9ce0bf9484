import type { StrategyConfig } from '../../schemas/strategy.ts';
import type { ModelSettings, TrainRequest } from '../../schemas/training.ts';

/**
 * A train request's money fields with defaults, and the threshold actually used (how the model
 * trades from there on is src/scoring's `engineOptions`).
 */
export function modelSettings(
  request: Omit<TrainRequest, 'wf_folds' | 'wf_scheme'> & Partial<Pick<TrainRequest, 'wf_folds' | 'wf_scheme'>>,
  config: StrategyConfig,
): ModelSettings {
  const {
    code: _code,
    symbol: _s,
    timeframe: _t,
    start_date: _a,
    end_date: _b,
    model_name: _m,
    ai_model: _ai,
    indicators: _i,
    wf_folds: _wf,
    wf_scheme: _ws,
    confidence_threshold,
    ...money
  } = request;
  return { ...money, confidence_threshold: confidence_threshold ?? config.signal_threshold, train_split: request.train_split };
}
