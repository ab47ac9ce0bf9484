/**
 * Conditions in a clause, over the token stream with indicator mentions in it: a subject (an
 * indicator output or the price), a relation (above, below, crosses above/below, outside,
 * turning positive, oversold…) and an object (a number, another indicator output, zero, the
 * signal line, a band). "RSI(14) below 30", "fast EMA 12 crossing above slow EMA 26", "price
 * outside the 2-sigma Bollinger band", "stochastic %K over %D", "MACD histogram turning
 * positive". Also trend-filter phrases, N-bar breakouts and momentum.
 */
import type { Approximation, LevelUnit, Relation, Role } from './intent.ts';
import type { Mention, PToken } from './parse-indicators.ts';
import { isSym, isWord } from './text.ts';
import { PATTERN_NAMES, RUN_CAP } from './trader-indicators.ts';

export type DOperand =
  { kind: 'mention'; m: Mention; output: number } | { kind: 'price' } | { kind: 'value'; value: number } | { kind: 'avg'; window: number };

export type DCondition =
  | { kind: 'compare'; left: DOperand; relation: Relation; right: DOperand }
  | { kind: 'band'; m: Mention; where: 'outside' | 'above_upper' | 'below_lower' | 'inside' }
  | { kind: 'breakout'; window: number }
  | { kind: 'momentum'; window: number }
  /** A pattern column as it is: +1 bullish, -1 bearish (an inside bar: 1). */
  | { kind: 'pattern'; m: Mention; output: number }
  /** A close beyond a channel's upper (+1) or lower (-1) line. */
  | { kind: 'channel'; m: Mention }
  | {
      kind: 'offset';
      left: DOperand;
      relation: 'above' | 'below';
      base: DOperand;
      amount: number;
      unit: LevelUnit;
      atr: Mention | null;
      within: boolean;
    }
  | { kind: 'near'; left: DOperand; base: DOperand; amount: number; unit: LevelUnit; atr: Mention | null };

export interface Draft {
  cond: DCondition;
  side: 'long' | 'short' | null;
  phrase: string;
  role: Role;
  /** A filter worded as a prohibition: entries only where it does not hold. */
  negate: boolean;
  /** Which "or"-separated part of its clause it was read in (0 = before any "or"): conditions of one part hold together, parts are alternatives. */
  alt?: number;
  /** Which "and"/"or"-separated part of its clause it was read in (the coverage check's unit). */
  part?: number;
  /** Set by parse-request: the statement (clause part) it belongs to, and whether that statement is an alternative ("or") to the one before. */
  stmt?: number;
  orJoin?: boolean;
}

export interface ClauseResult {
  drafts: Draft[];
  /** A trend-filter request: the moving-average mention it names, or null for the default SMA 200. */
  trend: { m: Mention | null; phrase: string } | null;
  /** Mentions made up for phrases like "golden cross" (SMA 50 / 200). */
  implied: Mention[];
  /** Named things read as something close to them ("three white soldiers": three rising candles). */
  approximations: Approximation[];
  /** SARs and SuperTrends named with nothing said of them (their flip, if the text says nothing else of them). */
  flippers: Mention[];
}

type Rel =
  | Relation
  | 'outside'
  | 'inside'
  | 'turn_pos'
  | 'turn_neg'
  | 'oversold'
  | 'overbought'
  | 'leave_oversold'
  | 'leave_overbought'
  | 'extremes'
  | 'touch'
  | 'between';

const W = (s: string) => s.split(' ');
/** Words of a line's slope ("slopes up"): said of the subject before, or of the last one named ("when it slopes down"). */
const SLOPE_WORDS = ['slopes', 'slope', 'sloping', 'sloped', 'angled', 'angling', 'pointing', 'points', 'tilting', 'tilts'];
/** Relation phrases, longest first. */
const RELATIONS: Array<[string[], Rel]> = [
  ...['crosses', 'cross', 'crossing', 'crossed', 'crossover', 'breaks', 'break', 'breaking', 'broke'].flatMap(
    (v): Array<[string[], Rel]> => [
      [[v, 'back', 'above'], 'cross_up'],
      [[v, 'back', 'over'], 'cross_up'],
      [[v, 'above'], 'cross_up'],
      [[v, 'over'], 'cross_up'],
      [[v, 'up', 'through'], 'cross_up'],
      [[v, 'up'], 'cross_up'],
      [[v, 'upward'], 'cross_up'],
      [[v, 'back', 'below'], 'cross_down'],
      [[v, 'back', 'under'], 'cross_down'],
      [[v, 'below'], 'cross_down'],
      [[v, 'under'], 'cross_down'],
      [[v, 'down', 'through'], 'cross_down'],
      [[v, 'down'], 'cross_down'],
      [[v, 'into', 'positive'], 'turn_pos'],
      [[v, 'into', 'negative'], 'turn_neg'],
      [[v, 'positive'], 'turn_pos'],
      [[v, 'negative'], 'turn_neg'],
    ],
  ),
  ...['rises', 'rise', 'rising', 'rose', 'climbs', 'climbing', 'moves', 'goes', 'going', 'pushes', 'jumps', 'gets', 'comes'].flatMap(
    (v): Array<[string[], Rel]> => [
      [[v, 'back', 'above'], 'cross_up'],
      [[v, 'above'], 'cross_up'],
      [[v, 'over'], 'cross_up'],
    ],
  ),
  ...[
    'falls',
    'fall',
    'falling',
    'fell',
    'drops',
    'drop',
    'dropping',
    'dips',
    'dip',
    'dipping',
    'sinks',
    'moves',
    'goes',
    'going',
    'slides',
    'gets',
    'comes',
  ].flatMap((v): Array<[string[], Rel]> => [
    [[v, 'back', 'below'], 'cross_down'],
    [[v, 'below'], 'cross_down'],
    [[v, 'under'], 'cross_down'],
  ]),
  ...['turning', 'turns', 'turned', 'turn', 'flips', 'flipping', 'flip', 'goes', 'going', 'becomes', 'becoming', 'becoming'].flatMap(
    (v): Array<[string[], Rel]> => [
      [[v, 'positive'], 'turn_pos'],
      [[v, 'negative'], 'turn_neg'],
      [[v, 'bullish'], 'turn_pos'],
      [[v, 'bearish'], 'turn_neg'],
      [[v, 'green'], 'turn_pos'],
      [[v, 'red'], 'turn_neg'],
    ],
  ),
  // A moving average's slope: "the 20 EMA slopes up", "sloping down".
  ...SLOPE_WORDS.flatMap((v): Array<[string[], Rel]> => [
    [[v, 'up'], 'rising'],
    [[v, 'upward'], 'rising'],
    [[v, 'upwards'], 'rising'],
    [[v, 'down'], 'falling'],
    [[v, 'downward'], 'falling'],
    [[v, 'downwards'], 'falling'],
  ]),
  // Reaching a level from either side: "price pulls back to the EMA", "rallies into it", "bounces off VWAP", "the z-score gets back to 0".
  ...[
    'pulls',
    'pull',
    'pulled',
    'pulling',
    'comes',
    'come',
    'coming',
    'gets',
    'get',
    'goes',
    'go',
    'is',
    'trades',
    'retraces',
    'retrace',
    'retracing',
    'drops',
    'dips',
    'falls',
    'moves',
  ].flatMap((v): Array<[string[], Rel]> => [
    [[v, 'back', 'to'], 'touch'],
    [[v, 'back', 'into'], 'touch'],
  ]),
  ...[
    'rallies',
    'rally',
    'rallying',
    'rallied',
    'pulls',
    'pull',
    'pulling',
    'retraces',
    'retrace',
    'retracing',
    'dips',
    'dip',
    'dipping',
    'drops',
    'drop',
    'falls',
    'fall',
    'comes',
    'come',
    'returns',
    'return',
    'returning',
    'reverts',
    'revert',
    'reverting',
  ].flatMap((v): Array<[string[], Rel]> => [
    [[v, 'up', 'to'], 'touch'],
    [[v, 'down', 'to'], 'touch'],
    [[v, 'into'], 'touch'],
    [[v, 'to'], 'touch'],
  ]),
  ...['bounces', 'bounce', 'bouncing', 'bounced', 'rejects', 'rejecting', 'rejected'].flatMap((v): Array<[string[], Rel]> => [
    [[v, 'off'], 'touch'],
    [[v, 'from'], 'touch'],
  ]),
  [W('back to'), 'touch'],
  [W('greater than'), 'above'],
  [W('more than'), 'above'],
  [W('higher than'), 'above'],
  [W('bigger than'), 'above'],
  [W('less than'), 'below'],
  [W('lower than'), 'below'],
  [W('smaller than'), 'below'],
  // Leaving a zone is crossing its level: "comes up out of oversold (-80)", "drops from overbought".
  ...['out of', 'from', 'leaves', 'leaving', 'exits from'].flatMap((w): Array<[string[], Rel]> => [
    [[...W(w), 'oversold'], 'leave_oversold'],
    [[...W(w), 'overbought'], 'leave_overbought'],
  ]),
  [W('out of'), 'outside'],
  [W('in oversold'), 'oversold'],
  [W('in overbought'), 'overbought'],
  [W('re enters'), 'inside'],
  [W('re enter'), 'inside'],
  [W('re entering'), 'inside'],
  [['reenters'], 'inside'],
  [['enters'], 'inside'],
  [W('back into'), 'inside'],
  [W('back in'), 'inside'],
  [['crosses'], 'cross'],
  [['cross'], 'cross'],
  [['crossing'], 'cross'],
  [['crossed'], 'cross'],
  [['crossover'], 'cross'],
  [['crossovers'], 'cross'],
  [['above'], 'above'],
  [['over'], 'above'],
  [['exceeds'], 'above'],
  [['exceeding'], 'above'],
  [['beyond'], 'outside'],
  [['below'], 'below'],
  [['under'], 'below'],
  [['beneath'], 'below'],
  [['outside'], 'outside'],
  [['inside'], 'inside'],
  [['within'], 'inside'],
  [['between'], 'between'],
  [['positive'], 'turn_pos'],
  [['negative'], 'turn_neg'],
  [['oversold'], 'oversold'],
  [['overbought'], 'overbought'],
  [['extremes'], 'extremes'],
  [['extreme'], 'extremes'],
  [['extremes'], 'extremes'],
  [['fade'], 'outside'],
  [['fades'], 'outside'],
  [['fading'], 'outside'],
  [['at'], 'touch'],
  [['touches'], 'touch'],
  [['touching'], 'touch'],
  [['touch'], 'touch'],
  [['hits'], 'touch'],
  [['tags'], 'touch'],
  [['tests'], 'touch'],
  [['reaches'], 'touch'],
];
// A level of its own ("ADX rises", "the RSI is falling"): after every longer phrase above.
RELATIONS.push(
  ...['rises', 'rising', 'rise', 'increasing', 'increases', 'climbing', 'climbs', 'strengthening', 'up'].map((w): [string[], Rel] => [
    [w],
    'rising',
  ]),
  ...['falls', 'falling', 'fall', 'declining', 'declines', 'decreasing', 'decreases', 'weakening', 'dropping', 'drops'].map(
    (w): [string[], Rel] => [[w], 'falling'],
  ),
);
const SYM_RELATIONS: Record<string, Rel> = { '>': 'above', '>=': 'above', '<': 'below', '<=': 'below' };

