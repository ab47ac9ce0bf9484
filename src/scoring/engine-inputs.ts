import { finerBarResolver, type EngineOptions, type IntrabarResolver, type Level, type Trail } from '../backtest/index.ts';
import { instrument } from '../lib/instruments.ts';
import { TIMEFRAME_MS } from '../lib/timeframes.ts';
import type { BarCache } from '../market/index.ts';
import type { Symbol, Timeframe } from '../../schemas/common.ts';
import type { ModelSettings } from '../../schemas/training.ts';
import type { ScoringSpec } from './chain.ts';

/**
 * A stop or take level: the request's (in risk_unit) when it gives one — null switches it off —
 * else strategy_config's decimal ratio, a fraction of the entry price.
 */
function level(requested: number | null | undefined, unit: ModelSettings['risk_unit'], fromConfig: number | null): Level | null {
  if (requested === null) return null;
  if (requested !== undefined) return { unit, value: requested };
  return fromConfig === null ? null : { unit: 'pct', value: fromConfig };
}

/** strategy_config's trailing_stop as the engine's trail: a ratio trails by a fraction of the best price, else pips or ATR. */
function trail(config: ScoringSpec['config']['trailing_stop']): Trail | null {
  if (config == null) return null;
  if (typeof config === 'number') return { unit: 'pct', value: config };
  return 'pips' in config ? { unit: 'pips', value: config.pips } : { unit: 'atr', value: config.atr, period: config.period };
}

/**
 * How a model trades, from its strategy_config and settings: one place for the backtest of a train
 * job, /predict and the live model actor, so all three trade alike.
 */
export function engineOptions(spec: Omit<ScoringSpec, 'features'>, resolver: IntrabarResolver | null): EngineOptions {
  const { config, settings } = spec;
  return {
    instrument: instrument(spec.symbol),
    timeframeMs: TIMEFRAME_MS[spec.timeframe],
    direction: config.direction,
    cooldown: config.cooldown,
    maxPositions: config.max_positions,
    onOpposite: config.on_opposite,
    stop: level(settings.stop_loss, settings.risk_unit, config.stop_loss),
    take: level(settings.take_profit, settings.risk_unit, config.take_profit),
    trail: trail(config.trailing_stop),
    // Judged on the bar a position opens at, not the signal bar (engine-core.ts).
    entryTimes: { session: config.session_filter, skipDays: config.skip_days ?? [] },
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

/** The 1-minute bars that settle SL-vs-TP inside coarser bars, when the timeframe has them. */
export async function intrabarResolver(
  bars: Pick<BarCache, 'get'>,
  symbol: Symbol,
  timeframe: Timeframe,
): Promise<IntrabarResolver | null> {
  if (!hasFinerBars(timeframe)) return null;
  const finer = await bars.get(symbol, '1min');
  if (!finer.length) return null;
  // The series hands out one columns view until it gains a bar: one resolver per view, shared by every model of the symbol.
  const columns = finer.columns();
  let resolver = resolvers.get(columns);
  if (!resolver) resolvers.set(columns, (resolver = finerBarResolver(columns)));
  return resolver;
}

const resolvers = new WeakMap<object, IntrabarResolver>();
