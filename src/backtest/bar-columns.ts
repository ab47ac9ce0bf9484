import type { BarColumns } from './types.ts';

/** Bars as rows (e.g. BarMessage) → BarColumns; spread defaults to 0 where a row has none. */
export function toBarColumns(rows: readonly { ts: number; open: number; high: number; low: number; close: number; spread?: number }[]): BarColumns {
  const n = rows.length;
  const cols: BarColumns = {
    ts: new Float64Array(n),
    open: new Float64Array(n),
    high: new Float64Array(n),
    low: new Float64Array(n),
    close: new Float64Array(n),
    spread: new Float64Array(n),
  };
  rows.forEach((r, i) => {
    cols.ts[i] = r.ts;
    cols.open[i] = r.open;
    cols.high[i] = r.high;
    cols.low[i] = r.low;
    cols.close[i] = r.close;
    cols.spread[i] = r.spread ?? 0;
  });
  return cols;
}