const FILLER = new Set([
  'is',
  'are',
  'the',
  'its',
  'has',
  'have',
  'a',
  'an',
  'line',
  'value',
  'level',
  'reading',
  'was',
  'be',
  'being',
  'currently',
  'still',
  'stays',
  'remains',
  'closes',
  'closing',
  'trading',
  'sits',
  'just',
  'clearly',
  'back',
  'then',
  'it',
  'of',
  'to',
  'when',
  'if',
  'while',
  'once',
]);
const AMOUNT_WORDS = [
  'positions',
  'position',
  'pos',
  'trades',
  'trade',
  'pips',
  'points',
  'bars',
  'candles',
  'hours',
  'minutes',
  'percent',
  'dollars',
  'lots',
  'times',
  'days',
  'entries',
  'x',
];
const PRICE_WORDS = new Set(['price', 'prices', 'close', 'closes', 'candle', 'candles', 'market', 'bar']);
const OSCILLATOR_LEVELS: Record<string, [number, number]> = { rsi: [30, 70], stoch: [20, 80], willr: [-80, -20], cci: [-100, 100] };
/** Oscillators about a zero line. */
const ZERO_LINE = new Set(['roc', 'zscore', 'cci']);
const ZONES: Rel[] = ['oversold', 'overbought', 'leave_oversold', 'leave_overbought'];

/** RELATIONS by first word, each list in RELATIONS' order (phrases starting alike stay longest first). */
const RELATIONS_BY_FIRST = new Map<string, Array<[string[], Rel]>>();
for (const entry of RELATIONS) {
  const list = RELATIONS_BY_FIRST.get(entry[0][0]!) ?? [];
  list.push(entry);
  RELATIONS_BY_FIRST.set(entry[0][0]!, list);
}

function relationAt(tokens: readonly PToken[], i: number): { rel: Rel; len: number } | null {
  const tok = tokens[i];
  if (tok?.t === 'sym' && SYM_RELATIONS[tok.s]) return { rel: SYM_RELATIONS[tok.s]!, len: 1 };
  if (tok?.t !== 'word') return null;
  for (const [words, rel] of RELATIONS_BY_FIRST.get(tok.w) ?? [])
    if (words.every((w, k) => isWord(tokens[i + k], w))) return { rel, len: words.length };
  return null;
}

const defaultOutput = (m: Mention): number => m.output ?? 0;
const opOf = (m: Mention): DOperand => ({ kind: 'mention', m, output: defaultOutput(m) });
const isMA = (m: Mention) => m.name === 'sma' || m.name === 'ema' || m.name === 'wma';

const LONG_SIDE = ['buy', 'buys', 'buying', 'long', 'longs', 'bullish', 'bull'];
const SHORT_SIDE = ['sell', 'sells', 'selling', 'short', 'shorts', 'bearish', 'bear'];

export function sideOf(tokens: readonly PToken[]): 'long' | 'short' | null {
  const long = tokens.some((t) => isWord(t, ...LONG_SIDE));
  const short = tokens.some((t) => isWord(t, ...SHORT_SIDE));
  return long === short ? null : long ? 'long' : 'short';
}

/** The side word nearest before token `i`, if any. */
function sideBefore(tokens: readonly PToken[], i: number): 'long' | 'short' | null {
  for (let k = i; k >= 0; k--) {
    if (isWord(tokens[k], ...LONG_SIDE)) return 'long';
    if (isWord(tokens[k], ...SHORT_SIDE)) return 'short';
  }
  return null;
}

/** Indicators drawn on the price: "above the cloud", "at R1" compare the price with them. */
const PRICE_SCALE = new Set([
  'sma',
  'ema',
  'wma',
  'bb',
  'keltner',
  'donchian',
  'vwap',
  'pivot',
  'ichimoku',
  'psar',
  'supertrend',
  'hhll',
  'sessrange',
]);
const isPriceScale = (op: DOperand | null | undefined): boolean => op?.kind === 'mention' && PRICE_SCALE.has(op.m.name);
/** Channels whose upper / lower line an elliptic "the lower" names: the output of each. */
const CHANNEL_LINES: Record<string, { upper: number; lower: number; middle: number }> = {
  bb: { upper: 0, lower: 2, middle: 1 },
  keltner: { upper: 0, lower: 2, middle: 1 },
  donchian: { upper: 0, lower: 1, middle: 2 },
  sessrange: { upper: 0, lower: 1, middle: 0 },
};
/** Levels that are a range's high and low, read by those words. */
const RANGE_LEVELS = new Set(['donchian', 'sessrange']);
const MIDDLE_WORDS = ['middle', 'mid', 'midline', 'centre', 'center', 'basis', 'median'];
/** Lines bounding a channel the price can be back inside of (Bollinger's is its band column): the Ichimoku cloud's top and bottom too. */
const INSIDE_LINES: Record<string, { upper: number; lower: number }> = {
  keltner: { upper: 0, lower: 2 },
  donchian: { upper: 0, lower: 1 },
  ichimoku: { upper: 4, lower: 5 },
  sessrange: { upper: 0, lower: 1 },
};

/**
 * An object the words point back to: "short below it" (the last price-scale object), "short on a
 * close below the lower" (the other line of the last channel named).
 */
