/**
 * Text preparation for the offline parser: normalisation (case, punctuation, number words,
 * spacing between numbers and units), spelling repair against the parser's vocabulary, clause
 * splitting and the lexer that turns a clause into tokens.
 */

/** The words the parsers look for; misspellings within a small edit distance are mapped to them. */
const VOCABULARY = [
  'bollinger',
  'bands',
  'band',
  'stochastic',
  'stochastics',
  'oscillator',
  'exponential',
  'simple',
  'weighted',
  'moving',
  'average',
  'averages',
  'relative',
  'strength',
  'index',
  'convergence',
  'divergence',
  'histogram',
  'crossing',
  'crosses',
  'crossover',
  'crossed',
  'oversold',
  'overbought',
  'session',
  'sessions',
  'london',
  'asian',
  'tokyo',
  'sydney',
  'overlap',
  'european',
  'cooldown',
  'position',
  'positions',
  'reverse',
  'opposite',
  'random',
  'forest',
  'gradient',
  'boosting',
  'boosted',
  'extra',
  'trees',
  'logistic',
  'regression',
  'adaboost',
  'xgboost',
  'confidence',
  'confident',
  'probability',
  'threshold',
  'volatility',
  'volatile',
  'trend',
  'profit',
  'target',
  'pips',
  'percent',
  'dollars',
  'signal',
  'signals',
  'candles',
  'candle',
  'hours',
  'minutes',
  'shorts',
  'longs',
  'short',
  'above',
  'below',
  'under',
  'between',
  'period',
  'periods',
  'lower',
  'upper',
  'middle',
  'sigma',
  'deviation',
  'deviations',
  'standard',
  'positive',
  'negative',
  'turning',
  'maximum',
  'minimum',
  'predict',
  'forecast',
  'horizon',
  'outside',
  'inside',
  'breakout',
  'breakouts',
  'momentum',
  'reversion',
  'scalping',
  'scalper',
  'estimators',
  'learning',
  'depth',
  'filter',
  'direction',
  'directions',
  'stop',
  'loss',
  'take',
  'trailing',
  'buying',
  'selling',
  'greater',
  'exceeds',
  'touches',
  'breaks',
  'following',
  'conservative',
  'aggressive',
  'trades',
  'trade',
  'trading',
  'entries',
  'concurrent',
  'simultaneous',
  'wait',
  'pause',
  'strategy',
  'only',
  'close',
  'closes',
  'price',
  'channel',
  'donchian',
  'percentage',
  'multiplier',
  'length',
  'lookback',
  'keltner',
  'ichimoku',
  'supertrend',
  'parabolic',
  'williams',
  'pivot',
  'pivots',
  'engulfing',
  'directional',
  'commodity',
  'regime',
  'zscore',
  'tenkan',
  'kijun',
  'chikou',
  'average',
  'highest',
  'lowest',
  'friday',
  'fridays',
  'monday',
  'mondays',
  'tuesday',
  'wednesday',
  'thursday',
] as const;

