/**
 * The decision stage: model probabilities → −1/0/1 signals, and the per-bar entry mask from the
 * strategy_config filters (session_filter, skip_days, min_atr, trend_filter, entry_filter) and exit columns
 * (exit_long, exit_short). Both belong to the bar whose
 * close produced them; the engine acts on them at the next open.
 */
import { BOTH_ALLOWED, EXIT_LONG, EXIT_SHORT, LONG_ALLOWED, SHORT_ALLOWED, type BarColumns } from '../backtest/index.ts';
import { WEEKDAYS, type Weekday } from '../../schemas/strategy.ts';
import { INDICATORS } from '../indicators/index.ts';
import type { Instrument } from '../lib/instruments.ts';

/**
 * p ≥ threshold → 1, p ≤ 1 − threshold → −1, else 0 (NaN → 0; at threshold 0.5, p = 0.5 is long).
 * Float32 probabilities (what the ONNX model gives) are compared with both bounds rounded to
 * float32, so p = 0.4f counts as ≤ 1 − 0.6 just as 0.6f counts as ≥ 0.6.
 */
export function toSignals(probaUp: Float32Array | Float64Array, threshold: number): Int8Array {
  if (!(threshold >= 0.5 && threshold <= 1)) throw new RangeError(`threshold must be in [0.5, 1], got ${threshold}`);
  const out = new Int8Array(probaUp.length);
  const f32 = probaUp instanceof Float32Array;
  const high = f32 ? Math.fround(threshold) : threshold;
  const low = f32 ? Math.fround(1 - threshold) : 1 - threshold;
  for (let i = 0; i < probaUp.length; i++) {
    const p = probaUp[i]!;
    out[i] = p >= high ? 1 : p <= low ? -1 : 0;
  }
  return out;
}

export interface EntryFilters {
  /** [startHour, endHour) UTC of the bar's open time; wraps past midnight when start > end; null = all hours. */
  sessionFilter: readonly [number, number] | null;
  /** Minimum NATR in percent: ATR(14) / close × 100 (Wilder ATR of the indicator registry). */
  minAtr: number | null;
  /** The trend_filter column's values per bar: longs only when close > it, shorts only when close < it. */
  trendColumn: Float64Array | Float32Array | null;
  /** The entry_filter column's values per bar: entries only where > 0 (NaN: none). */
  entryFilter?: Float64Array | Float32Array | null;
  /** UTC days of the bar's open time on which nothing opens (absent: every day). */
  skipDays?: readonly Weekday[];
  /** The exit_long / exit_short columns' values per bar: > 0 closes that side at the next open and opens none of it there. */
  exitLong?: Float64Array | Float32Array | null;
  exitShort?: Float64Array | Float32Array | null;
}

/** UTC weekday of an epoch-ms time as skip_days names it (1970-01-01 was a Thursday). */
export const weekdayOf = (ts: number): Weekday => WEEKDAYS[(Math.floor(ts / 86_400_000) + 3) % 7]!;

/** NATR(14) in percent per bar; NaN while the registry's ATR warms up. */
export function natr(bars: Pick<BarColumns, 'open' | 'high' | 'low' | 'close'>, period = 14): Float64Array {
  const [atr] = INDICATORS.atr.compute(bars, { period });
  const out = new Float64Array(bars.close.length);
  for (let i = 0; i < out.length; i++) out[i] = (atr![i]! / bars.close[i]!) * 100;
  return out;
}

/**
 * Per bar: bit 1 = a long may open, bit 2 = a short may open, given the filters of the bar's own
 * time and values; bit 4 / 8 = open longs / shorts close at the next open (exit columns). A bar where NATR is undefined (ATR warm-up) or the trend value is NaN allows
 * nothing under that filter. (The instrument is accepted for filters that may need it; none do yet.)
 */
export function entryMask(bars: Pick<BarColumns, 'ts' | 'open' | 'high' | 'low' | 'close'>, filters: EntryFilters, _instrument?: Instrument): Uint8Array {
  const n = bars.ts.length;
  const out = new Uint8Array(n).fill(BOTH_ALLOWED);
  const { sessionFilter, minAtr, trendColumn } = filters;
  if (sessionFilter) {
    const [start, end] = sessionFilter;
    const wraps = start > end;
    for (let i = 0; i < n; i++) {
      const h = Math.floor(bars.ts[i]! / 3_600_000) % 24;
      const inside = wraps ? h >= start || h < end : h >= start && h < end;
      if (!inside) out[i] = 0;
    }
  }
  if (minAtr !== null) {
    const v = natr(bars);
    for (let i = 0; i < n; i++) if (!(v[i]! >= minAtr)) out[i] = 0;
  }
  if (filters.entryFilter) {
    if (filters.entryFilter.length !== n) throw new RangeError(`entryMask: entry filter has ${filters.entryFilter.length} values for ${n} bars`);
    for (let i = 0; i < n; i++) if (!(filters.entryFilter[i]! > 0)) out[i] = 0;
  }
  if (filters.skipDays?.length) {
    const skip = new Set(filters.skipDays);
    for (let i = 0; i < n; i++) if (skip.has(weekdayOf(bars.ts[i]!))) out[i] = 0;
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
  for (const [column, exit, entry] of [[filters.exitLong, EXIT_LONG, LONG_ALLOWED], [filters.exitShort, EXIT_SHORT, SHORT_ALLOWED]] as const) {
    if (!column) continue;
    if (column.length !== n) throw new RangeError(`entryMask: exit column has ${column.length} values for ${n} bars`);
    for (let i = 0; i < n; i++) if (column[i]! > 0) out[i] = (out[i]! & ~entry) | exit;
  }
  return out;
}
