import { SYMBOLS, type Symbol } from '../../schemas/common.ts';

/** What the platform knows about each instrument. */
export interface Instrument {
  symbol: Symbol;
  base: string;
  quote: string;
  /** 0.0001, or 0.01 for JPY-quoted pairs (and 1 for BTCUSD, quoted in dollars). */
  pipSize: number;
  /** Price decimals quoted by the market. */
  digits: number;
  /** Whether it trades through the weekend (crypto) or closes Friday 22:00 → Sunday 22:00 UTC. */
  weekends: boolean;
  /** Synthetic generator: a realistic price level, annualised volatility, typical spread in pips. */
  synthetic: { price: number; annualVol: number; spreadPips: number };
}

const fx = (symbol: Symbol, price: number, annualVol: number, spreadPips: number): Instrument => {
  const quote = symbol.slice(3);
  const jpy = quote === 'JPY';
  return {
    symbol,
    base: symbol.slice(0, 3),
    quote,
    pipSize: jpy ? 0.01 : 0.0001,
    digits: jpy ? 3 : 5,
    weekends: false,
    synthetic: { price, annualVol, spreadPips },
  };
};

export const INSTRUMENTS: Record<Symbol, Instrument> = {
  EURUSD: fx('EURUSD', 1.085, 0.07, 0.6),
  GBPUSD: fx('GBPUSD', 1.27, 0.08, 0.9),
  USDJPY: fx('USDJPY', 151.5, 0.09, 0.8),
  USDCHF: fx('USDCHF', 0.885, 0.07, 1.1),
  AUDUSD: fx('AUDUSD', 0.655, 0.1, 0.8),
  NZDUSD: fx('NZDUSD', 0.602, 0.1, 1.3),
  USDCAD: fx('USDCAD', 1.365, 0.06, 1.2),
  BTCUSD: {
    symbol: 'BTCUSD',
    base: 'BTC',
    quote: 'USD',
    pipSize: 1,
    digits: 2,
    weekends: true,
    synthetic: { price: 62_000, annualVol: 0.55, spreadPips: 12 },
  },
};

export const instrument = (symbol: Symbol): Instrument => INSTRUMENTS[symbol];
export { SYMBOLS };