/** Words that are right as written although they are one edit from a vocabulary word. */
const KEEP = new Set([
  'along',
  'lone',
  'long',
  'cross',
  'crossing',
  'lose',
  'losses',
  'over',
  'hold',
  'then',
  'than',
  'when',
  'with',
  'what',
  'shot',
  'sort',
  'shirt',
  'store',
  'stock',
  'stops',
  'stopped',
  'signed',
  'single',
  'bound',
  'bounds',
  'taken',
  'takes',
  'target',
  'targets',
  'trader',
  'traders',
  'traded',
  'tread',
  'tried',
  'index',
  'indexes',
  'model',
  'models',
  'modal',
  'level',
  'levels',
  'lever',
  'leverage',
  'below',
  'above',
  'abode',
  'hour',
  'your',
  'four',
  'pour',
  'tour',
  'hours',
  'pips',
  'pipe',
  'tips',
  'lips',
  'line',
  'lines',
  'fine',
  'mine',
  'nine',
  'reverse',
  'revert',
  'reverts',
  'reverted',
  'reversal',
  'reversals',
  'session',
  'lesson',
  'filter',
  'filters',
  'fitter',
  'filled',
  'depth',
  'month',
  'months',
  'ratio',
  'ratios',
  'radio',
  'after',
  'later',
  'water',
  'trend',
  'trends',
  'tends',
  'spend',
  'prices',
  'prince',
  'places',
  'placed',
  'bands',
  'hands',
  'bonds',
  'banks',
  'bank',
  'candles',
  'handles',
  'handle',
  'scalper',
  'scalpers',
  'scalping',
  'scaling',
  'profits',
  'prefix',
  'periods',
  'perils',
  'middle',
  'riddle',
  'simple',
  'sample',
  'samples',
  'upper',
  'super',
  'paper',
  'lower',
  'power',
  'tower',
  'mower',
  'lowers',
  'powers',
  'volatile',
  'positive',
  'position',
  'positions',
  'posting',
  'within',
  'without',
  'closes',
  'closed',
  'closer',
  'closet',
  'clones',
  'choose',
  'states',
  'status',
  'stats',
  'strong',
  'string',
  'length',
  'lengths',
  'trades',
  'grades',
  'trace',
  'track',
  'tracks',
  'entry',
  'entries',
  'enters',
  'markets',
  'market',
  'marker',
  'weekly',
  'weekend',
  'daily',
  'trees',
  'three',
  'there',
  'these',
  'those',
  'forest',
  'forests',
  'fastest',
  'slower',
  'slowest',
  'faster',
  'minute',
  'minutes',
  'minus',
  'minimum',
  'maximum',
  'stochk',
  'stochd',
  'percentb',
  'newyork',
  'sells',
  'prize',
  'states',
  'death',
  'golden',
  'hands',
  'bonds',
  'banks',
  'bends',
  'lands',
  'stake',
  'grade',
  'cause',
  'chose',
  'clone',
  'pride',
  'prime',
  'loser',
  'losers',
  'lover',
  'sport',
  'shoot',
  'songs',
  'lungs',
  'yours',
  'tours',
  'tries',
  'sports',
  'reversing',
  'reversed',
  'reverses',
  'earning',
  'earnings',
  'leaning',
  'filler',
  'training',
  'trainer',
  'telling',
  'entities',
  'simply',
  'burning',
  'tuning',
  'stigma',
  // Pair nicknames (pair-slang.ts): "chunnel" is not a channel.
  'chunnel',
  'swissy',
  'swissie',
  'gopher',
  'guppy',
  'geppy',
  'yuppy',
  'euppy',
  'loonie',
  'aussie',
  'cable',
]);

/** Explicit repairs the edit distance would miss or get wrong. */
const TYPOS: Record<string, string> = {
  mcad: 'macd',
  macds: 'macd',
  rsis: 'rsi',
  emas: 'ema',
  smas: 'sma',
  wmas: 'wma',
  atrs: 'atr',
  bbs: 'bb',
  stoc: 'stoch',
  stocastic: 'stochastic',
  stochastik: 'stochastic',
  bolinger: 'bollinger',
  bollinguer: 'bollinger',
  bolinguer: 'bollinger',
  bolllinger: 'bollinger',
  boll: 'bollinger',
  xgb: 'xgboost',
  xgbclassifier: 'xgboost',
  randomforest: 'random forest',
  randomforestclassifier: 'random forest',
  extratrees: 'extra trees',
  extratreesclassifier: 'extra trees',
  gradientboosting: 'gradient boosting',
  gradientboostingclassifier: 'gradient boosting',
  logisticregression: 'logistic regression',
  adaboostclassifier: 'adaboost',
  cooldown: 'cooldown',
  cooloff: 'cooldown',
  stoploss: 'stop loss',
  takeprofit: 'take profit',
  sl: 'stop loss',
  tp: 'take profit',
  ny: 'newyork',
  nyc: 'newyork',
  lon: 'london',
  ldn: 'london',
  asia: 'asian',
  pip: 'pips',
  pipettes: 'pips',
  mins: 'minutes',
  hrs: 'hours',
  hr: 'hours',
  shrot: 'short',
  lnog: 'long',
  oversould: 'oversold',
  overbougth: 'overbought',
  overbough: 'overbought',
  oversoled: 'oversold',
  crossess: 'crosses',
  crosover: 'crossover',
  crossunder: 'crosses below',
  crossover: 'crossover',
  blw: 'below',
  btw: 'between',
  sel: 'sell',
  bellow: 'below',
  belw: 'below',
  abov: 'above',
  abv: 'above',
  undr: 'under',
  ovr: 'over',
  wen: 'when',
  onyl: 'only',
  olny: 'only',
  histo: 'histogram',
  hist: 'histogram',
  confidance: 'confidence',
  probabilty: 'probability',
  ma: 'ma',
  longs: 'longs',
  shorts: 'shorts',
  usd: 'dollars',
  bucks: 'dollars',
  dollar: 'dollars',
  percents: 'percent',
  pct: 'percent',
  candels: 'candles',
  candle: 'candles',
  bar: 'bars',
  stdev: 'std',
  stddev: 'std',
};