function backReference(
  tokens: readonly PToken[],
  i: number,
  last: DOperand | null | undefined,
  rel: Rel,
): { op: DOperand; next: number } | null {
  let k = i;
  while (isWord(tokens[k], 'the', 'its', 'a', 'one')) k++;
  if (!last || last.kind !== 'mention') return null;
  // "… and sell when it crosses below": the clause ends where the object would be.
  const lines = CHANNEL_LINES[last.m.name];
  // "sell below it" after "buy above the Asian range": a range's two lines, each for its side.
  if ((isWord(tokens[k], 'it', 'them', 'that', 'this') || k >= tokens.length) && isPriceScale(last)) {
    const twoLines =
      lines && RANGE_LEVELS.has(last.m.name) && (rel === 'below' || rel === 'cross_down' || rel === 'above' || rel === 'cross_up');
    const op = twoLines ? { ...last, output: rel === 'below' || rel === 'cross_down' ? lines.lower : lines.upper } : last;
    return { op, next: k + 1 };
  }
  // "below its low", "the range's high": a range's line by name.
  if (lines && RANGE_LEVELS.has(last.m.name) && isWord(tokens[k], 'high', 'highs', 'top', 'low', 'lows', 'bottom')) {
    return {
      op: { kind: 'mention', m: last.m, output: isWord(tokens[k], 'high', 'highs', 'top') ? lines.upper : lines.lower },
      next: k + 1,
    };
  }
  // "back inside the channel", "re-enters the cloud": the channel named before.
  if (
    (INSIDE_LINES[last.m.name] && last.m.name !== 'ichimoku' && isWord(tokens[k], 'channel', 'channels', 'bands', 'band', 'envelope')) ||
    (last.m.name === 'ichimoku' && isWord(tokens[k], 'cloud', 'kumo'))
  ) {
    return { op: last, next: k + 1 };
  }
  if (lines && isWord(tokens[k], 'lower', 'upper', ...MIDDLE_WORDS)) {
    const output = isWord(tokens[k], 'upper') ? lines.upper : isWord(tokens[k], 'lower') ? lines.lower : lines.middle;
    const skip = isWord(tokens[k + 1], 'band', 'bands', 'line', 'channel', 'one') ? 2 : 1;
    return { op: { kind: 'mention', m: last.m, output }, next: k + skip };
  }
  return null;
}

/** The last line drawn on the price named in the clause before `i`: what "pulls back to it" points to when nothing before it was an object. */
function priceScaleBefore(tokens: readonly PToken[], i: number): DOperand | null {
  for (let k = i - 1; k >= 0; k--) {
    const t = tokens[k]!;
    if (t.t === 'ind' && PRICE_SCALE.has(t.name)) return opOf(t);
  }
  return null;
}

/**
 * "Buy when price crosses above the 50 SMA and sell when it crosses below": a clause naming both
 * sides, each "and"/"or" part with its own side and condition, gives each part's conditions its
 * side. Null when a part names a side with no condition of its own ("buy and sell on the cross").
 */
function partSides(tokens: readonly PToken[]): Array<'long' | 'short' | null> | null {
  const parts: PToken[][] = [[]];
  for (const t of tokens) {
    if (isWord(t, 'and', 'or')) parts.push([]);
    else parts[parts.length - 1]!.push(t);
  }
  const sides = parts.map((p) => sideOf(p));
  if (!sides.includes('long') || !sides.includes('short')) return null;
  const hasRelation = (p: readonly PToken[]) => p.some((_, k) => relationAt(p, k) !== null);
  if (parts.some((p, k) => sides[k] !== null && !hasRelation(p))) return null;
  return sides;
}

/** Reads the object after a relation: a number, a mention, zero, price, the signal line. */
function objectAt(tokens: readonly PToken[], i: number): { op: DOperand; next: number } | null {
  let k = i;
  // "crosses back through zero": the words between a cross and its level.
  while (isWord(tokens[k], 'the', 'its', 'a', 'level', 'of', 'line', 'mark', 'back', 'through', 'thru') || isSym(tokens[k], '=')) k++;
  // "-100": a negative level written with its sign
  if (isSym(tokens[k], '-') && tokens[k + 1]?.t === 'num' && !(tokens[k - 1]?.t === 'num')) k++;
  // "+100": a positive level written with its sign
  else if (isSym(tokens[k], '+') && tokens[k + 1]?.t === 'num') k++;
  const tok = tokens[k];
  if (!tok) return null;
  if (tok.t === 'num') {
    // "more than 2 positions", "above 10 pips": an amount of something else, not a level.
    if (isSym(tokens[k + 1], '%', '$') || isWord(tokens[k + 1], ...AMOUNT_WORDS)) return null;
    const neg = isSym(tokens[k - 1], '-') && !(tokens[k - 2]?.t === 'num');
    return { op: { kind: 'value', value: neg ? -tok.v : tok.v }, next: k + 1 };
  }
  if (tok.t === 'ind') return { op: opOf(tok), next: k + 1 };
  if (tok.t === 'avg') return { op: { kind: 'avg', window: tok.window }, next: k + 1 };
  if (isWord(tok, 'zero')) return { op: { kind: 'value', value: 0 }, next: k + 1 + (isWord(tokens[k + 1], 'line') ? 1 : 0) };
  if (tok.t === 'word' && PRICE_WORDS.has(tok.w)) return { op: { kind: 'price' }, next: k + 1 };
  return null;
}

/** Parses one clause (tokens with mentions); `carry` is the last subject of the text, for "…, sell above 70". */
/**
 * What a clause leaves for the next ones to point back to: the last subject, the last line
 * compared with, the last SAR / SuperTrend, and every line drawn on the price named so far.
 */
export interface Carry {
  subject: DOperand | null;
  object?: DOperand | null;
  flipper?: Mention | null;
  lines?: Mention[];
  /** The window of the first range breakout named. */
  breakout?: number;
  /** The candles of the last run named (Heikin-Ashi or plain): what "2 red after a green" counts. */
  run?: 'heikin' | 'candlerun';
}

