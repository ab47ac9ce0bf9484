/**
 * The decision stage: model probabilities → −1/0/1 signals (the confirm step), and the per-bar
 * entry mask from the strategy_config's rules and filters of values (entry_long, entry_short,
 * entry_filter, min_atr, trend_filter) and exit columns (exit_long, exit_short). Both belong to the
 * bar whose close produced them; the engine acts on them at the next open. These values are all
 * known at the signal bar's close, so they are judged there; session_filter and skip_days are
 * judged by the engine on the bar the position opens at (EngineOptions.entryTimes), whose time
 * only that bar tells.
 */
import { BOTH_ALLOWED, EXIT_LONG, EXIT_SHORT, LONG_ALLOWED, SHORT_ALLOWED, type BarColumns } from '../backtest/index.ts';
import { INDICATORS } from '../indicators/index.ts';

export { weekdayOf } from '../backtest/index.ts';
import type { Instrument } from '../lib/instruments.ts';

/**
 * The entry rule columns of a meta-labelled model (strategy_config entry_long / entry_short): the
 * rule proposes, the model's P(win) confirms. Absent (null) = direction mode.
 */
export interface EntryRules {
  long: Float64Array | Float32Array | null;
  short: Float64Array | Float32Array | null;
}

export { labelMode } from '../../schemas/strategy.ts';

/**
 * The confirm step, the one place the model's probability becomes a side, in backtest and live alike.
 * Direction mode (no `rules`): p is p(up); p ≥ threshold → 1, p ≤ 1 − threshold → −1, else 0
 * (threshold in [0.5, 1]; NaN → 0; at threshold 0.5, p = 0.5 is long).
 * Meta mode (`rules`, the model was trained on meta-labels): p is P(win) of the rule's trade; a bar
 * where exactly one rule fires (> 0) takes that side when p ≥ threshold (threshold in [0, 1]; 0 =
 * every rule trade, the rule alone), else 0; a bar where both fire takes neither (the trainer has no
 * row for it). The direction setting and the filters stay the entry mask's (entryMask).
 * Float32 probabilities (what the ONNX model gives) are compared with the bounds rounded to
 * float32, so p = 0.4f counts as ≤ 1 − 0.6 just as 0.6f counts as ≥ 0.6.
 */
export function toSignals(probaUp: Float32Array | Float64Array, threshold: number, rules?: EntryRules | null): Int8Array {
  const out = new Int8Array(probaUp.length);
  const f32 = probaUp instanceof Float32Array;
  const high = f32 ? Math.fround(threshold) : threshold;
  if (rules) {
    if (!(threshold >= 0 && threshold <= 1)) throw new RangeError(`threshold must be in [0, 1], got ${threshold}`);
    const { long, short } = rules;
    for (const column of [long, short])
      if (column && column.length !== probaUp.length)
        throw new RangeError(`toSignals: an entry rule column has ${column.length} values for ${probaUp.length} bars`);
    for (let i = 0; i < probaUp.length; i++) {
      const side = (long && long[i]! > 0 ? 1 : 0) - (short && short[i]! > 0 ? 1 : 0);
      out[i] = side !== 0 && probaUp[i]! >= high ? side : 0;
    }
    return out;
  }
  if (!(threshold >= 0.5 && threshold <= 1)) throw new RangeError(`threshold must be in [0.5, 1], got ${threshold}`);
  const low = f32 ? Math.fround(1 - threshold) : 1 - threshold;
  for (let i = 0; i < probaUp.length; i++) {
    const p = probaUp[i]!;
    out[i] = p >= high ? 1 : p <= low ? -1 : 0;
  }
  return out;
}

/** The signal bar's rules and filters (session and days are the engine's: EngineOptions.entryTimes). */
export interface EntryFilters {
  /** Minimum NATR in percent: ATR(14) / close × 100 (Wilder ATR of the indicator registry). */
  minAtr: number | null;
  /** The trend_filter column's values per bar: longs only when close > it, shorts only when close < it. */
  trendColumn: Float64Array | Float32Array | null;
  /** The entry_filter column's values per bar: entries only where > 0 (NaN: none). */
  entryFilter?: Float64Array | Float32Array | null;
  /**
   * The entry_long / entry_short rule columns' values per bar: a long opens only where entryLong > 0,
   * a short only where entryShort > 0. When either is given, a side without a rule opens nothing.
   */
  entryLong?: Float64Array | Float32Array | null;
  entryShort?: Float64Array | Float32Array | null;
  /** The exit_long / exit_short columns' values per bar: > 0 closes that side at the next open and opens none of it there. */
  exitLong?: Float64Array | Float32Array | null;
  exitShort?: Float64Array | Float32Array | null;
}

