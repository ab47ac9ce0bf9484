import type { IndicatorRequest } from '../../schemas/indicators.ts';
import { INDICATORS } from './registry.ts';
import type { Ohlc } from './types.ts';

/** Computed columns by column name, in list order. */
export type NamedColumns = Record<string, Float64Array>;

/** Computes every column of every listed indicator; each is NaN for its indicator's warm-up bars. */
export function computeIndicators(ohlc: Ohlc, list: readonly IndicatorRequest[]): NamedColumns {
  const n = ohlc.close.length;
  if (ohlc.open.length !== n || ohlc.high.length !== n || ohlc.low.length !== n) {
    throw new RangeError('open, high, low and close must have the same length');
  }
  const out: NamedColumns = {};
  for (const { name, params } of list) {
    const indicator = INDICATORS[name];
    const names = indicator.columns(params);
    indicator.compute(ohlc, params).forEach((values, i) => {
      out[names[i]!] = values;
    });
  }
  return out;
}

/** Feature column names the list produces, in order. */
export function featureColumns(list: readonly IndicatorRequest[]): string[] {
  return list.flatMap(({ name, params }) => INDICATORS[name].columns(params));
}

/** The longest warm-up in the list: bars to load before the first one that must be exact. */
export function warmupBars(list: readonly IndicatorRequest[]): number {
  return list.reduce((max, { name, params }) => Math.max(max, INDICATORS[name].warmup(params)), 0);
}

/**
 * Python statements adding the list's columns to `df`, for the body of
 * `feature_engineering(df, close, open_, high, low)`; they need `import numpy as np` and
 * `import pandas as pd`. Unindented: indent each line to embed.
 */
export function pandasCode(list: readonly IndicatorRequest[]): string {
  return list.map(({ name, params }) => INDICATORS[name].pandas(params)).join('\n');
}

/** Converts bars (oldest first) into the OHLC columns `computeIndicators` takes. */
export function ohlcColumns(bars: readonly { open: number; high: number; low: number; close: number }[]): Ohlc {
  const col = (key: 'open' | 'high' | 'low' | 'close') => Float64Array.from(bars, (b) => b[key]);
  return { open: col('open'), high: col('high'), low: col('low'), close: col('close') };
}