export function parseClause(tokens: readonly PToken[], phrase: string, carry: Carry): ClauseResult {
  const result: ClauseResult = { drafts: [], trend: null, implied: [], approximations: [], flippers: [] };
  const side = sideOf(tokens);
  // "RSI below 30 or stochastic below 20": the number of "or"s before the relation read is the condition's part.
  let at = 0;
  const ors = (end: number) => tokens.slice(0, end).filter((t) => isWord(t, 'or')).length;
  const joins = (end: number) => tokens.slice(0, end).filter((t) => isWord(t, 'or', 'and')).length;
  const parts = partSides(tokens);
  // "buy at S1 short at R1": with both sides in one part, each condition takes the side word nearest before it.
  const both =
    side === null && parts === null && tokens.some((t) => isWord(t, ...LONG_SIDE)) && tokens.some((t) => isWord(t, ...SHORT_SIDE));
  const add = (cond: DCondition, own?: 'long' | 'short') =>
    result.drafts.push({
      cond,
      side: own ?? side ?? parts?.[joins(at)] ?? (both ? sideBefore(tokens, at) : null),
      phrase,
      role: 'entry',
      negate: false,
      alt: ors(at),
      part: joins(at),
    });
  const mentions = tokens.filter((t): t is Mention => t.t === 'ind');

  if (tokens.some((t) => isWord(t, 'golden', 'death')) && tokens.some((t) => isWord(t, 'cross', 'crossover'))) {
    const mas = mentions.filter(isMA);
    const [fast, slow] = mas.length >= 2 ? [mas[0]!, mas[1]!] : implyPair(result, 'sma', 50, 200);
    add({
      kind: 'compare',
      left: opOf(fast),
      relation: tokens.some((t) => isWord(t, 'golden')) ? 'cross_up' : 'cross_down',
      right: opOf(slow),
    });
    carry.subject = opOf(fast);
  }
  if (stackedIn(tokens, mentions, carry, add)) return result;
  // A flip with no SAR / SuperTrend of its own ("parabolic sar, buy on a bullish flip", "exit when it flips back"): the last one named.
  const flippers = mentions.filter((m) => m.name === 'psar' || m.name === 'supertrend');
  if (flippers.length) carry.flipper = flippers[flippers.length - 1]!;
  const flips = patternsIn(
    tokens,
    flippers.length || !carry.flipper ? mentions : [...mentions, carry.flipper],
    add,
    CANDLE_RUN.test(phrase) || CANDLE_COLOUR.test(phrase),
  );

  let subject: DOperand | null = null;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    at = i;
    if (tok.t === 'ind') {
      const next = tokens[i + 1];
      // Two mentions of one moving-average kind then a cross word: "EMA 9/21 crossover", "sma 10 and sma 30 crossover".
      const joined = isWord(next, 'and', '&') ? 1 : 0;
      const pair = tokens[i + 1 + joined];
      if (pair?.t === 'ind' && isMA(tok) && pair.name === tok.name && (joined === 0 || tokens[i + 3]?.t !== 'ind')) {
        const rel = relationAt(tokens, i + 2 + joined);
        if (rel && (rel.rel === 'cross' || rel.rel === 'cross_up' || rel.rel === 'cross_down')) {
          add({ kind: 'compare', left: opOf(tok), relation: bullishBefore(tokens, i) ?? rel.rel, right: opOf(pair) });
          subject = opOf(tok);
          i += 1 + joined + rel.len;
          continue;
        }
      }
      // "z-score of close vs the 20 sma": the average is what the z-score is measured from, not the subject.
      if (
        subject?.kind === 'mention' &&
        subject.m.name === 'zscore' &&
        isMA(tok) &&
        tokens.slice(tokens.indexOf(subject.m) + 1, i).every((t) => isWord(t, ...ZSCORE_OF))
      ) {
        if (tok.params.period && !subject.m.params.period) subject.m.params.period = tok.params.period;
        continue;
      }
      subject = opOf(tok);
      continue;
    }
    if (tok.t === 'lvl') {
      // "price more than 2 ATR above the 50 EMA": the subject (the price unless named) against the level.
      const obj = objectAt(tokens, i + 1);
      const left: DOperand =
        subject && subject.kind !== 'value' && !(subject.kind === 'mention' && subject.m.name === 'atr') ? subject : { kind: 'price' };
      if (obj && obj.op.kind !== 'value' && obj.op.kind !== 'avg') {
        const atr = tok.unit === 'atr' ? implyAtr(result) : null;
        if (tok.rel === 'near') add({ kind: 'near', left, base: obj.op, amount: tok.amount, unit: tok.unit, atr });
        else add({ kind: 'offset', left, relation: tok.rel, base: obj.op, amount: tok.amount, unit: tok.unit, atr, within: tok.within });
        i = obj.next - 1;
      }
      continue;
    }
    // "sell when the 9 EMA crosses under the 21, cover when it crosses back over": "it" is the line that crossed, not the price.
    if (
      isWord(tok, 'it') &&
      subject === null &&
      carry.subject?.kind === 'mention' &&
      isMA(carry.subject.m) &&
      carry.object?.kind === 'mention' &&
      carry.object.m !== carry.subject.m
    ) {
      subject = carry.subject;
      continue;
    }
    // "close when it gets above -20", "close the short when…": the verb of an exit, not the price.
    const closeVerb =
      isWord(tok, 'close') &&
      isWord(
        tokens[i + 1],
        'when',
        'if',
        'once',
        'as',
        'the',
        'my',
        'all',
        'any',
        'out',
        'it',
        'them',
        'position',
        'positions',
        'trade',
        'trades',
        'long',
        'longs',
        'short',
        'shorts',
      );
    if (
      tok.t === 'word' &&
      PRICE_WORDS.has(tok.w) &&
      !closeVerb &&
      (relationAt(skipFiller(tokens, i + 1), 0) || skipFiller(tokens, i + 1)[0]?.t === 'lvl')
    ) {
      subject = { kind: 'price' };
      continue;
    }
    const rel = relationAt(tokens, i);
    if (!rel) continue;
    // The cross of "golden cross" / "death cross" was read above, with its pair.
    if (isWord(tokens[i - 1], 'golden', 'death')) continue;
    if (
      (rel.rel === 'above' || rel.rel === 'below') &&
      (subject?.kind ?? 'price') === 'price' &&
      isWord(skipFiller(tokens, i + rel.len)[0], 'all', 'both', 'them', 'each', 'every')
    ) {
      // "price above all three": the price against every moving average of the clause.
      for (const m of mentions.filter(isMA)) add({ kind: 'compare', left: { kind: 'price' }, relation: rel.rel, right: opOf(m) });
      continue;
    }
    let obj = objectAt(tokens, i + rel.len);
    if (!obj || (obj.op.kind === 'price' && isWord(skipFiller(tokens, i + rel.len)[0], 'lower', 'upper'))) {
      const last = carry.object ?? priceScaleBefore(tokens, i) ?? (carry.lines?.length ? opOf(carry.lines[carry.lines.length - 1]!) : null);
      obj = backReference(tokens, i + rel.len, last, rel.rel) ?? obj;
    }
    // "exit when price closes under the 21": a bare number the period of a moving average named before.
    if (obj?.op.kind === 'value' && subject?.kind === 'price') {
      const value = obj.op.value;
      const line = [...(carry.lines ?? []), ...mentions].find((m) => isMA(m) && m.params.period === value);
      if (line) obj = { op: opOf(line), next: obj.next };
    }
    if (obj && isPriceScale(obj.op)) carry.object = obj.op;
    // Elliptic clauses ("…, sell above 70", "negative to sell") reuse the last subject of the text.
    const elliptic =
      obj?.op.kind === 'value' || ['turn_pos', 'turn_neg', 'extremes', ...ZONES].includes(rel.rel) || isWord(tok, ...SLOPE_WORDS);
    let subj =
      subject ??
      impliedSubject(rel.rel, tokens, i) ??
      (isPriceScale(obj?.op) ? { kind: 'price' as const } : null) ??
      (elliptic ? carry.subject : null);
    if (ZONES.includes(rel.rel) && (subj?.kind !== 'mention' || !(subj.m.name in OSCILLATOR_LEVELS)))
      subj = oscillatorAhead(tokens, i + rel.len, result);
    if (!subj) continue;
    // A SAR flip was read as the flip: "the SAR flips below price" is not also a level.
    if ((subj.kind === 'mention' && flips.has(subj.m.name)) || (obj?.op.kind === 'mention' && flips.has(obj.op.m.name))) continue;
    const consumed = build(rel.rel, subj, obj?.op ?? null, tokens, i, add, result);
    if (consumed) {
      if (subj.kind === 'mention') carry.subject = subj;
      // "9 EMA > 21 EMA > 50 EMA": a chain, each line against the next.
      if (consumed === 'object' && obj?.op.kind === 'mention' && isSym(tokens[obj.next], '>', '<', '>=', '<=')) subject = obj.op;
      if (obj && consumed === 'object') i = obj.next - 1;
      else i += rel.len - 1;
    }
  }
  if (subject?.kind === 'mention' && !carry.subject) carry.subject = subject;
  carry.lines = [...(carry.lines ?? []), ...mentions.filter((m) => PRICE_SCALE.has(m.name))];

  // "RSI 30/70": the levels written beside an oscillator are its two thresholds.
  for (const m of mentions) {
    if (!m.levels) continue;
    const left: DOperand = { kind: 'mention', m, output: m.name === 'stoch' ? (m.output ?? 0) : 0 };
    add({ kind: 'compare', left, relation: 'below', right: { kind: 'value', value: m.levels[0] } });
    add({ kind: 'compare', left, relation: 'above', right: { kind: 'value', value: m.levels[1] } });
  }
  levelTradesIn(tokens, carry, add, result);
  result.flippers = flippersNamedIn(tokens, result);
  candleRunsIn(phrase, result, add, carry);
  // "exit on a 20-bar low", "sell a new 55-bar low": an N-bar high / low named with no relation is its break (a close beyond the prior bars').
  if (!result.drafts.length) {
    const exitWords = /^\s*(?:exit|close|get out|cover|take)/.test(phrase);
    for (const m of mentions.filter((x) => x.name === 'hhll' && x.output !== null)) {
      const low = m.output === 1;
      add(
        { kind: 'compare', left: { kind: 'price' }, relation: low ? 'below' : 'above', right: opOf(m) },
        exitWords ? (low ? 'long' : 'short') : undefined,
      );
    }
  }
  trendIn(mentions, phrase, result);
  // "buy the 55 bar donchian high" was read as the level it trades at: not also a range breakout.
  // A session's range read as the level broken ("above the Asian high") is that breakout too.
  if (!flips.has('breakout') && ![...usedMentions(result.drafts)].some((m) => m.name === 'donchian' || m.name === 'sessrange'))
    breakoutIn(phrase, side, result, carry);
  return result;
}

