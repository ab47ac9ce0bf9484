/** lightweight-charts helpers: candles from the API's shapes, trade markers, dark theme. */
import { ColorType, createChart, type IChartApi, type SeriesMarker, type Time, type UTCTimestamp } from 'lightweight-charts';
import type { Candle } from '../../schemas/market.ts';
import type { Trade } from '../../schemas/backtest.ts';
import { call } from './api.ts';

export const toTime = (iso: string) => Math.floor(Date.parse(iso) / 1000) as UTCTimestamp;

export const UP = '#22c55e';
export const DOWN = '#ef4444';

export function makeChart(container: HTMLElement, height: number): IChartApi {
  return createChart(container, {
    height,
    autoSize: true,
    layout: { background: { type: ColorType.Solid, color: '#0b1220' }, textColor: '#cbd5e1', attributionLogo: false },
    grid: { vertLines: { color: '#1e293b' }, horzLines: { color: '#1e293b' } },
    timeScale: { timeVisible: true, secondsVisible: false, borderColor: '#334155' },
    rightPriceScale: { borderColor: '#334155' },
  });
}

/** Price precision of a symbol: 5 decimals, 3 for JPY pairs, 2 for BTCUSD. */
export function priceFormat(symbol: string) {
  const precision = symbol.endsWith('JPY') ? 3 : symbol === 'BTCUSD' ? 2 : 5;
  return { type: 'price' as const, precision, minMove: 10 ** -precision };
}

export const candleData = (candles: Candle[]) =>
  candles.map((c) => ({ time: toTime(c.timestamp), open: c.open, high: c.high, low: c.low, close: c.close }));

/** Entry (arrow, by side) and exit (circle, by result) of every trade. */
export function tradeMarkers(trades: Trade[]): SeriesMarker<Time>[] {
  const markers: SeriesMarker<Time>[] = [];
  for (const t of trades) {
    const long = t.side === 'long';
    markers.push({ time: toTime(t.entry_time), position: long ? 'belowBar' : 'aboveBar', shape: long ? 'arrowUp' : 'arrowDown', color: long ? UP : DOWN, text: long ? 'L' : 'S' });
    markers.push({ time: toTime(t.exit_time), position: long ? 'aboveBar' : 'belowBar', shape: 'circle', color: t.pnl >= 0 ? UP : DOWN, text: t.exit_reason === 'signal' ? '' : t.exit_reason });
  }
  return markers.sort((a, b) => (a.time as number) - (b.time as number));
}

const DAY_MS = 86_400_000;
const PAGE = 5000;
const MINUTES: Record<string, number> = { '1min': 1, '5min': 5, '15min': 15, '1h': 60 };
const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/**
 * Every bar from `from` to `to` (ISO). /ohlc serves at most 5,000 bars a request, so the span is
 * cut into runs of whole days that hold fewer than that, all fetched at once; a run that still
 * comes back full (never, for 24-hour days) is continued from its last bar.
 */
export async function loadCandles(symbol: string, timeframe: string, from: string, to: string): Promise<Candle[]> {
  const daysPerPage = Math.max(1, Math.floor(PAGE / (1440 / (MINUTES[timeframe] ?? 15))) - 1);
  const first = Date.parse(from.slice(0, 10));
  const last = Date.parse(to.slice(0, 10));
  const runs: [string, string][] = [];
  for (let t = first; t <= last; t += daysPerPage * DAY_MS) runs.push([day(t), day(Math.min(last, t + (daysPerPage - 1) * DAY_MS))]);
  const fetchRun = async ([start, end]: [string, string]): Promise<Candle[]> => {
    const { candles } = await call<{ candles: Candle[] }>('GET', `/api/v1/ohlc?symbol=${symbol}&timeframe=${timeframe}&start=${start}&end=${end}&limit=${PAGE}`);
    const tail = candles[candles.length - 1];
    if (candles.length < PAGE || !tail || tail.timestamp.slice(0, 10) >= end) return candles;
    const rest = await fetchRun([day(Date.parse(tail.timestamp.slice(0, 10)) + DAY_MS), end]);
    return [...candles, ...rest];
  };
  const pages = await Promise.all(runs.map(fetchRun));
  const out: Candle[] = [];
  for (const candles of pages) for (const c of candles) if (!out.length || c.timestamp > out[out.length - 1]!.timestamp) out.push(c);
  return out;
}
