/**
 * Hand-made markets for the engine tests: hourly EURUSD bars from Monday 2024-01-08 00:00 UTC
 * (New York on EST, so the 17:00 rollover is 22:00 UTC); 1 lot = 100,000 units, 1 pip = 10 USD.
 */
import { toBarColumns, type BarColumns, type EngineOptions } from '../../src/backtest/index.ts';
import { INSTRUMENTS } from '../../src/lib/instruments.ts';

export const H = 3_600_000;
export const T0 = Date.UTC(2024, 0, 8, 0); // Monday
export type Row = [open: number, high: number, low: number, close: number, spread?: number];

export const columns = (rows: Row[], start = T0, step = H): BarColumns =>
  toBarColumns(rows.map(([open, high, low, close, spread], i) => ({ ts: start + i * step, open, high, low, close, spread })));
export const flat = (p: number): Row => [p, p, p, p];

/** EURUSD hourly, both directions, one position, reverse, no levels, no costs; `over` changes any. */
export const options = (over: Partial<EngineOptions> = {}): EngineOptions => ({
  instrument: INSTRUMENTS.EURUSD,
  timeframeMs: H,
  direction: 'both',
  cooldown: 0,
  maxPositions: 1,
  onOpposite: 'reverse',
  stop: null,
  take: null,
  lotSize: 1,
  commissionPerLot: 0,
  swapLong: 0,
  swapShort: 0,
  fillAtBidAsk: false,
  ...over,
});