const STACKED = ['stacked', 'aligned', 'fanned', 'fanning', 'ordered', 'lined'];

/**
 * "8/13/21 EMAs stacked bullish": three or more moving averages of one kind in order, each faster
 * one above the slower (bullish, or the clause's buy) or below it (bearish, a sell). The averages
 * are the clause's, else the ones named before ("ema ribbon 8/13/21, buy when stacked bullish").
 */
function stackedIn(tokens: readonly PToken[], mentions: readonly Mention[], carry: Carry, add: Add): boolean {
  if (!tokens.some((t) => isWord(t, ...STACKED))) return false;
  const own = mentions.filter(isMA);
  const mas = (own.length >= 3 ? own : (carry.lines ?? []).filter(isMA)).filter(
    (m, k, all) => all.findIndex((x) => x.name === m.name && x.params.period === m.params.period) === k,
  );
  if (mas.length < 3 || mas.some((m) => m.params.period === undefined || m.name !== mas[0]!.name)) return false;
  const bull = tokens.some((t) => isWord(t, 'bullish', 'up', 'upward', 'upwards'));
  const bear = tokens.some((t) => isWord(t, 'bearish', 'down', 'downward', 'downwards'));
  const sided = sideOf(tokens);
  const up = bull !== bear ? bull : sided !== null ? sided === 'long' : null;
  if (up === null) return false;
  const ordered = [...mas].sort((a, b) => a.params.period! - b.params.period!);
  for (let k = 0; k + 1 < ordered.length; k++)
    add(
      { kind: 'compare', left: opOf(ordered[k]!), relation: up ? 'above' : 'below', right: opOf(ordered[k + 1]!) },
      up ? 'long' : 'short',
    );
  return true;
}

/** The mentions the drafts read so far compare or test. */
export function usedMentions(drafts: readonly Draft[]): Set<Mention> {
  const operands = drafts.flatMap((d) =>
    ('left' in d.cond ? [d.cond.left] : [])
      .concat('right' in d.cond ? [d.cond.right] : [])
      .concat('base' in d.cond ? [d.cond.base] : [])
      .concat('m' in d.cond ? [{ kind: 'mention' as const, m: d.cond.m, output: 0 }] : []),
  );
  return new Set(operands.flatMap((o) => (o.kind === 'mention' ? [o.m] : [])));
}

/** Words between a side verb and the level it trades at: "buy the s1 bounce", "buy pullbacks to the 21 ema", "sell a retest of the upper band". */
const TRADE_AT = new Set([
  'the',
  'a',
  'an',
  'at',
  'off',
  'from',
  'to',
  'into',
  'of',
  'on',
  'near',
  'pullbacks',
  'pullback',
  'dips',
  'dip',
  'retests',
  'retest',
  'tests',
  'test',
  'touches',
  'touch',
  'bounces',
  'bounce',
  'rejections',
  'rejection',
  'rallies',
  'rally',
]);
const SIDE_VERBS = ['buy', 'buys', 'buying', 'sell', 'sells', 'selling', 'long', 'short', 'fade', 'fading'];

/**
 * A level traded at with no relation of its own: "buy the s1 bounce", "sell the r1 rejection",
 * "buy the lower bollinger, sell the upper", "buy pullbacks to the 21 ema", "pin bars off the 50
 * ema": the bar reaches the level (a Bollinger line: the close beyond it). Only where the clause
 * read nothing else about that level.
 */
function levelTradesIn(tokens: readonly PToken[], carry: { object?: DOperand | null }, add: Add, result: ClauseResult): void {
  const used = usedMentions(result.drafts);
  let lastVerb: PToken | null = null;
  let lastLevel = -2;
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const line =
      isWord(tok, 'upper', 'lower') &&
      !isWord(tokens[i - 1], 'upper', 'lower') &&
      tokens[i + 1]?.t !== 'ind' &&
      carry.object?.kind === 'mention' &&
      CHANNEL_LINES[carry.object.m.name];
    if (tok.t !== 'ind' && !line) continue;
    if (tok.t === 'ind' && (!PRICE_SCALE.has(tok.name) || used.has(tok) || (tok.name === 'bb' && tok.output === null))) continue;
    let k = i - 1;
    while (k >= 0 && tokens[k]!.t === 'word' && TRADE_AT.has((tokens[k] as { w: string }).w)) k--;
    let before = tokens[k];
    // "fade the Asian high/low": the verb goes on to the level joined to the one it named.
    if ((isSym(before, '/', '&') || isWord(before, 'and', 'or')) && lastVerb && k === lastLevel + 1) before = lastVerb;
    const byVerb = isWord(before, ...SIDE_VERBS);
    const byPattern = before?.t === 'ind' && PATTERN_NAMES.has(before.name) && k < i - 1;
    if (!byVerb && !byPattern) continue;
    let op: DOperand;
    if (tok.t === 'ind') op = opOf(tok);
    else {
      const last = carry.object as { kind: 'mention'; m: Mention };
      const lines = CHANNEL_LINES[last.m.name]!;
      op = { kind: 'mention', m: last.m, output: isWord(tok, 'upper') ? lines.upper : lines.lower };
    }
    const m = (op as { m: Mention }).m;
    [lastVerb, lastLevel] = [byVerb ? before! : null, i];
    // "sell r2 buy s2": each level with the side of its own verb; a range's high faded is sold, its low bought.
    const output = (op as { output: number }).output;
    const faded =
      isWord(before, 'fade', 'fading') && RANGE_LEVELS.has(m.name)
        ? output === CHANNEL_LINES[m.name]!.upper
          ? 'short'
          : 'long'
        : undefined;
    const side = faded ?? (byVerb ? (sideOf([before!]) ?? undefined) : undefined);
    if (m.name === 'bb') {
      const output = (op as { output: number }).output;
      if (output !== 0 && output !== 2) continue;
      add({ kind: 'band', m, where: output === 0 ? 'above_upper' : 'below_lower' }, side);
    } else add({ kind: 'compare', left: { kind: 'price' }, relation: 'touch', right: op }, side);
    carry.object = op;
  }
}

/**
 * A SAR or SuperTrend the clause names with nothing said of it ("trade both sides with psar"):
 * if no clause of the text says anything of it either, its flip is the entry (parse-request.ts).
 * Not where it is a stop, trail or target ("trail with the SAR").
 */
function flippersNamedIn(tokens: readonly PToken[], result: ClauseResult): Mention[] {
  // "only when" makes it a filter; "long only" is a direction.
  if (
    tokens.some(
      (t, k) =>
        isWord(t, 'stop', 'stops', 'trail', 'trailing', 'target', 'exit', 'exits', 'close', 'filter') ||
        (isWord(t, 'only') && isWord(tokens[k + 1], 'when', 'if', 'while', 'during', 'above', 'below')),
    )
  )
    return [];
  const used = new Set([...usedMentions(result.drafts)].map((m) => m.name));
  return tokens.filter((t): t is Mention => t.t === 'ind' && (t.name === 'psar' || t.name === 'supertrend') && !used.has(t.name));
}

/** The flip of a SAR or SuperTrend: its trend column (+1 / -1) crossing 0, either way (each side reads its sign). */
export const flipOf = (m: Mention): DCondition => ({
  kind: 'compare',
  left: { kind: 'mention', m, output: 1 },
  relation: 'cross',
  right: { kind: 'value', value: 0 },
});

