import { SYMBOLS, TIMEFRAMES, type Symbol, type Timeframe } from '../../schemas/common.ts';

/**
 * The header line our generators write at the top of strategy code, naming the market it was
 * written for: `# signalforge: symbol=EURUSD timeframe=15min`. Training refuses a request for
 * another symbol (the code's thresholds and pip-scaled features are that pair's).
 */
export const codeHeader = (symbol: Symbol, timeframe: Timeframe): string => `# signalforge: symbol=${symbol} timeframe=${timeframe}`;

const HEADER = /^#\s*signalforge:(.*)$/m;

/** What the header says; empty when the code has none (hand-written code binds to nothing). */
export function readCodeHeader(code: string): { symbol?: Symbol; timeframe?: Timeframe } {
  const line = HEADER.exec(code.slice(0, 2000))?.[1] ?? '';
  const out: { symbol?: Symbol; timeframe?: Timeframe } = {};
  const symbol = /\bsymbol=([A-Z]{6})\b/.exec(line)?.[1];
  const timeframe = /\btimeframe=(\w+)\b/.exec(line)?.[1];
  if (symbol && (SYMBOLS as readonly string[]).includes(symbol)) out.symbol = symbol as Symbol;
  if (timeframe && (TIMEFRAMES as readonly string[]).includes(timeframe)) out.timeframe = timeframe as Timeframe;
  return out;
}
