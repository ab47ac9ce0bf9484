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
    markers.push({ time: toTime(t.exit_time), position: long ? 'aboveBar' : 'belowBar', shape: 'circle', color: t.pnl >= 0 ? UP : DOWN, text: t.exit_reason });
  }
  return markers.sort((a, b) => (a.time as number) - (b.time as number));
}

const DAY_MS = 86_400_000;
const PAGE = 5000;

/** Every bar from `from` to `to` (ISO), paging /ohlc forward by day (5,000 bars a request). */
export async function loadCandles(symbol: string, timeframe: string, from: string, to: string): Promise<Candle[]> {
  const out: Candle[] = [];
  const end = to.slice(0, 10);
  const last = Date.parse(to);
  let start = from.slice(0, 10);
  for (let guard = 0; guard < 200; guard++) {
    const page = await call<{ candles: Candle[] }>('GET', `/api/v1/ohlc?symbol=${symbol}&timeframe=${timeframe}&start=${start}&end=${end}&limit=${PAGE}`);
    const lastSeen = out.length ? Date.parse(out[out.length - 1]!.timestamp) : -Infinity;
    for (const c of page.candles) if (Date.parse(c.timestamp) > lastSeen) out.push(c);
    const tail = out[out.length - 1];
    if (page.candles.length < PAGE || !tail || Date.parse(tail.timestamp) >= last) break;
    const next = new Date(Date.parse(tail.timestamp.slice(0, 10)) + (start === tail.timestamp.slice(0, 10) ? DAY_MS : 0)).toISOString().slice(0, 10);
    start = next;
  }
  return out;
}