const RUN_COLOUR = '(red|green|bearish|bullish|down|up|black|white|falling|rising)';
/** Heikin-Ashi named between the colour and the candles: the run is of HA candles ("2 green HA candles"). */
const HA = '(?:(ha|heikin ashi|heiken ashi) )?';
const CANDLE_RUN = new RegExp(
  `\\b(\\d+) (?:(?:st|nd|rd|th) )?(?:consecutive |straight )?${RUN_COLOUR} ${HA}(?:candles|bars|closes|candle|bar)(?: in a row)?\\b|\\b(\\d+) ${HA}(?:candles|bars) in a row (?:that are |all )?${RUN_COLOUR}\\b|\\b(3) (white soldiers|black crows)\\b`,
);
/** A run with its candles left out after one was named: "…, buy. 2 red after a green, sell". */
const ELLIPTIC_RUN = new RegExp(`\\b(\\d+) ${RUN_COLOUR}(?: ones)? (?:after|in a row|then|following)\\b`);
/** One candle's colour: "if it closes green, buy", "a red candle": the run of one. */
const CANDLE_COLOUR = new RegExp(
  `\\b(?:closes|closed|closing|close|candle is|bar is) ${RUN_COLOUR}\\b|\\b${RUN_COLOUR} ${HA}(?:candle|bar)\\b(?! in a row)`,
);
const RISING_RUN = new Set(['green', 'bullish', 'up', 'white', 'rising', 'white soldiers']);

/**
 * "3 red candles in a row", "two green bars", "three white soldiers": the run of candles the same
 * way (close above / below open) reaching N, on the candle-run column (a soldier's higher closes
 * and opens inside the body before are not checked: any N rising candles count).
 */
function candleRunsIn(phrase: string, result: ClauseResult, add: Add, carry: Carry): void {
  const m = CANDLE_RUN.exec(phrase);
  const one = m ? null : CANDLE_COLOUR.exec(phrase);
  const elliptic = m || one || !carry.run ? null : ELLIPTIC_RUN.exec(phrase);
  if (elliptic) {
    const n = Number(elliptic[1]);
    if (!(n >= 1 && n <= RUN_CAP)) return;
    addRun(carry.run === 'heikin', n, RISING_RUN.has(elliptic[2]!), result, add);
    return;
  }
  if (!m && !one) return;
  const n = m ? Number(m[1] ?? m[4] ?? m[7]) : 1;
  if (!(n >= 1 && n <= RUN_CAP)) return;
  const up = RISING_RUN.has((m ? (m[2] ?? m[6] ?? m[8]) : (one![1] ?? one![2]))!);
  // Heikin-Ashi candles: the HA run column (+k the k-th green HA candle in a row), else the plain candles'.
  const ha = Boolean(m ? (m[3] ?? m[5]) : one![3]);
  carry.run = ha ? 'heikin' : 'candlerun';
  addRun(ha, n, up, result, add);
  if (m?.[8])
    result.approximations.push({
      asked: m[0].replace(/^3 /, 'three '),
      done: `${n} ${up ? 'rising' : 'falling'} candles in a row (candle_run ${up ? '>=' : '<='} ${up ? n : -n})`,
      why: `the ${m[8]}' ${up ? 'higher' : 'lower'} closes and opens inside the body before are not checked`,
    });
}

/** The run of N candles one way: its column at or beyond ±N. */
function addRun(ha: boolean, n: number, up: boolean, result: ClauseResult, add: Add): void {
  const run: Mention = {
    t: 'ind',
    name: ha ? 'heikin' : 'candlerun',
    params: {},
    output: ha ? 1 : 0,
    qualifier: null,
    levels: null,
    signalLine: false,
    days: false,
  };
  result.implied.push(run);
  add({
    kind: 'compare',
    left: { kind: 'mention', m: run, output: run.output! },
    relation: up ? 'above' : 'below',
    right: { kind: 'value', value: up ? n - 0.5 : 0.5 - n },
  });
}

/** Words between a z-score and the average it is measured from. */
const ZSCORE_OF = ['of', 'the', 'close', 'price', 'vs', 'versus', 'against', 'relative', 'to', 'from', 'around', 'over'];

const FLIP_WORDS = ['flip', 'flips', 'flipped', 'flipping', 'switch', 'switches', 'reverses', 'reversal', 'changes', 'turns', 'turning'];
const BREAK_WORDS = ['breakout', 'breakouts', 'break', 'breaks', 'breaking', 'out'];

/**
 * Conditions of their own: a Parabolic SAR flip (its trend column crossing 0: up when the SAR
 * flips below the price or bullish, down when above or bearish, else either, signed), a candle
 * pattern named (engulfing, pin bar: +1 bullish / -1 bearish; an inside bar, or its breakout),
 * and a channel breakout (Keltner, Bollinger: a close beyond the upper +1 / lower -1 line, not a
 * range breakout). Returns what it read, so the level and range readings do not repeat it.
 */
function patternsIn(tokens: readonly PToken[], mentions: readonly Mention[], add: Add, runsRead: boolean): Set<string> {
  const read = new Set<string>();
  // A SAR or SuperTrend flip: its trend column (+1 / -1) crossing 0.
  const flipAt = tokens.findIndex((t) => isWord(t, ...FLIP_WORDS));
  const colour = tokens.findIndex((t) => isWord(t, 'green', 'red', 'bullish', 'bearish'));
  for (const m of mentions.filter((x) => x.name === 'psar' || x.name === 'supertrend')) {
    if (read.has(m.name)) continue;
    // "supertrend green = long, red = short": its state (+1 up / -1 down), not a flip.
    if (flipAt < 0 && colour >= 0) {
      add({
        kind: 'compare',
        left: { kind: 'mention', m, output: 1 },
        relation: isWord(tokens[colour], 'green', 'bullish') ? 'above' : 'below',
        right: { kind: 'value', value: 0 },
      });
      read.add(m.name);
      continue;
    }
    if (flipAt < 0) continue;
    const after = tokens.slice(flipAt, flipAt + 5);
    const up = after.some((t) => isWord(t, 'below', 'under', 'bullish', 'up', 'long', 'green', 'positive'));
    const down = after.some((t) => isWord(t, 'above', 'over', 'bearish', 'down', 'short', 'red', 'negative'));
    add({
      kind: 'compare',
      left: { kind: 'mention', m, output: 1 },
      relation: up === down ? 'cross' : up ? 'cross_up' : 'cross_down',
      right: { kind: 'value', value: 0 },
    });
    read.add(m.name);
  }
  const breaks = tokens.some((t) => isWord(t, ...BREAK_WORDS));
  for (const m of mentions) {
    // "a high volatility regime": ATR above its own mean (the regime column > 1); "low" / "quiet": below.
    if (m.name === 'volregime') {
      const high = tokens.some((t) => isWord(t, 'high', 'higher', 'volatile', 'expanding', 'elevated'));
      const low = tokens.some((t) => isWord(t, 'low', 'lower', 'quiet', 'calm', 'contracting'));
      if (high !== low)
        add({
          kind: 'compare',
          left: { kind: 'mention', m, output: 0 },
          relation: high ? 'above' : 'below',
          right: { kind: 'value', value: 1 },
        });
    }
    // A Heikin-Ashi run ("2 green HA candles in a row") is read with the candle runs.
    if (PATTERN_NAMES.has(m.name) && m.name !== 'insidebar' && m.name !== 'nr' && !(m.name === 'heikin' && runsRead))
      add({ kind: 'pattern', m, output: 0 });
    if (m.name === 'insidebar' || m.name === 'nr') {
      add({ kind: 'pattern', m, output: breaks ? 1 : 0 });
      if (breaks) read.add('breakout');
    }
    const outside = m.name === 'keltner' && tokens.some((t) => isWord(t, 'outside', 'beyond'));
    if (
      (m.name === 'keltner' || m.name === 'bb' || m.name === 'sessrange') &&
      (breaks || outside) &&
      m.output === null &&
      !tokens.some((t) => isWord(t, 'above', 'below', 'over', 'under', ...(outside ? [] : ['outside', 'beyond'])))
    ) {
      add({ kind: 'channel', m });
      read.add('breakout');
    }
  }
  return read;
}

function skipFiller(tokens: readonly PToken[], i: number): PToken[] {
  let k = i;
  while (tokens[k]?.t === 'word' && FILLER.has((tokens[k] as { w: string }).w)) k++;
  return tokens.slice(k) as PToken[];
}

function bullishBefore(tokens: readonly PToken[], i: number): Relation | null {
  const window = tokens.slice(Math.max(0, i - 3), i + 5);
  if (window.some((t) => isWord(t, 'bullish'))) return 'cross_up';
  if (window.some((t) => isWord(t, 'bearish'))) return 'cross_down';
  return null;
}

