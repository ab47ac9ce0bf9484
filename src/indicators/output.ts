import type { IndicatorColumnsData, IndicatorFormat, IndicatorRowsData } from '../../schemas/indicators.ts';
import type { NamedColumns } from './compute.ts';

/**
 * JSON has no NaN: undefined values (warm-up) leave as null. Values are rounded to 10 decimal
 * places — far below any price's precision — which makes the text a third shorter and quicker
 * to print than full 17-digit doubles.
 */
export const servedValue = (v: number): number | null => (Number.isFinite(v) ? Math.round(v * 1e10) / 1e10 : null);

/**
 * Shapes computed columns for a response, skipping the first `from` bars (the extra warm-up bars
 * loaded before the requested ones). `timestamps` are aligned with the columns.
 */
export function formatIndicatorData(
  format: IndicatorFormat,
  timestamps: readonly string[],
  columns: NamedColumns,
  from = 0,
): IndicatorColumnsData | IndicatorRowsData {
  return format === 'rows' ? toRows(timestamps, columns, from) : toColumns(timestamps, columns, from);
}

export function toColumns(timestamps: readonly string[], columns: NamedColumns, from = 0): IndicatorColumnsData {
  const values: Record<string, (number | null)[]> = {};
  for (const [name, col] of Object.entries(columns)) {
    const out = new Array<number | null>(Math.max(0, col.length - from));
    for (let i = from; i < col.length; i++) out[i - from] = servedValue(col[i]!);
    values[name] = out;
  }
  return Object.assign({ timestamp: timestamps.slice(from) }, values);
}

export function toRows(timestamps: readonly string[], columns: NamedColumns, from = 0): IndicatorRowsData {
  const entries = Object.entries(columns);
  const rows: IndicatorRowsData = [];
  for (let i = from; i < timestamps.length; i++) {
    const values: Record<string, number | null> = {};
    for (const [name, col] of entries) values[name] = servedValue(col[i] ?? NaN);
    rows.push(Object.assign({ timestamp: timestamps[i]! }, values));
  }
  return rows;
}
