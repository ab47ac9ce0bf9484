/**
 * USD arithmetic of a position: contract size, P&L conversion by the quote currency, notional,
 * and the stop / take distance a risk unit stands for.
 */
import type { Instrument } from '../lib/instruments.ts';
import type { Level } from './types.ts';

/** Units per standard lot: 100,000 for currency pairs, 1 for BTCUSD. */
export function contractSize(inst: Instrument): number {
  return inst.base === 'BTC' ? 1 : 100_000;
}

/**
 * How a price difference becomes USD: 'quote' when the quote currency is USD (as is), 'base'
 * when the base is USD (÷ the exit price). Crosses (neither is USD) are refused.
 */
export function usdLeg(inst: Instrument): 'quote' | 'base' {
  if (inst.quote === 'USD') return 'quote';
  if (inst.base === 'USD') return 'base';
  throw new Error(`${inst.symbol}: neither currency is USD; cross pairs need a conversion rate the engine does not have`);
}

/** USD P&L of `units` from entry to exit (side +1 long, −1 short), before costs. */
export function usdPnl(leg: 'quote' | 'base', side: number, units: number, entry: number, exit: number): number {
  const quotePnl = units * (exit - entry) * side;
  return leg === 'quote' ? quotePnl : quotePnl / exit;
}

/** USD notional at entry: units × price (USD-quoted), or the units themselves (USD-based). */
export function usdNotional(leg: 'quote' | 'base', units: number, entry: number): number {
  return leg === 'quote' ? units * entry : units;
}

/**
 * Distance from the entry price to the level, > 0, or Infinity when the level can never be
 * reached (a usd target a USD-based position can never earn).
 *
 *   pips: value × pipSize
 *   pct:  value × entry (value a fraction)
 *   usd:  the distance d at which the position's USD P&L before costs is exactly −value (stop) or
 *         +value (take). USD-quoted: d = value / units. USD-based (P&L ÷ exit price):
 *           long stop, short take (exit = entry ∓ d): units·d / (entry − d) = V → d = V·entry / (units + V)
 *           long take, short stop (exit = entry ± d): units·d / (entry + d) = V → d = V·entry / (units − V),
 *           unreachable (Infinity) when V ≥ units.
 */
export function levelDistance(
  level: Level,
  kind: 'stop' | 'take',
  side: number,
  entry: number,
  units: number,
  inst: Instrument,
  leg: 'quote' | 'base',
): number {
  const v = level.value;
  switch (level.unit) {
    case 'pips':
      return v * inst.pipSize;
    case 'pct':
      return v * entry;
    case 'usd': {
      if (leg === 'quote') return v / units;
      const towardsLowerPrice = (kind === 'stop') === side > 0;
      if (towardsLowerPrice) return (v * entry) / (units + v);
      return v >= units ? Infinity : (v * entry) / (units - v);
    }
  }
}

/** Checks a level given to the engine: a finite value > 0. */
export function checkLevel(name: string, level: Level | null): void {
  if (level === null) return;
  if (!(Number.isFinite(level.value) && level.value > 0))
    throw new RangeError(`${name}: value must be a finite number > 0, got ${level.value}`);
  if (level.unit !== 'pips' && level.unit !== 'usd' && level.unit !== 'pct')
    throw new RangeError(`${name}: unknown unit ${String(level.unit)}`);
}