/** The ATR(14) a distance in ATRs is measured with. */
function implyAtr(result: ClauseResult): Mention {
  const atr: Mention = {
    t: 'ind',
    name: 'atr',
    params: { period: 14 },
    output: null,
    qualifier: null,
    levels: null,
    signalLine: false,
    days: false,
  };
  result.implied.push(atr);
  return atr;
}

function implyPair(result: ClauseResult, name: 'sma' | 'ema', fast: number, slow: number): [Mention, Mention] {
  const make = (period: number): Mention => ({
    t: 'ind',
    name,
    params: { period },
    output: null,
    qualifier: null,
    levels: null,
    signalLine: false,
    days: false,
  });
  const pair: [Mention, Mention] = [make(fast), make(slow)];
  result.implied.push(...pair);
  return pair;
}

/** "oversold RSI": the oscillator named just after; "oversold" alone: the request's RSI. */
function oscillatorAhead(tokens: readonly PToken[], i: number, result: ClauseResult): DOperand {
  const next = tokens.slice(i, i + 3).find((t): t is Mention => t.t === 'ind' && (t.name === 'rsi' || t.name === 'stoch'));
  if (next) return opOf(next);
  const rsi: Mention = { t: 'ind', name: 'rsi', params: {}, output: null, qualifier: null, levels: null, signalLine: false, days: false };
  result.implied.push(rsi);
  return opOf(rsi);
}

/** "outside the bands" or "above the 200 SMA" with no subject: the price. */
function impliedSubject(rel: Rel, tokens: readonly PToken[], i: number): DOperand | null {
  const after = tokens.slice(i, i + 5);
  if (
    (rel === 'outside' ||
      rel === 'inside' ||
      rel === 'below' ||
      rel === 'above' ||
      rel === 'touch' ||
      rel === 'cross_up' ||
      rel === 'cross_down') &&
    after.some((t) => t.t === 'ind' && PRICE_SCALE.has(t.name))
  ) {
    return { kind: 'price' };
  }
  return null;
}

type Add = (c: DCondition, side?: 'long' | 'short') => void;

/** Turns subject + relation + object into conditions; returns what it consumed (null: nothing made). */
function build(
  rel: Rel,
  subject: DOperand,
  obj: DOperand | null,
  tokens: readonly PToken[],
  i: number,
  add: Add,
  result: ClauseResult,
): 'object' | 'relation' | null {
  // An oscillator is never compared with a price-scale line: "stoch oversold, above the 200 EMA" means the price.
  const priceScale = obj?.kind === 'mention' && (isMA(obj.m) || obj.m.name === 'bb');
  // "Ichimoku …: long above the kumo": the indicator as a whole against its own line is the price against it.
  const bandOnBand =
    subject.kind === 'mention' &&
    (subject.m.name === 'bb' || (subject.m.output === null && PRICE_SCALE.has(subject.m.name) && !isMA(subject.m))) &&
    obj?.kind === 'mention' &&
    obj.m.name === subject.m.name;
  const subj: DOperand =
    (subject.kind === 'mention' &&
      priceScale &&
      (['rsi', 'stoch', 'macd', 'atr', 'ao'].includes(subject.m.name) || PATTERN_NAMES.has(subject.m.name))) ||
    bandOnBand
      ? { kind: 'price' }
      : subject;
  const mention = subj.kind === 'mention' ? subj.m : null;
  const objMention = obj?.kind === 'mention' ? obj.m : null;
  // "the chikou is below price": the close (the chikou drawn back) below the close kijun bars ago (its reference column).
  if (
    mention?.name === 'ichimoku' &&
    subj.kind === 'mention' &&
    subj.output === 6 &&
    obj?.kind === 'price' &&
    (rel === 'above' || rel === 'below' || rel === 'cross_up' || rel === 'cross_down')
  ) {
    add({ kind: 'compare', left: { kind: 'price' }, relation: rel, right: subj });
    return 'object';
  }
  if (rel === 'rising' || rel === 'falling') {
    if (subj.kind !== 'mention') return null;
    add({ kind: 'compare', left: subj, relation: rel, right: { kind: 'value', value: 1 } });
    return 'relation';
  }
  if (obj?.kind === 'avg') {
    if (subj.kind !== 'mention' || !(rel === 'above' || rel === 'below' || rel === 'cross_up' || rel === 'cross_down' || rel === 'cross'))
      return null;
    add({ kind: 'compare', left: subj, relation: rel, right: obj });
    return 'object';
  }
  if (rel === 'extremes') {
    if (!mention || !(mention.name in OSCILLATOR_LEVELS)) return null;
    const [lo, hi] = mention.levels ?? OSCILLATOR_LEVELS[mention.name]!;
    const left: DOperand = { kind: 'mention', m: mention, output: mention.name === 'stoch' ? (mention.output ?? 0) : 0 };
    add({ kind: 'compare', left, relation: 'below', right: { kind: 'value', value: lo } });
    add({ kind: 'compare', left, relation: 'above', right: { kind: 'value', value: hi } });
    return 'relation';
  }
  if (mention?.name === 'bb' && !objMention && (rel === 'outside' || rel === 'inside' || rel === 'touch') && obj?.kind !== 'value') {
    const where = rel === 'inside' ? 'inside' : mention.output === 2 ? 'below_lower' : mention.output === 0 ? 'above_upper' : 'outside';
    add({ kind: 'band', m: mention, where });
    return 'relation';
  }
  if (rel === 'oversold' || rel === 'overbought') {
    const m = mention ?? null;
    if (!m || !(m.name in OSCILLATOR_LEVELS)) return null;
    const levels = m.levels ?? OSCILLATOR_LEVELS[m.name]!;
    const explicit = obj?.kind === 'value' ? obj.value : null;
    const near = relationAt(tokens, i + 1);
    const level = near && (near.rel === 'below' || near.rel === 'above') ? objectAt(tokens, i + 1 + near.len) : null;
    const value = level?.op.kind === 'value' ? level.op.value : (explicit ?? (rel === 'oversold' ? levels[0] : levels[1]));
    add({
      kind: 'compare',
      left: { kind: 'mention', m, output: m.name === 'stoch' ? (m.output ?? 0) : 0 },
      relation: rel === 'oversold' ? 'below' : 'above',
      right: { kind: 'value', value },
    });
    return 'relation';
  }
  if (rel === 'leave_oversold' || rel === 'leave_overbought') {
    if (!mention || !(mention.name in OSCILLATOR_LEVELS)) return null;
    const levels = mention.levels ?? OSCILLATOR_LEVELS[mention.name]!;
    // The level written just after ("out of oversold (-80)"), else the oscillator's usual one.
    const k = tokens.slice(i + 2, i + 6).findIndex((t) => t.t === 'num');
    const num = k >= 0 ? (tokens[i + 2 + k] as { v: number }) : null;
    const written = num ? (isSym(tokens[i + 1 + k], '-') ? -num.v : num.v) : null;
    const up = rel === 'leave_oversold';
    const value = written ?? (up ? levels[0] : levels[1]);
    add({
      kind: 'compare',
      left: { kind: 'mention', m: mention, output: mention.name === 'stoch' ? (mention.output ?? 0) : 0 },
      relation: up ? 'cross_up' : 'cross_down',
      right: { kind: 'value', value },
    });
    return 'relation';
  }
  if (objMention?.name === 'bb' && subj.kind === 'price' && objMention.output !== 1) {
    const out = objMention.output;
    const where =
      rel === 'outside' || (rel === 'touch' && out === null)
        ? 'outside'
        : rel === 'inside' || rel === 'between'
          ? 'inside'
          : out !== 0 && (rel === 'below' || rel === 'cross_down' || rel === 'touch')
            ? 'below_lower'
            : out !== 2 && (rel === 'above' || rel === 'cross_up' || rel === 'touch')
              ? 'above_upper'
              : null;
    if (where) {
      add({ kind: 'band', m: objMention, where });
      return 'object';
    }
  }
  if (rel === 'turn_pos' || rel === 'turn_neg') {
    if (!mention) return null;
    const output = mention.name === 'macd' && mention.output === null ? 2 : defaultOutput(mention);
    add({
      kind: 'compare',
      left: { kind: 'mention', m: mention, output },
      relation: rel === 'turn_pos' ? 'cross_up' : 'cross_down',
      right: { kind: 'value', value: 0 },
    });
    return 'relation';
  }
  if (rel === 'between' && obj?.kind === 'value') {
    const second = objectAt(tokens, i + 3);
    if (isWord(tokens[i + 2], 'and') && second?.op.kind === 'value') {
      add({ kind: 'compare', left: subj, relation: 'above', right: obj });
      add({ kind: 'compare', left: subj, relation: 'below', right: second.op });
      return 'relation';
    }
    return null;
  }
  // "sell at R1", "pin bars at the 50 EMA": the bar's range reaches the level.
  if (
    rel === 'touch' &&
    obj?.kind === 'mention' &&
    PRICE_SCALE.has(obj.m.name) &&
    (obj.m.name !== 'bb' || obj.output === 1) &&
    !(subj.kind === 'mention' && PRICE_SCALE.has(subj.m.name))
  ) {
    add({ kind: 'compare', left: { kind: 'price' }, relation: 'touch', right: obj });
    return 'object';
  }
  // "back inside the channel", "re-enters the cloud": for a long, below its top line; for a short, above its bottom line.
  const inside = objMention ? INSIDE_LINES[objMention.name] : undefined;
  if (rel === 'inside' && inside && subj.kind === 'price') {
    add({ kind: 'compare', left: subj, relation: 'below', right: { kind: 'mention', m: objMention!, output: inside.upper } }, 'long');
    add({ kind: 'compare', left: subj, relation: 'above', right: { kind: 'mention', m: objMention!, output: inside.lower } }, 'short');
    return 'object';
  }
  // "RSI hits 40": an oscillator reaching a level crosses it.
  if (rel === 'touch' && obj?.kind === 'value' && mention && !PRICE_SCALE.has(mention.name)) {
    add({ kind: 'compare', left: subj, relation: 'cross', right: obj });
    return 'object';
  }
  if (rel === 'outside' || rel === 'inside' || rel === 'touch' || rel === 'between') return null;
  let right: DOperand | null = obj;
  // The Ichimoku cloud: above it is above both spans (the cloud's top), below it below both (its bottom).
  if (right?.kind === 'mention' && right.m.name === 'ichimoku' && (right.output === 4 || right.output === 5)) {
    right = { ...right, output: rel === 'below' || rel === 'cross_down' ? 5 : 4 };
  }
  if (objMention?.signalLine && mention?.name === 'stoch') right = { kind: 'mention', m: mention, output: 1 };
  if (right && right.kind === 'mention' && mention && right.m.output === null && right.m.name === mention.name && mention.name === 'macd')
    right = { ...right, output: 1 };
  if (!right && mention && (rel === 'cross' || rel === 'cross_up' || rel === 'cross_down')) {
    // A cross with nothing named: MACD line × its signal, %K × %D, the histogram × 0, a moving average × price.
    if (mention.name === 'macd') {
      const output = (subj as { output: number }).output;
      // "the MACD signal line cross": the line crossing its signal, as "the MACD cross".
      if (output === 1) {
        add({
          kind: 'compare',
          left: { kind: 'mention', m: mention, output: 0 },
          relation: bullishBefore(tokens, i) ?? (rel as Relation),
          right: { kind: 'mention', m: mention, output: 1 },
        });
        return 'relation';
      }
      right = output === 2 ? { kind: 'value', value: 0 } : { kind: 'mention', m: mention, output: 1 };
    } else if (mention.name === 'stoch') right = { kind: 'mention', m: mention, output: 1 };
    // "close when ROC crosses back": an oscillator about zero crosses its zero line.
    else if (ZERO_LINE.has(mention.name)) right = { kind: 'value', value: 0 };
    else if (isMA(mention)) {
      if (Object.keys(mention.params).length === 0 && mention.qualifier === null) {
        const [fast, slow] = implyPair(
          result,
          mention.name === 'ema' ? 'ema' : 'sma',
          mention.name === 'ema' ? 12 : 20,
          mention.name === 'ema' ? 26 : 50,
        );
        add({ kind: 'compare', left: opOf(fast), relation: bullishBefore(tokens, i) ?? (rel as Relation), right: opOf(slow) });
        return 'relation';
      }
      add({ kind: 'compare', left: { kind: 'price' }, relation: rel as Relation, right: subj });
      return 'relation';
    }
  }
  if (!right) return null;
  if (subj.kind === 'price' && right.kind === 'value') return null; // a price level: not portable, left out
  if (subj.kind === 'mention' && right.kind === 'mention' && subj.m === right.m && subj.output === right.output) return null;
  const relation: Relation = rel === 'cross' ? (bullishBefore(tokens, i) ?? 'cross') : (rel as Relation);
  add({ kind: 'compare', left: subj, relation, right });
  return 'object';
}

