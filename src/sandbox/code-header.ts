import { SYMBOLS, TIMEFRAMES, type Symbol, type Timeframe } from '../../schemas/common.ts';
import { DEFAULT_MARKET, type MarketSource, type MarketUsed } from '../../schemas/training.ts';
import { BadRequestError } from '../errors.ts';

/**
 * The header line our generators write at the top of strategy code, naming the market it was
 * written for: `# signalforge: symbol=EURUSD timeframe=15min`. A request that names no market
 * takes the header's; one for another symbol is refused (the code's thresholds and pip-scaled
 * features are that pair's).
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

/**
 * The market a request that takes code runs on, resolved once for /train, /optimize and one_shot:
 * each of symbol and timeframe is the request's, else the code header's, else `fallback` (the
 * default market). Refused (400) only when the request and the header both name a symbol and
 * they differ; a timeframe of the request's own wins over the header's (the code's features are
 * bar counts, valid on any timeframe; its pip-scaled thresholds are the symbol's).
 */
export function resolveMarket(
  request: { code: string; symbol?: Symbol | undefined; timeframe?: Timeframe | undefined },
  /** What the route does with the code, for the refusal: "train", "optimise". */
  verb: string,
  fallback: { symbol: Symbol; timeframe: Timeframe } = DEFAULT_MARKET,
): MarketUsed {
  const header = readCodeHeader(request.code);
  if (request.symbol && header.symbol && request.symbol !== header.symbol) {
    throw new BadRequestError(
      `symbol ${request.symbol} does not match the code, which was generated for ${header.symbol}: ${verb} it on ${header.symbol} (or leave symbol out: the header names it), or generate code for ${request.symbol}`,
    );
  }
  const from = (asked: unknown, headed: unknown): MarketSource => (asked ? 'request' : headed ? 'code header' : 'default');
  return {
    symbol: request.symbol ?? header.symbol ?? fallback.symbol,
    timeframe: request.timeframe ?? header.timeframe ?? fallback.timeframe,
    symbol_from: from(request.symbol, header.symbol),
    timeframe_from: from(request.timeframe, header.timeframe),
  };
}
