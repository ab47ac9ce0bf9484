import type { EngineOptions, IntrabarResolver, Level } from '../backtest/index.ts';
import { instrument } from '../market/index.ts';
import { TIMEFRAME_MS } from '../market/index.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { StrategyConfig } from '../../schemas/strategy.ts';
import type { ModelSettings, TrainRequest } from '../../schemas/training.ts';

/**
 * How a strategy trades, from its strategy_config and the train request: one place, used by the
 * backtest of a train job, by /predict and by the live model actor, so all three trade alike.
 */

/** The request's money fields with defaults, and the threshold actually used. */
export function modelSettings(request: TrainRequest, config: StrategyConfig): ModelSettings {
  const { code: _code, symbol: _s, timeframe: _t, start_date: _a, end_date: _b, model_name: _m, ai_model: _ai, indicators: _i, confidence_threshold, ...money } = request;
  return { ...money, confidence_threshold: confidence_threshold ?? config.signal_threshold, train_split: request.train_split };
}

/**
 * A stop or take level: the request's (in risk_unit) when it gives one — null switches it off —
 * else strategy_config's decimal ratio, a fraction of the entry price.
 */
function level(requested: number | null | undefined, unit: ModelSettings['risk_unit'], fromConfig: number | null): Level | null {
  if (requested === null) return null;
  if (requested !== undefined) return { unit, value: requested };
  return fromConfig === null ? null : { unit: 'pct', value: fromConfig };
}

export function engineOptions(
  symbol: Symbol,
  timeframe: Timeframe,
  config: StrategyConfig,
  settings: ModelSettings,
  resolver: IntrabarResolver | null,
): EngineOptions {
  return {
    instrument: instrument(symbol),
    timeframeMs: TIMEFRAME_MS[timeframe],
    direction: config.direction,
    cooldown: config.cooldown,
    maxPositions: config.max_positions,
    onOpposite: config.on_opposite,
    stop: level(settings.stop_loss, settings.risk_unit, config.stop_loss),
    take: level(settings.take_profit, settings.risk_unit, config.take_profit),
    lotSize: settings.lot_size,
    commissionPerLot: settings.commission,
    swapLong: settings.swap_long,
    swapShort: settings.swap_short,
    fillAtBidAsk: settings.fill_at_bid_ask,
    resolver: settings.intrabar === 'finer' ? resolver : null,
    capital: settings.capital,
  };
}

/** Whether finer bars can settle SL-vs-TP inside this timeframe's bars (1-minute bars beneath). */
export const hasFinerBars = (timeframe: Timeframe): boolean => timeframe !== '1min';