const TREND_PHRASES = [
  /\bwith the trend\b/,
  /\btrend filter\b/,
  /\bfilter(ed)? by (the )?trend\b/,
  /\bdirection of the (trend|\w+ ?\d* ?(sma|ema|wma|ma))\b/,
  /\b(longs?|buys?|buying) only (when )?(price )?(is )?above\b/,
  /\bonly (go |take |open )?(longs?|buys?) (when |if )?(price |the price )?(is )?above\b/,
  /\btrend (is )?(up|down|direction)\b/,
  /\b(sma|ema|wma|ma|moving average|moving averages) filter\b/,
  /\b(while|as long as|provided|only when|only if) (the )?price (is |stays |holds |remains )?(still )?(above|below)\b/,
  /\bonly trade (in )?(the )?(trend|direction)\b/,
  /\babove .* for longs?\b/,
  /\bfollow the trend\b/,
  /\btrend following filter\b/,
];

function trendIn(mentions: Mention[], phrase: string, result: ClauseResult): void {
  if (!TREND_PHRASES.some((re) => re.test(phrase))) return;
  const mas = mentions.filter(isMA);
  const m = mas.reduce<Mention | null>((best, x) => (best === null || (x.params.period ?? 0) > (best.params.period ?? 0) ? x : best), null);
  result.trend = { m, phrase };
  if (m && !result.drafts.some((d) => d.cond.kind === 'compare' && d.cond.left.kind === 'price')) {
    result.drafts.push({
      cond: { kind: 'compare', left: { kind: 'price' }, relation: 'above', right: opOf(m) },
      side: null,
      phrase,
      role: 'entry',
      negate: false,
    });
  }
}

function breakoutIn(phrase: string, side: 'long' | 'short' | null, result: ClauseResult, carry: Carry): void {
  const window = (re: RegExp, fallback: number) => {
    const m = re.exec(phrase);
    if (!m) return null;
    const n = Number(m[1] ?? m[2] ?? fallback);
    return Number.isFinite(n) && n >= 2 && n <= 500 ? Math.round(n) : fallback;
  };
  const brk =
    window(/\b(\d+) (?:bars? |candles? |periods? |days? )?(?:high|low|range|channel)s?\b/, 20) ??
    window(/\b(?:(\d+) ?(?:bars? |periods? )?donchian|donchian(?: channels?)?(?: ?\(?(\d+))?)/, 20) ??
    // A bare "breakouts" after a breakout of N bars was named is that one ("donchian 55 …, long breakouts only").
    window(/\b(?:breakout|break out|breaks out|range break)(?: of (?:the )?(?:last )?(\d+))?/, carry.breakout ?? 20) ??
    window(/\bnew (\d+)? ?(?:bars? )?(?:highs?|lows?)\b/, 20);
  // "a breakout of the 20 bar high" names one side: the break up, for longs.
  const high = /\bbreak\w* (?:of |above |through |over )?(?:the )?(?:[a-z0-9]+ ){0,3}highs?\b/.test(phrase);
  const low = /\bbreak\w* (?:of |below |through |under )?(?:the )?(?:[a-z0-9]+ ){0,3}lows?\b/.test(phrase);
  const sideWords = /\b(?:buy|buys|sell|sells|long|longs|short|shorts)\b/.test(phrase);
  const named = side ?? (high !== low && !sideWords ? (high ? 'long' : 'short') : null);
  if (brk !== null) {
    result.drafts.push({ cond: { kind: 'breakout', window: brk }, side: named, phrase, role: 'entry', negate: false });
    carry.breakout ??= brk;
  }
  const mom = window(/\bmomentum(?: \(?(?:of |over )?(?:the )?(?:last )?(\d+))?/, 10);
  if (mom !== null) result.drafts.push({ cond: { kind: 'momentum', window: mom }, side, phrase, role: 'entry', negate: false });
}
