/** Checks EngineOptions once, when an engine is made, so the engine's loop can trust them. */
import { checkEntryTimes } from './entry-times.ts';
import { checkLevel, usdLeg } from './money.ts';
import type { EngineOptions, Trail } from './types.ts';

export const DIRECTION_MASK = { both: 3, long: 1, short: 2 } as const;
export const REVERSE = 0;
export const CLOSE_ONLY = 1;
export const IGNORE = 2;
export const ON_OPPOSITE = { reverse: REVERSE, close_only: CLOSE_ONLY, ignore: IGNORE } as const;

/** Throws a RangeError naming the first bad option (and an Error for a cross pair). */
export function checkOptions(opts: EngineOptions): void {
  const { lotSize, maxPositions, cooldown, timeframeMs, commissionPerLot, swapLong, swapShort } = opts;
  if (!(Number.isFinite(lotSize) && lotSize > 0)) throw new RangeError(`lotSize must be > 0, got ${lotSize}`);
  if (!(Number.isInteger(maxPositions) && maxPositions >= 1))
    throw new RangeError(`maxPositions must be an integer ≥ 1, got ${maxPositions}`);
  if (!(Number.isInteger(cooldown) && cooldown >= 0)) throw new RangeError(`cooldown must be an integer ≥ 0, got ${cooldown}`);
  if (!(Number.isFinite(timeframeMs) && timeframeMs > 0)) throw new RangeError(`timeframeMs must be > 0, got ${timeframeMs}`);
  if (!(Number.isFinite(commissionPerLot) && commissionPerLot >= 0))
    throw new RangeError(`commissionPerLot must be ≥ 0, got ${commissionPerLot}`);
  if (!Number.isFinite(swapLong) || !Number.isFinite(swapShort)) throw new RangeError('swapLong / swapShort must be finite');
  if (!(opts.direction in DIRECTION_MASK)) throw new RangeError(`direction must be both, long or short, got ${opts.direction}`);
  if (!(opts.onOpposite in ON_OPPOSITE)) throw new RangeError(`onOpposite must be reverse, close_only or ignore, got ${opts.onOpposite}`);
  if (opts.capital !== undefined && !(Number.isFinite(opts.capital) && opts.capital > 0))
    throw new RangeError(`capital must be > 0, got ${opts.capital}`);
  checkLevel('stop', opts.stop);
  checkLevel('take', opts.take);
  checkTrail(opts.trail ?? null);
  checkEntryTimes(opts.entryTimes);
  usdLeg(opts.instrument);
}

/** A trail: value finite > 0 (a pct below 1), an ATR period an integer ≥ 1. */
function checkTrail(trail: Trail | null): void {
  if (trail === null) return;
  if (trail.unit !== 'pct' && trail.unit !== 'pips' && trail.unit !== 'atr')
    throw new RangeError(`trail: unknown unit ${String((trail as { unit: unknown }).unit)}`);
  if (!(Number.isFinite(trail.value) && trail.value > 0))
    throw new RangeError(`trail: value must be a finite number > 0, got ${trail.value}`);
  if (trail.unit === 'pct' && !(trail.value < 1))
    throw new RangeError(`trail: a pct value is a fraction of the price below 1, got ${trail.value}`);
  if (trail.unit === 'atr' && !(Number.isInteger(trail.period) && trail.period >= 1))
    throw new RangeError(`trail: ATR period must be an integer ≥ 1, got ${trail.period}`);
}