const MAX_CACHE = 10_000;
const repairs = new Map<string, string>();

/** Damerau (optimal string alignment) distance, bounded: returns > max as soon as it must be. */
function distance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i++) rows.push([i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    let best = Infinity;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
      best = Math.min(best, d);
    }
    if (best > max) return max + 1;
  }
  return rows[a.length]![b.length]!;
}

const VOCAB_SET = new Set<string>(VOCABULARY);

/** The vocabulary word a misspelt word stands for (edit distance 1 from 5 letters, 2 from 8), or itself. */
export function repairWord(word: string): string {
  const typo = TYPOS[word];
  if (typo !== undefined) return typo;
  if (word.length < 5 || VOCAB_SET.has(word) || KEEP.has(word) || /\d/.test(word)) return word;
  const cached = repairs.get(word);
  if (cached !== undefined) return cached;
  const max = word.length >= 8 ? 2 : 1;
  let best = word;
  let bestDistance = max + 1;
  for (const v of VOCABULARY) {
    const d = distance(word, v, max);
    if (d < bestDistance) [best, bestDistance] = [v, d];
  }
  if (repairs.size < MAX_CACHE) repairs.set(word, best);
  return best;
}

const NUMBER_WORDS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
  hundred: 100,
  couple: 2,
  single: 1,
  double: 2,
  twice: 2,
  half: 0.5,
};

/**
 * Lower case, plain ASCII punctuation, number words as digits, units split from their numbers
 * (`20pips` → `20 pips`, `$50` → `$ 50`), hyphens between words as spaces, misspellings repaired.
 */
