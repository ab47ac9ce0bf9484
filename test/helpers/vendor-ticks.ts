import type { Symbol } from '../../schemas/common.ts';

/** The vendors and symbols with real ticks (and their own M1/S1 bars) in ../shared/data/fx. */
export const VENDOR_TICK_CASES: ReadonlyArray<{ vendor: 'oanda' | 'fxcm'; symbol: Symbol }> = [
  { vendor: 'oanda', symbol: 'EURUSD' },
  { vendor: 'oanda', symbol: 'NZDUSD' },
  { vendor: 'fxcm', symbol: 'EURUSD' },
  { vendor: 'fxcm', symbol: 'NZDUSD' },
];
