/**
 * Traders' names for currency pairs: the nicknames (cable, fiber, swissy, gopher, chunnel…),
 * the currency words ("dollar yen", "the euro") and the two-to-four-letter shorthands (EU, GU,
 * UJ, UCAD). Read on the raw text (before spelling repair, which would make "chunnel" a
 * "channel"). A shorthand collides with English words ("au", "nu", "eg"), so it counts only in
 * a pair-like place: the text's first word, or beside a timeframe ("gu 1h", "on uj h1"), or
 * after a trade verb ("long eu", "trade gj"). Pairs the service has no bars for (GBPJPY,
 * EURGBP…) are found too, so they can be named in a remark, never silently replaced.
 */

/** Nicknames safe anywhere: no English word collides with them. */
const NICKNAMES: ReadonlyArray<[RegExp, string]> = [
  [/\bcable\b/, 'GBPUSD'],
  [/\bfib(?:er|re)\b/, 'EURUSD'],
  [/\baussie(?: dollar)?\b/, 'AUDUSD'],
  [/\bkiwi\b/, 'NZDUSD'],
  [/\bloonie\b/, 'USDCAD'],
  [/\bswiss(?:y|ie)\b/, 'USDCHF'],
  [/\bninja\b/, 'USDJPY'],
  [/\b(?:gopher|guppy|geppy)\b/, 'GBPJPY'],
  [/\b(?:yuppy|euppy)\b/, 'EURJPY'],
  [/\bchunnel\b/, 'EURGBP'],
  [/\b(?:bitcoin|btc)\b/, 'BTCUSD'],
  [/\b(?:dollar|usd) ?(?:yen|jpy)\b/, 'USDJPY'],
  [/\b(?:dollar|usd) ?(?:swiss|swissie|franc)\b/, 'USDCHF'],
  [/\b(?:dollar|usd) ?(?:cad|loonie|canada)\b/, 'USDCAD'],
  [/\b(?:euro|eur) ?(?:dollar|usd)\b/, 'EURUSD'],
  [/\b(?:pound|sterling|gbp) ?(?:dollar|usd)\b/, 'GBPUSD'],
  [/\b(?:pound|sterling) ?(?:yen|jpy)\b/, 'GBPJPY'],
  [/\b(?:euro|eur) ?(?:yen|jpy)\b/, 'EURJPY'],
  [/\b(?:euro|eur) ?(?:pound|sterling|gbp)\b/, 'EURGBP'],
];

/** Shorthands that are pairs only in a pair-like place. */
const SHORTHANDS: Record<string, string> = {
  eu: 'EURUSD',
  gu: 'GBPUSD',
  uj: 'USDJPY',
  au: 'AUDUSD',
  nu: 'NZDUSD',
  uc: 'USDCAD',
  ucad: 'USDCAD',
  uchf: 'USDCHF',
  gj: 'GBPJPY',
  ej: 'EURJPY',
  eg: 'EURGBP',
  yen: 'USDJPY',
  // A bare currency of which the service has one pair ("aud 1h"): that pair.
  aud: 'AUDUSD',
  nzd: 'NZDUSD',
  cad: 'USDCAD',
  chf: 'USDCHF',
};
const SHORT = Object.keys(SHORTHANDS).join('|');
/** A chart period right after the pair: "gu 1h", "uj h1", "eu 15m", "yen hourly". */
const PERIOD_AFTER = String.raw`(?=[\s,:]{1,3}(?:on (?:the )?)?(?:\d{1,2} ?(?:m|min|mins|minutes?|h|hr|hrs|hours?)\b|[mh]\d{1,2}\b|hourly\b|daily\b|(?:1 )?hour\b|chart\b|scalp))`;
const PLACES = [
  new RegExp(String.raw`^\s*(${SHORT})\b(?=[\s,:.]|$)`, 'g'),
  new RegExp(String.raw`\b(${SHORT})\b${PERIOD_AFTER}`, 'g'),
  new RegExp(
    String.raw`(?<=\b(?:on|trade|trading|long|short|buy|buying|sell|selling|scalp|scalping) (?:the )?)(${SHORT})\b(?! (?:and|or|is|are|was)\b)`,
    'g',
  ),
];

/** The words of a pair named by slang, as a regex source ("long kiwi", "short the aussie": the side as a verb). */
export const PAIR_SLANG_WORDS = `(?:cable|fib(?:er|re)|aussie|kiwi|loonie|swiss(?:y|ie)|ninja|gopher|guppy|geppy|yuppy|euppy|chunnel|bitcoin|btc|yen|euro|pound|sterling|${SHORT})`;

export interface PairNamed {
  pair: string;
  at: number;
  words: string;
}

/** Every pair a text names by a nickname or shorthand, in text order. */
export function pairSlang(text: string): PairNamed[] {
  const lower = text.toLowerCase();
  const out: PairNamed[] = [];
  for (const [re, pair] of NICKNAMES) {
    for (const m of lower.matchAll(new RegExp(re.source, 'g'))) out.push({ pair, at: m.index, words: m[0] });
  }
  for (const re of PLACES) {
    for (const m of lower.matchAll(re)) {
      const at = m.index + m[0].indexOf(m[1]!);
      // Inside a nickname already read ("dollar yen"): the same pair.
      if (!out.some((p) => at >= p.at && at < p.at + p.words.length)) out.push({ pair: SHORTHANDS[m[1]!]!, at, words: m[1]! });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}
