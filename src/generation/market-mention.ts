import { SYMBOLS, type Symbol, type Timeframe } from '../../schemas/common.ts';
import type { GenerateRequest, MarketGenerateRequest } from '../../schemas/generation.ts';
import { TEXT_FIELDS } from './offline/index.ts';
import { pairSlang } from './offline/pair-slang.ts';

/** Currencies of the symbols: "EUR/USD" and "eur usd" are read as EURUSD. */
const CCY = 'EUR|USD|GBP|JPY|CHF|AUD|NZD|CAD|BTC';

/** Ways traders write a timeframe, by timeframe. */
const TIMEFRAME_WORDS: ReadonlyArray<[Timeframe, RegExp]> = [
  ['1min', /\b(1|one)[\s-]?(m|min|mins|minute)\b|\bm1\b/i],
  ['5min', /\b(5|five)[\s-]?(m|min|mins|minute)\b|\bm5\b/i],
  ['15min', /\b(15|fifteen)[\s-]?(m|min|mins|minute)\b|\bm15\b/i],
  ['1h', /\b(1|one)[\s-]?(h|hr|hour)\b|\b60[\s-]?(m|min|mins|minute)\b|\bh1\b|\bh(?:ou)?rly\b/i],
];

/** Words that correct what was said before them. */
const CORRECTION = /\b(?:actually|make (?:it|that)|change (?:it|that) to|instead|rather|no wait|i mean|scratch that)\b/gi;

/**
 * The symbol and timeframe a prompt names ("GBP/USD on the hourly chart"), if any. The first
 * symbol mentioned wins; a timeframe is taken only when exactly one is named.
 */
export function marketMentioned(prompt: string): { symbol?: Symbol; timeframe?: Timeframe } {
  const out: { symbol?: Symbol; timeframe?: Timeframe } = {};
  // Nicknames and shorthands ("swissy", "gu 1h") as the pair's code; a pair with no bars here ("gopher") then matches no symbol.
  const slang = pairSlang(prompt).reverse();
  const compact = slang
    .reduce((text, p) => `${text.slice(0, p.at)}${p.pair}${text.slice(p.at + p.words.length)}`, prompt)
    .toUpperCase()
    // Bounded separators: an unbounded \s* on both sides of one is quadratic in a long run of spaces.
    .replace(new RegExp(`\\b(${CCY})(?:\\s{0,3}[/\\-_]\\s{0,3}|\\s{1,3})(${CCY})\\b`, 'g'), '$1$2');
  let first = Infinity;
  for (const s of SYMBOLS) {
    const at = compact.search(new RegExp(`\\b${s}\\b`));
    if (at >= 0 && at < first) [first, out.symbol] = [at, s];
  }
  const named = TIMEFRAME_WORDS.filter(([, re]) => re.test(prompt)).map(([tf]) => tf);
  if (named.length === 1) out.timeframe = named[0]!;
  else if (named.length > 1) {
    // A correction ("on the 1 min... actually make it the 5 min") names the one meant: the first after the last cue.
    const cue = [...prompt.matchAll(CORRECTION)].pop();
    if (cue) {
      const after = prompt.slice(cue.index + cue[0].length);
      const firstAfter = TIMEFRAME_WORDS.map(([tf, re]) => [tf, after.search(re)] as const)
        .filter(([, at]) => at >= 0)
        .sort((x, y) => x[1] - y[1])[0];
      if (firstAfter) out.timeframe = firstAfter[0];
    }
  }
  return out;
}

export const DEFAULT_SYMBOL: Symbol = 'EURUSD';
export const DEFAULT_TIMEFRAME: Timeframe = '15min';

/**
 * The one rule of every entry point that turns words into code (/generate, /generate/stream, the
 * MCP tool, /one_shot): a structured symbol or timeframe wins; else the one the text names; else
 * the default. A default is never "given": it does not beat the prose.
 */
export function withMarket(request: GenerateRequest): MarketGenerateRequest {
  // Every text field of the request, where a trader may name the market.
  const prose = TEXT_FIELDS.map((f) => request[f] ?? '').join('\n');
  const named = request.symbol && request.timeframe ? {} : marketMentioned(prose);
  return {
    ...request,
    symbol: request.symbol ?? named.symbol ?? DEFAULT_SYMBOL,
    timeframe: request.timeframe ?? named.timeframe ?? DEFAULT_TIMEFRAME,
  };
}
