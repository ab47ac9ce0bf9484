/**
 * Bars as columns, oldest first, all the same length — the one shape every stage reads: the
 * sandbox gets the OHLC part, the engine the bid prices and the opening spread, the store and the
 * cache add volume, tick counts and sources (`SeriesColumns` in src/store).
 */

/** Open time (epoch ms UTC) and bid OHLC: what a strategy's features are computed from. */
export interface OhlcColumns {
  ts: Float64Array;
  open: Float64Array;
  high: Float64Array;
  low: Float64Array;
  close: Float64Array;
}

/** OHLC plus `spread` = ask − bid at the bar open (the spread a fill at that open pays). */
export interface BarColumns extends OhlcColumns {
  spread: Float64Array;
}

/** A view of the columns [from, to), sharing their memory. */
export function sliceBars<T extends BarColumns>(cols: T, from: number, to: number): BarColumns {
  return {
    ts: cols.ts.subarray(from, to),
    open: cols.open.subarray(from, to),
    high: cols.high.subarray(from, to),
    low: cols.low.subarray(from, to),
    close: cols.close.subarray(from, to),
    spread: cols.spread.subarray(from, to),
  };
}

/** Bars as rows (e.g. BarMessage) → BarColumns; spread defaults to 0 where a row has none. */
export function toBarColumns(
  rows: readonly { ts: number; open: number; high: number; low: number; close: number; spread?: number }[],
): BarColumns {
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
