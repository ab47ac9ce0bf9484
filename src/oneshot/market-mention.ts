import { SYMBOLS, type Symbol, type Timeframe } from '../../schemas/common.ts';

/** Currencies of the symbols: "EUR/USD" and "eur usd" are read as EURUSD. */
const CCY = 'EUR|USD|GBP|JPY|CHF|AUD|NZD|CAD|BTC';

/** Ways traders write a timeframe, by timeframe. */
const TIMEFRAME_WORDS: ReadonlyArray<[Timeframe, RegExp]> = [
  ['1min', /\b(1|one)[\s-]?(m|min|mins|minute)\b|\bm1\b/i],
  ['5min', /\b(5|five)[\s-]?(m|min|mins|minute)\b|\bm5\b/i],
  ['15min', /\b(15|fifteen)[\s-]?(m|min|mins|minute)\b|\bm15\b/i],
  ['1h', /\b(1|one)[\s-]?(h|hr|hour)\b|\bh1\b|\bhourly\b/i],
];

/**
 * The symbol and timeframe a one-shot prompt names ("GBP/USD on the hourly chart"), if any.
 * The first symbol mentioned wins; a timeframe is taken only when exactly one is named.
 */
export function marketMentioned(prompt: string): { symbol?: Symbol; timeframe?: Timeframe } {
  const out: { symbol?: Symbol; timeframe?: Timeframe } = {};
  const compact = prompt.toUpperCase().replace(new RegExp(`\\b(${CCY})\\s*[/\\-_ ]\\s*(${CCY})\\b`, 'g'), '$1$2');
  let first = Infinity;
  for (const s of SYMBOLS) {
    const at = compact.search(new RegExp(`\\b${s}\\b`));
    if (at >= 0 && at < first) [first, out.symbol] = [at, s];
  }
  const named = TIMEFRAME_WORDS.filter(([, re]) => re.test(prompt)).map(([tf]) => tf);
  if (named.length === 1) out.timeframe = named[0]!;
  return out;
}