/** NATR(14) in percent per bar; NaN while the registry's ATR warms up. */
export function natr(bars: Pick<BarColumns, 'open' | 'high' | 'low' | 'close'>, period = 14): Float64Array {
  const [atr] = INDICATORS.atr.compute(bars, { period });
  const out = new Float64Array(bars.close.length);
  for (let i = 0; i < out.length; i++) out[i] = (atr![i]! / bars.close[i]!) * 100;
  return out;
}

/**
 * The side a bar's signal asks for, kept only when its entry bits allow it: 1 / −1, else 0 (the
 * engine's direction rule, entry times, cooldown and positions aside).
 */
export const maskedSide = (signal: number, mask: number): -1 | 0 | 1 =>
  signal > 0 ? (mask & LONG_ALLOWED ? 1 : 0) : signal < 0 ? (mask & SHORT_ALLOWED ? -1 : 0) : 0;

/**
 * Per bar: bit 1 = a long may open, bit 2 = a short may open (at the next open, on this bar's
 * signal), given the rules and filters of the bar's own values; bit 4 / 8 = open longs / shorts
 * close at the next open (exit columns). A bar where a rule or filter value is NaN (NATR in its
 * ATR warm-up, a trend value) allows nothing under it. (The instrument is accepted for filters
 * that may need it; none do yet.)
 */
export function entryMask(
  bars: Pick<BarColumns, 'ts' | 'open' | 'high' | 'low' | 'close'>,
  filters: EntryFilters,
  _instrument?: Instrument,
): Uint8Array {
  const n = bars.ts.length;
  const out = new Uint8Array(n).fill(BOTH_ALLOWED);
  const { minAtr, trendColumn, entryLong, entryShort } = filters;
  if (entryLong || entryShort) {
    for (const column of [entryLong, entryShort])
      if (column && column.length !== n) throw new RangeError(`entryMask: an entry rule column has ${column.length} values for ${n} bars`);
    // The trader stated entries: a side without a rule does not trade.
    for (let i = 0; i < n; i++)
      out[i] = (entryLong && entryLong[i]! > 0 ? LONG_ALLOWED : 0) | (entryShort && entryShort[i]! > 0 ? SHORT_ALLOWED : 0);
  }
  if (minAtr !== null) {
    const v = natr(bars);
    for (let i = 0; i < n; i++) if (!(v[i]! >= minAtr)) out[i] = 0;
  }
  if (filters.entryFilter) {
    if (filters.entryFilter.length !== n)
      throw new RangeError(`entryMask: entry filter has ${filters.entryFilter.length} values for ${n} bars`);
    for (let i = 0; i < n; i++) if (!(filters.entryFilter[i]! > 0)) out[i] = 0;
  }
  if (trendColumn) {
    if (trendColumn.length !== n) throw new RangeError(`entryMask: trend column has ${trendColumn.length} values for ${n} bars`);
    const { close } = bars;
    for (let i = 0; i < n; i++) {
      const t = trendColumn[i]!;
      out[i]! &= (close[i]! > t ? LONG_ALLOWED : 0) | (close[i]! < t ? SHORT_ALLOWED : 0);
    }
  }
  // Exits last: an exit bar closes its side and opens none of it, whatever the filters allowed.
  for (const [column, exit, entry] of [
    [filters.exitLong, EXIT_LONG, LONG_ALLOWED],
    [filters.exitShort, EXIT_SHORT, SHORT_ALLOWED],
  ] as const) {
    if (!column) continue;
    if (column.length !== n) throw new RangeError(`entryMask: exit column has ${column.length} values for ${n} bars`);
    for (let i = 0; i < n; i++) if (column[i]! > 0) out[i] = (out[i]! & ~entry) | exit;
  }
  return out;
}
