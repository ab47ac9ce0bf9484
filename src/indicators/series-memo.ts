import type { IndicatorRequest } from '../../schemas/indicators.ts';
import { servedValue } from './output.ts';
import { INDICATORS } from './registry.ts';
import type { Ohlc } from './types.ts';

/** What the memo needs of a bar series: its length, its columns, and a version that changes
 *  whenever a bar other than a new last one is written (older values may then change). */
export interface MemoSeries {
  readonly length: number;
  readonly version: number;
  columns(): Ohlc;
}

interface Column {
  values: Float64Array;
  /** Each value's JSON text, made when first served (as `servedValue` rounds it). */
  text: Array<string | undefined>;
}

interface Memo {
  version: number;
  /** Per indicator-with-params key: its columns and how many bars they cover. */
  groups: Map<string, { names: string[]; computed: number }>;
  columns: Map<string, Column>;
}

const memos = new WeakMap<MemoSeries, Memo>();
/** Indicator-with-params groups kept per series: any period may be asked for, memory may not grow with them. */
const MAX_GROUPS = 32;

const json = (v: number): string => String(servedValue(v));

/**
 * Indicator values of a whole series, computed once over its full history and then extended
 * bar by bar as the series grows (each extension recomputes only the warm-up tail), with each
 * value's JSON text kept once made. A request for the latest bars then reads and joins, instead
 * of recomputing and reprinting 70,000 numbers.
 */
export function indicatorColumns(series: MemoSeries, list: readonly IndicatorRequest[]): Map<string, Column> {
  let memo = memos.get(series);
  if (!memo || memo.version !== series.version || memo.groups.size > MAX_GROUPS) {
    memo = { version: series.version, groups: new Map(), columns: new Map() };
    memos.set(series, memo);
  }
  const n = series.length;
  const ohlc = series.columns();
  const out = new Map<string, Column>();
  for (const { name, params } of list) {
    const indicator = INDICATORS[name];
    const key = `${name}:${JSON.stringify(params)}`;
    const names = indicator.columns(params);
    const group = memo.groups.get(key) ?? { names, computed: 0 };
    if (group.computed < n) {
      // Recompute from far enough back that the first new value is exact.
      const from = group.computed === 0 ? 0 : Math.max(0, group.computed - indicator.warmup(params) - 1);
      const window: Ohlc = {
        open: ohlc.open.subarray(from, n),
        high: ohlc.high.subarray(from, n),
        low: ohlc.low.subarray(from, n),
        close: ohlc.close.subarray(from, n),
      };
      const fresh = indicator.compute(window, params);
      names.forEach((column, i) => {
        let col = memo!.columns.get(column);
        if (!col || group.computed === 0) col = { values: new Float64Array(Math.ceil(n * 1.25) + 64), text: [] };
        if (col.values.length < n) {
          // Grow by half again, so a series growing a bar at a time copies rarely.
          const grown = new Float64Array(Math.ceil(n * 1.5));
          grown.set(col.values.subarray(0, group.computed));
          col.values = grown;
        }
        col.values.set(fresh[i]!.subarray(group.computed - from), group.computed);
        memo!.columns.set(column, col);
      });
      group.computed = n;
      memo.groups.set(key, group);
    }
    for (const column of names) out.set(column, memo.columns.get(column)!);
  }
  return out;
}

/** The `columns`-format JSON text of rows [from, to) of a memoised column. */
export function columnJson(column: Column, from: number, to: number): string {
  const parts = new Array<string>(to - from);
  for (let i = from; i < to; i++) parts[i - from] = column.text[i] ??= json(column.values[i]!);
  return `[${parts.join(',')}]`;
}
