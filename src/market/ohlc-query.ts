import { BadRequestError } from '../errors.ts';
import type { MarketQuery } from '../../schemas/market.ts';
import type { BarCache } from './bar-cache.ts';
import type { BarSeries } from './bar-series.ts';
import { sourceMix } from './source-mix.ts';

const DAY_MS = 86_400_000;

/** [from, to) in epoch ms from the query's inclusive UTC days; 400 when they make no sense. */
export function queryWindow(query: Pick<MarketQuery, 'start' | 'end'>): { fromMs: number; toMs: number } {
  const fromMs = query.start ? Date.parse(`${query.start}T00:00:00Z`) : Number.NEGATIVE_INFINITY;
  const toMs = query.end ? Date.parse(`${query.end}T00:00:00Z`) + DAY_MS : Number.POSITIVE_INFINITY;
  if (fromMs >= toMs) throw new BadRequestError(`start (${query.start}) is after end (${query.end}): swap them`);
  return { fromMs, toMs };
}

/**
 * Candles of a series within the query's days: with a `start`, the first `limit` bars from
 * there (page forward by moving start); without one, the latest `limit` bars up to `end`.
 * Returns the response as JSON text (an `OhlcResponse`), assembled from per-bar candle JSON.
 */
export async function queryOhlcJson(cache: BarCache, query: MarketQuery): Promise<string> {
  return ohlcJson(await cache.get(query.symbol, query.timeframe), query);
}

/** queryOhlcJson on a series already in hand. */
export function ohlcJson(series: BarSeries, query: MarketQuery): string {
  const { fromMs, toMs } = queryWindow(query);
  let lo = series.lowerBound(fromMs);
  let hi = series.lowerBound(toMs);
  if (query.start) hi = Math.min(hi, lo + query.limit);
  else lo = Math.max(lo, hi - query.limit);
  const candles = new Array<string>(hi - lo);
  for (let i = lo; i < hi; i++) candles[i - lo] = series.candle(i);
  const source = sourceMix(series.columns().source, lo, hi);
  const head = { symbol: query.symbol, timeframe: query.timeframe, source, count: candles.length };
  return `${JSON.stringify(head).slice(0, -1)},"candles":[${candles.join(',')}]}`;
}