export function normalize(input: string): string {
  let s = input.normalize('NFKC').toLowerCase();
  s = s
    .replace(/[\u2010-\u2015\u2212]/g, '-')
    .replace(/[\u2018\u2019\u201a\u201b`]/g, "'")
    .replace(/[\u201c\u201d\u201e]/g, '"')
    // Arrows ("idea -> EMA cross") are punctuation, not a comparison.
    .replace(/-+>|=>|\u2192/g, ' : ')
    .replace(/\u2264/g, '<=')
    .replace(/\u2265/g, '>=')
    .replace(/[^\x20-\x7e]+/g, ' ')
    // No amount has more than 6 digits; longer runs would only make the number patterns slow.
    .replace(/\d{7,}/g, (run) => run.slice(0, 6));
  s = s
    .replace(/%\s*k\b/g, ' stochk ')
    .replace(/%\s*d\b/g, ' stochd ')
    .replace(/%\s*b\b/g, ' percentb ')
    .replace(/\bwilliams?'?s?\s*%\s*r\b|%\s*r\b/g, ' willr ');
  s = s.replace(/\b(an?|one)\s+(hour|day|minute|bar|candle)\b/g, '1 $2');
  s = s.replace(
    /\b(twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)[\s-](one|two|three|four|five|six|seven|eight|nine)\b/g,
    (_, t: string, u: string) => String(NUMBER_WORDS[t]! + NUMBER_WORDS[u]!),
  );
  s = s.replace(/\b(one|two|three|four|five|six|seven|eight|nine)\s+hundred\b/g, (_, u: string) => String(NUMBER_WORDS[u]! * 100));
  s = s.replace(/\b[a-z]+\b/g, (w) =>
    w in NUMBER_WORDS && w !== 'half' && w !== 'single' && w !== 'double' && w !== 'twice' && w !== 'couple' ? String(NUMBER_WORDS[w]) : w,
  );
  // "one and a half atr": 1.5.
  s = s.replace(/\b(\d+) and a half\b/g, (_, n: string) => String(Number(n) + 0.5));
  // "below minus one hundred", "plus 100": a level's sign in words.
  s = s.replace(/\b(?:minus|negative)\s+(?=\d)/g, '-').replace(/\bplus\s+(?=\d)/g, '+');
  s = s.replace(/(\d)([a-z$%])/g, '$1 $2').replace(/([a-z$])(\d)/g, '$1 $2');
  s = s
    .replace(/\$/g, ' $ ')
    .replace(/%/g, ' % ')
    .replace(/([<>]?=)/g, ' $1 ')
    .replace(/([<>])(?!=)/g, ' $1 ');
  // "mon-thu": a range of days, before hyphens between words become spaces.
  s = s.replace(
    /\b((?:mon|tues?|wed(?:nes)?|thu(?:rs?)?|fri|sat(?:ur)?|sun)(?:day)?s?) ?- ?(?=(?:mon|tue|wed|thu|fri|sat|sun))/g,
    '$1 to ',
  );
  s = s.replace(/([a-z])-(?=[a-z])/g, '$1 ').replace(/(\d)-(?=[a-z])/g, '$1 ');
  s = s.replace(/[_]+/g, ' ').replace(/[a-z]+/g, (w) => repairWord(w));
  s = s
    .replace(/\bstandard\s+dev(iation)?s?\b|\bstd\s+dev(iation)?s?\b/g, 'std')
    // "the 50 period mean": a simple moving average of those bars.
    .replace(/\b(\d+) (?:period |bar |candle |day )?(?:mean|average|avg)\b(?! (?:true|directional|reversion))/g, '$1 sma')
    .replace(/\bnew\s+york\b/g, 'newyork')
    // "buy back" closes a short: the cover of the exit words.
    .replace(/\bbuy (?:it |them |the shorts? |the position )?back\b/g, 'cover')
    .replace(/\bstoch(astic)?\s+k\b/g, 'stochastic stochk')
    .replace(/\bstoch(astic)?\s+d\b/g, 'stochastic stochd');
  return s.replace(/\s+/g, ' ').trim();
}

/** Clauses: split at sentence ends, semicolons, new lines and commas (not between two numbers). */
export function clauses(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === '(' || c === '[') depth++;
    else if ((c === ')' || c === ']') && depth > 0) depth--;
    else if (depth === 0) {
      const next = text[i + 1] ?? ' ';
      const end =
        c === ';' ||
        c === '!' ||
        c === '?' ||
        c === '\n' ||
        (c === '.' && !/\d/.test(next)) ||
        (c === ',' && !(/\d/.test(text[i - 1] ?? '') && /\s?\d/.test(text.slice(i + 1, i + 3))));
      if (end) {
        out.push(text.slice(start, i));
        start = i + 1;
      }
    }
  }
  out.push(text.slice(start));
  return out.map((c) => c.trim()).filter((c) => c.length > 0);
}

export type Token =
  | { t: 'num'; v: number; raw: string }
  | { t: 'word'; w: string }
  | { t: 'sym'; s: string }
  /** A distance relation ("2 ATR above", "1.5 % below", "within 10 pips of"), marked by parse-levels. */
  | { t: 'lvl'; amount: number; unit: 'atr' | 'pct' | 'pips'; rel: 'above' | 'below' | 'near'; within: boolean }
  /** "its 50-bar average": the subject's own rolling mean. */
  | { t: 'avg'; window: number };

/** Tokens of one normalised clause: numbers, words and single punctuation marks. */
export function lex(clause: string): Token[] {
  const out: Token[] = [];
  for (const m of clause.matchAll(/\d+(?:\.\d+)?|\.\d+|[a-z][a-z']*|[<>]=?|\S/g)) {
    const raw = m[0];
    if (/^[\d.]/.test(raw) && raw !== '.') out.push({ t: 'num', v: Number(raw), raw });
    else if (/^[a-z]/.test(raw)) out.push({ t: 'word', w: raw });
    else out.push({ t: 'sym', s: raw });
  }
  return out;
}

type AnyToken = { t: string; w?: string; s?: string };
export const isWord = (tok: AnyToken | undefined, ...words: string[]): boolean => tok?.t === 'word' && words.includes(tok.w ?? '');
export const isSym = (tok: AnyToken | undefined, ...syms: string[]): boolean => tok?.t === 'sym' && syms.includes(tok.s ?? '');

/** Request text made safe for a Python comment: one line, printable, at most `max` characters. */
export function commentSafe(text: string, max = 240): string {
  const flat = text
    .replace(/[\uD800-\uDFFF]/g, '')
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
