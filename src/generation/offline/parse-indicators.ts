/**
 * Indicator mentions in a clause: the 8 built-in indicators by any of their names, with the
 * parameters written around them — `RSI(14)`, `rsi 7`, `14-period RSI`, `200 SMA`, `EMA 9/21`,
 * `MACD 12/26/9`, `2-sigma Bollinger band`, `stochastic %K`, `fast EMA 12` — replaced in the
 * token stream by one `ind` token each. Parameters not written are resolved later (resolve.ts).
 */
import type { GenName as IndicatorName } from './gen-indicators.ts';
import { isSym, isWord, type Token } from './text.ts';

/** One indicator mention: the parameters written (others come from context or defaults). */
export interface Mention {
  t: 'ind';
  name: IndicatorName;
  params: Record<string, number>;
  /** Which output column is meant (MACD 0 line, 1 signal, 2 histogram; BB 0 upper, 1 middle, 2 lower; stoch 0 %K, 1 %D). */
  output: number | null;
  qualifier: 'fast' | 'slow' | null;
  /** `RSI 30/70`: oversold and overbought levels written beside it. */
  levels: [number, number] | null;
  /** Written as a bare "signal line" (MACD's, unless a stochastic is the subject). */
  signalLine: boolean;
  /** Its period was given in days (read as bars). */
  days: boolean;
}

export type PToken = Token | Mention;

type Alias = { words: string[]; name: IndicatorName; output?: number; signalLine?: boolean; params?: Record<string, number> };

const LEVEL_ALIASES: Alias[] = (['r1', 's1', 'r2', 's2'] as const).flatMap((w, k) => [
  { words: [w, 'pivot', 'point'], name: 'pivot' as const, output: k + 1 },
  { words: [w, 'pivot', 'level'], name: 'pivot' as const, output: k + 1 },
  { words: [w, 'pivot'], name: 'pivot' as const, output: k + 1 },
  { words: [w, 'pivots'], name: 'pivot' as const, output: k + 1 },
  { words: [w], name: 'pivot' as const, output: k + 1 },
]);

/** The previous UTC day's high and low (the pivots' inputs): "yesterday's high", "the previous day's low", "PDH". */
const PREVIOUS_DAY: Alias[] = (['high', 'low'] as const).flatMap((hl, k) => [
  ...[
    ['previous', "day's"],
    ['previous', 'days'],
    ['previous', 'day'],
    ['prior', "day's"],
    ['prior', 'day'],
    ["yesterday's"],
    ['yesterdays'],
    ['yesterday'],
  ].map((w) => ({ words: [...w, hl], name: 'pivot' as const, output: 5 + k })),
  { words: [k ? 'pdl' : 'pdh'], name: 'pivot' as const, output: 5 + k },
]);

const ALIASES: Alias[] = [
  ...LEVEL_ALIASES,
  ...PREVIOUS_DAY,
  // DMI's lines: "+DI" / "-DI" are read as plusdi / minusdi (joinMarks).
  { words: ['plusdi'], name: 'adx', output: 1 },
  { words: ['minusdi'], name: 'adx', output: 2 },
  { words: ['plus', 'di'], name: 'adx', output: 1 },
  { words: ['minus', 'di'], name: 'adx', output: 2 },
  { words: ['positive', 'di'], name: 'adx', output: 1 },
  { words: ['negative', 'di'], name: 'adx', output: 2 },
  { words: ['di', 'plus'], name: 'adx', output: 1 },
  { words: ['di', 'minus'], name: 'adx', output: 2 },
  { words: ['average', 'directional', 'index'], name: 'adx' },
  { words: ['directional', 'movement', 'index'], name: 'adx' },
  { words: ['commodity', 'channel', 'index'], name: 'cci' },
  { words: ['parabolic', 'sar'], name: 'psar' },
  { words: ['rate', 'of', 'change'], name: 'roc' },
  { words: ['williams', 'r'], name: 'willr' },
  { words: ['williams', 'percent', 'r'], name: 'willr' },
  { words: ['keltner', 'channels'], name: 'keltner' },
  { words: ['keltner', 'channel'], name: 'keltner' },
  { words: ['donchian', 'channels'], name: 'donchian' },
  { words: ['donchian', 'channel'], name: 'donchian' },
  { words: ['pivot', 'points'], name: 'pivot' },
  { words: ['pivot', 'point'], name: 'pivot' },
  { words: ['daily', 'pivot'], name: 'pivot' },
  { words: ['super', 'trend'], name: 'supertrend' },
  { words: ['z', 'score'], name: 'zscore' },
  { words: ['pin', 'bar'], name: 'pinbar' },
  { words: ['pin', 'bars'], name: 'pinbar' },
  { words: ['inside', 'bar'], name: 'insidebar' },
  { words: ['inside', 'bars'], name: 'insidebar' },
  { words: ['shooting', 'star'], name: 'pinbar' },
  { words: ['volatility', 'regime'], name: 'volregime' },
  ...(['star', 'stars'] as const).flatMap((w) => [
    { words: ['morning', w], name: 'star' as const },
    { words: ['evening', w], name: 'star' as const },
    { words: ['morningstar'], name: 'star' as const },
    { words: ['eveningstar'], name: 'star' as const },
  ]),
  ...['bottom', 'bottoms', 'top', 'tops', 'pattern'].map((w) => ({ words: ['tweezer', w], name: 'tweezer' as const })),
  { words: ['tweezers'], name: 'tweezer' },
  { words: ['tweezer'], name: 'tweezer' },
  { words: ['narrow', 'range'], name: 'nr' },
  { words: ['nr'], name: 'nr' },
  { words: ['heikin', 'ashi'], name: 'heikin' },
  { words: ['heiken', 'ashi'], name: 'heikin' },
  { words: ['heikinashi'], name: 'heikin' },
  { words: ['ha', 'candles'], name: 'heikin' },
  { words: ['ha', 'candle'], name: 'heikin' },
  { words: ['ha', 'bars'], name: 'heikin' },
  { words: ['macd', 'divergence'], name: 'macddiv' },
  { words: ['macd', 'divergences'], name: 'macddiv' },
  { words: ['rsi', 'divergence'], name: 'rsidiv' },
  { words: ['rsi', 'divergences'], name: 'rsidiv' },
  { words: ['divergence'], name: 'rsidiv' },
  { words: ['divergences'], name: 'rsidiv' },
  { words: ['awesome', 'oscillator'], name: 'ao' },
  { words: ['ao'], name: 'ao' },
  { words: ['sessrange'], name: 'sessrange' },
  { words: ['swing', 'high'], name: 'hhll', output: 0 },
  { words: ['swing', 'low'], name: 'hhll', output: 1 },
  { words: ['highest', 'high'], name: 'hhll', output: 0 },
  { words: ['lowest', 'low'], name: 'hhll', output: 1 },
  { words: ['chikou', 'span'], name: 'ichimoku', output: 6 },
  { words: ['lagging', 'span'], name: 'ichimoku', output: 6 },
  { words: ['chikou'], name: 'ichimoku', output: 6 },
  { words: ['tenkan'], name: 'ichimoku', output: 0 },
  { words: ['kijun'], name: 'ichimoku', output: 1 },
  // The cloud: its top (above it) or bottom (below it), chosen by the relation (parse-conditions).
  { words: ['ichimoku', 'cloud'], name: 'ichimoku', output: 4 },
  { words: ['cloud'], name: 'ichimoku', output: 4 },
  { words: ['kumo'], name: 'ichimoku', output: 4 },
  { words: ['ichimoku'], name: 'ichimoku' },
  { words: ['adx'], name: 'adx' },
  { words: ['dmi'], name: 'adx', output: 1 },
  { words: ['cci'], name: 'cci' },
  { words: ['psar'], name: 'psar' },
  { words: ['sar'], name: 'psar' },
  { words: ['roc'], name: 'roc' },
  { words: ['willr'], name: 'willr' },
  { words: ['keltner'], name: 'keltner' },
  { words: ['donchian'], name: 'donchian' },
  { words: ['vwap'], name: 'vwap' },
  { words: ['pivot'], name: 'pivot' },
  { words: ['pivots'], name: 'pivot' },
  { words: ['supertrend'], name: 'supertrend' },
  { words: ['zscore'], name: 'zscore' },
  { words: ['engulfing'], name: 'engulfing' },
  { words: ['hammer'], name: 'pinbar' },
  { words: ['pinbar'], name: 'pinbar' },
  { words: ['moving', 'average', 'convergence', 'divergence'], name: 'macd' },
  { words: ['linear', 'weighted', 'moving', 'average'], name: 'wma' },
  { words: ['simple', 'moving', 'averages'], name: 'sma' },
  { words: ['simple', 'moving', 'average'], name: 'sma' },
  { words: ['exponential', 'moving', 'averages'], name: 'ema' },
  { words: ['exponential', 'moving', 'average'], name: 'ema' },
  { words: ['weighted', 'moving', 'average'], name: 'wma' },
  { words: ['relative', 'strength', 'index'], name: 'rsi' },
  { words: ['average', 'true', 'range'], name: 'atr' },
  { words: ['stochastic', 'oscillator'], name: 'stoch' },
  { words: ['bollinger', 'bands'], name: 'bb' },
  { words: ['bollinger', 'band'], name: 'bb' },
  { words: ['moving', 'averages'], name: 'sma' },
  { words: ['moving', 'average'], name: 'sma' },
  { words: ['relative', 'strength'], name: 'rsi' },
  { words: ['true', 'range'], name: 'atr' },
  { words: ['simple', 'ma'], name: 'sma' },
  { words: ['exponential', 'ma'], name: 'ema' },
  { words: ['upper', 'band'], name: 'bb', output: 0 },
  { words: ['upper', 'bands'], name: 'bb', output: 0 },
  { words: ['lower', 'band'], name: 'bb', output: 2 },
  { words: ['lower', 'bands'], name: 'bb', output: 2 },
  { words: ['middle', 'band'], name: 'bb', output: 1 },
  { words: ['signal', 'line'], name: 'macd', output: 1, signalLine: true },
  { words: ['bollinger'], name: 'bb' },
  { words: ['bbands'], name: 'bb' },
  { words: ['bb'], name: 'bb' },
  { words: ['bands'], name: 'bb' },
  { words: ['band'], name: 'bb' },
  { words: ['sma'], name: 'sma' },
  { words: ['ma'], name: 'sma' },
  { words: ['ema'], name: 'ema' },
  { words: ['wma'], name: 'wma' },
  { words: ['lwma'], name: 'wma' },
  { words: ['rsi'], name: 'rsi' },
  { words: ['macd'], name: 'macd' },
  { words: ['stochastics'], name: 'stoch' },
  { words: ['stochastic'], name: 'stoch' },
  { words: ['stoch'], name: 'stoch' },
  { words: ['stochk'], name: 'stoch', output: 0 },
  { words: ['stochd'], name: 'stoch', output: 1 },
  { words: ['histogram'], name: 'macd', output: 2 },
  { words: ['atr'], name: 'atr' },
];

/** Parameter names as people write them, per indicator. */
const P = { period: 'period', periods: 'period', length: 'period', lookback: 'period', window: 'period' };
const NAMED: Record<IndicatorName, Record<string, string>> = {
  adx: P,
  cci: P,
  donchian: P,
  roc: P,
  willr: P,
  zscore: P,
  hhll: P,
  keltner: { ...P, multiplier: 'mult', mult: 'mult', atr: 'mult' },
  supertrend: { ...P, multiplier: 'mult', mult: 'mult', factor: 'mult' },
  psar: { step: 'step', acceleration: 'step', max: 'max', maximum: 'max' },
  ichimoku: { tenkan: 'tenkan', kijun: 'kijun', senkou: 'senkou' },
  volregime: P,
  vwap: {},
  pivot: {},
  engulfing: {},
  pinbar: {},
  insidebar: {},
  candlerun: {},
  star: {},
  tweezer: {},
  heikin: {},
  nr: P,
  rsidiv: { period: 'period', lookback: 'lookback' },
  macddiv: { fast: 'fast', slow: 'slow', lookback: 'lookback' },
  sessrange: {},
  ao: { fast: 'fast', slow: 'slow' },
  sma: { period: 'period', periods: 'period', length: 'period', lookback: 'period', window: 'period' },
  ema: { period: 'period', periods: 'period', length: 'period', lookback: 'period', window: 'period', span: 'period' },
  wma: { period: 'period', periods: 'period', length: 'period', lookback: 'period', window: 'period' },
  rsi: { period: 'period', periods: 'period', length: 'period', lookback: 'period', window: 'period' },
  atr: { period: 'period', periods: 'period', length: 'period', lookback: 'period', window: 'period' },
  bb: {
    period: 'period',
    periods: 'period',
    length: 'period',
    lookback: 'period',
    window: 'period',
    std: 'std',
    sigma: 'std',
    sd: 'std',
    deviation: 'std',
    deviations: 'std',
    dev: 'std',
    multiplier: 'std',
    mult: 'std',
  },
  macd: { fast: 'fast', slow: 'slow', signal: 'signal' },
  stoch: {
    k: 'k_period',
    stochk: 'k_period',
    d: 'd_period',
    stochd: 'd_period',
    smoothing: 'd_period',
    period: 'k_period',
    length: 'k_period',
    lookback: 'k_period',
  },
};

/** Parameter order for numbers written one after another. */
const POSITIONAL: Record<IndicatorName, string[]> = {
  sma: ['period'],
  ema: ['period'],
  wma: ['period'],
  rsi: ['period'],
  atr: ['period'],
  bb: ['period', 'std'],
  macd: ['fast', 'slow', 'signal'],
  stoch: ['k_period', 'd_period'],
  adx: ['period'],
  cci: ['period'],
  donchian: ['period'],
  roc: ['period'],
  willr: ['period'],
  zscore: ['period'],
  hhll: ['period'],
  keltner: ['period', 'mult'],
  supertrend: ['period', 'mult'],
  psar: ['step', 'max'],
  ichimoku: ['tenkan', 'kijun', 'senkou'],
  volregime: ['period', 'window'],
  vwap: [],
  pivot: [],
  engulfing: [],
  pinbar: [],
  insidebar: [],
  candlerun: [],
  star: [],
  tweezer: [],
  heikin: [],
  nr: ['period'],
  rsidiv: ['period', 'lookback'],
  macddiv: ['fast', 'slow', 'lookback'],
  sessrange: ['start', 'end'],
  ao: ['fast', 'slow'],
};

const OUTPUT_AFTER: Partial<Record<IndicatorName, Record<string, number>>> = {
  macd: { histogram: 2, line: 0 },
  bb: { upper: 0, lower: 2, middle: 1, mid: 1, basis: 1 },
  stoch: { stochk: 0, stochd: 1, k: 0, d: 1 },
  keltner: { upper: 0, middle: 1, mid: 1, lower: 2 },
  donchian: { upper: 0, high: 0, lower: 1, low: 1, middle: 2, mid: 2 },
  pivot: { p: 0, r1: 1, s1: 2, r2: 3, s2: 4 },
  adx: { plus: 1, minus: 2 },
  hhll: { high: 0, highs: 0, low: 1, lows: 1 },
  sessrange: { high: 0, highs: 0, low: 1, lows: 1 },
};
const OUTPUT_BEFORE: Partial<Record<IndicatorName, Record<string, number>>> = {
  bb: { upper: 0, lower: 2, middle: 1, mid: 1 },
  macd: {},
  keltner: { upper: 0, middle: 1, mid: 1, lower: 2 },
  donchian: { upper: 0, lower: 1, middle: 2, mid: 2 },
};

const UNIT_WORDS = new Set(['period', 'periods', 'bars', 'bar', 'candles', 'day', 'days', 'length', 'minutes', 'lookback']);
/** Words after which a number is a value being compared, never a parameter of the next indicator. */
const RELATION_WORDS = new Set([
  'above',
  'below',
  'under',
  'over',
  'than',
  'to',
  'reaches',
  'hits',
  'at',
  'between',
  'and',
  'crosses',
  'exceeds',
]);
const ONE_PARAM = new Set<IndicatorName>(['sma', 'ema', 'wma', 'rsi', 'atr']);
/** Trader indicators whose first number is a window ("20-bar high", "ADX 14"). */
const SINGLE_WORD_NUMBER_LIMIT = 500;

const SIGNAL_ALONE: Alias = { words: ['signal'], name: 'macd', output: 1, signalLine: true };
const BEFORE_SIGNAL = new Set(['above', 'below', 'over', 'under', 'crosses', 'cross', 'crossing', 'crossed', 'the', 'its', 'than']);

function matchAlias(tokens: readonly Token[], i: number): Alias | null {
  // A bare "signal" right after a relation ("MACD above signal") is the signal line.
  const prev = tokens[i - 1];
  if (
    isWord(tokens[i], 'signal') &&
    prev?.t === 'word' &&
    BEFORE_SIGNAL.has(prev.w) &&
    tokens[i + 1]?.t !== 'num' &&
    !isWord(tokens[i + 1], 'line', 'threshold')
  )
    return SIGNAL_ALONE;
  for (const alias of ALIASES) {
    if (alias.words.every((w, k) => isWord(tokens[i + k], w))) return alias;
  }
  return null;
}

const mention = (name: IndicatorName, alias: Alias): Mention => ({
  t: 'ind',
  name,
  params: { ...alias.params },
  output: alias.output ?? null,
  qualifier: null,
  levels: null,
  signalLine: alias.signalLine ?? false,
  days: false,
});

interface Run {
  numbers: number[];
  named: Record<string, number>;
  end: number;
  days: boolean;
}

/** Reads parameters after position j: `(a, b)`, `a b c`, `a/b`, `period 14`, `fast 8 slow 21`, `2 std`. */
function readAfter(tokens: readonly Token[], j: number, name: IndicatorName): Run {
  const run: Run = { numbers: [], named: {}, end: j, days: false };
  const named = NAMED[name];
  let k = j;
  while (
    isWord(tokens[k], 'with', 'using', 'a', 'an') &&
    (tokens[k + 1]?.t === 'num' ||
      (tokens[k + 1]?.t === 'word' && (isWord(tokens[k + 1], 'a', 'an') || named[(tokens[k + 1] as { w: string }).w] !== undefined)))
  )
    k++;
  if (isSym(tokens[k], '-', ':', '=') && tokens[k + 1]?.t === 'num') k++;
  const paren = isSym(tokens[k], '(', '[');
  if (paren) k++;
  while (k < tokens.length) {
    const tok = tokens[k]!;
    if (paren && isSym(tok, ')', ']')) {
      k++;
      break;
    }
    if (tok.t === 'num') {
      const next = tokens[k + 1];
      if (
        next?.t === 'word' &&
        named[next.w] &&
        ((name === 'bb' && named[next.w] === 'std') || (name === 'keltner' && named[next.w] === 'mult'))
      ) {
        // "2-sigma", "with 2 ATR bands": the number is the multiplier it names, not a period.
        run.named[named[next.w]!] = tok.v;
        k += 2;
      } else {
        if (isSym(next, '%', '$') || isWord(next, 'pips', 'percent', 'dollars', 'hours', 'minutes')) break;
        run.numbers.push(tok.v);
        k++;
        if (next?.t === 'word' && UNIT_WORDS.has(next.w)) {
          run.days ||= next.w === 'day' || next.w === 'days';
          k++;
        }
      }
      continue;
    }
    if (tok.t === 'word' && named[tok.w] && tokens[k + 1]) {
      let v = k + 1;
      while (isSym(tokens[v], '=', ':') || isWord(tokens[v], 'of', 'is')) v++;
      const value = tokens[v];
      if (value?.t === 'num') {
        run.named[named[tok.w]!] = value.v;
        k = v + 1;
        continue;
      }
      if (!paren) break;
    }
    if (
      isSym(tok, ',', '/', '-') ||
      (paren && tok.t === 'word') ||
      (isWord(tok, 'and') && tokens[k + 1]?.t === 'num' && run.numbers.length > 0 && ONE_PARAM.has(name))
    ) {
      if (!paren && run.numbers.length === 0 && Object.keys(run.named).length === 0) break;
      k++;
      continue;
    }
    break;
  }
  // A trailing separator belongs to what follows.
  while (k > j && !paren && isSym(tokens[k - 1], ',', '/', '-')) k--;
  run.end = k;
  return run;
}

/** Numbers right before the alias (`200 SMA`, `50/200 EMA`, `14-period RSI`, `2 sigma bands`). */
function readBefore(
  tokens: readonly Token[],
  i: number,
  name: IndicatorName,
  floor: number,
  afterOscillator: boolean,
): Run & { start: number } {
  const run: Run & { start: number } = { numbers: [], named: {}, end: i, days: false, start: i };
  let k = i - 1;
  while (k >= floor && tokens[k]?.t === 'word' && UNIT_WORDS.has((tokens[k] as { w: string }).w)) {
    run.days ||= isWord(tokens[k], 'day', 'days');
    k--;
  }
  if (
    name === 'bb' &&
    k - 1 >= floor &&
    tokens[k]?.t === 'word' &&
    NAMED.bb[(tokens[k] as { w: string }).w] === 'std' &&
    tokens[k - 1]?.t === 'num'
  ) {
    run.named.std = (tokens[k - 1] as { v: number }).v;
    run.start = k - 1;
    k -= 2;
    while (k >= floor && tokens[k]?.t === 'word' && UNIT_WORDS.has((tokens[k] as { w: string }).w)) k--;
  }
  const nums: number[] = [];
  let first = k + 1;
  while (k >= floor && tokens[k]?.t === 'num') {
    nums.unshift((tokens[k] as { v: number }).v);
    first = k;
    const sep = tokens[k - 1];
    if (k - 2 >= floor && (isSym(sep, '/', ',') || (isWord(sep, 'and') && ONE_PARAM.has(name))) && tokens[k - 2]?.t === 'num') k -= 2;
    else break;
  }
  if (nums.length === 0) return run;
  const before = tokens[first - 1];
  const afterRelation = (before?.t === 'word' && RELATION_WORDS.has(before.w)) || isSym(before, '<', '>', '<=', '>=', '=');
  if (afterRelation && afterOscillator) return run;
  if (ONE_PARAM.has(name) && nums.some((v) => !Number.isInteger(v))) return run;
  run.numbers = nums;
  run.start = first;
  return run;
}

function qualifierBefore(tokens: readonly Token[], i: number, floor: number): { q: 'fast' | 'slow' | null; start: number } {
  let k = i - 1;
  if (isWord(tokens[k], 'term') && k - 1 >= floor) k--;
  if (k < floor) return { q: null, start: i };
  if (isWord(tokens[k], 'fast', 'faster', 'quick', 'short', 'shorter')) return { q: 'fast', start: k };
  if (isWord(tokens[k], 'slow', 'slower', 'long', 'longer')) {
    // "long EMA" could be the direction ("go long when…"): only with "term" or without a verb before.
    if (isWord(tokens[k], 'long') && !isWord(tokens[k + 1], 'term')) return { q: null, start: i };
    return { q: 'slow', start: k };
  }
  return { q: null, start: i };
}

/** Assigns a run's numbers to parameters; a single-parameter indicator with several numbers gives several mentions. */
function assign(base: Mention, run: Run): Mention[] {
  const order = POSITIONAL[base.name];
  if (ONE_PARAM.has(base.name)) {
    if ((base.name === 'rsi' || base.name === 'stoch') && run.numbers.length === 2 && run.numbers[0]! < 50 && run.numbers[1]! > 50) {
      return [{ ...base, levels: [run.numbers[0]!, run.numbers[1]!], params: { ...run.named } }];
    }
    if (base.name === 'rsi' && run.numbers.length === 3 && run.numbers[1]! < 50 && run.numbers[2]! > 50) {
      return [{ ...base, params: { period: run.numbers[0]! }, levels: [run.numbers[1]!, run.numbers[2]!] }];
    }
    const values = run.numbers.length ? run.numbers : run.named.period !== undefined ? [run.named.period] : [];
    if (values.length === 0) return [base];
    return values.map((v) => ({ ...base, params: { period: v }, days: run.days }));
  }
  const params: Record<string, number> = { ...run.named };
  let numbers = run.numbers;
  if (base.name === 'bb' && numbers.length === 1 && numbers[0]! <= 5 && params.std === undefined) {
    params.std = numbers[0]!;
    numbers = [];
  }
  if (base.name === 'stoch' && numbers.length === 2 && numbers[0]! < 50 && numbers[1]! > 50 && numbers[1]! <= 100) {
    return [{ ...base, params, levels: [numbers[0]!, numbers[1]!] }];
  }
  const free = order.filter((p) => params[p] === undefined);
  numbers.slice(0, free.length).forEach((v, idx) => (params[free[idx]!] = v));
  return [{ ...base, params, days: run.days }];
}

/**
 * Names the normaliser splits: "R1" (lexed "r 1") → r1, the pivot level; "+DI" / "-DI" → plusdi /
 * minusdi, DMI's lines (the sign is part of the name, not a negative number).
 */
function joinMarks(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const [a, b] = [tokens[i]!, tokens[i + 1]];
    if (isWord(a, 'r', 's') && b?.t === 'num' && (b.v === 1 || b.v === 2) && b.raw.length === 1) {
      out.push({ t: 'word', w: `${(a as { w: string }).w}${b.v}` });
      i++;
    } else if (isSym(a, '+', '-') && isWord(b, 'di')) {
      out.push({ t: 'word', w: isSym(a, '+') ? 'plusdi' : 'minusdi' });
      i++;
    } else out.push(a);
  }
  return out;
}

const OSCILLATORS = new Set<IndicatorName>(['rsi', 'stoch', 'macd', 'atr', 'adx', 'cci', 'willr', 'roc', 'zscore']);

/**
 * Replaces indicator names (and the parameters written with them) by mentions. Numbers too large
 * for a parameter are left alone (they are then values, e.g. a price level).
 */
export function findMentions(input: readonly Token[]): PToken[] {
  const tokens = joinMarks(input);
  const spans: Array<{ start: number; end: number; mentions: Mention[] }> = [];
  let i = 0;
  let floor = 0; // tokens before this index belong to an earlier mention
  while (i < tokens.length) {
    const alias = matchAlias(tokens, i);
    if (!alias) {
      i++;
      continue;
    }
    const base = mention(alias.name, alias);
    let start = i;
    const qual = qualifierBefore(tokens, i, floor);
    if (qual.q) [base.qualifier, start] = [qual.q, qual.start];
    const before1 = tokens[start - 1];
    const outputsBefore = OUTPUT_BEFORE[alias.name] ?? {};
    if (base.output === null && start - 1 >= floor && before1?.t === 'word' && outputsBefore[before1.w] !== undefined) {
      base.output = outputsBefore[before1.w]!;
      start--;
    }
    let j = i + alias.words.length;
    const outputsAfter = OUTPUT_AFTER[alias.name] ?? {};
    const readOutput = () => {
      const tok = tokens[j];
      if (base.output !== null || tok?.t !== 'word') return;
      if (alias.name === 'macd' && tok.w === 'signal') {
        if (tokens[j + 1]?.t === 'num' || isSym(tokens[j + 1], '=', ':')) return;
        base.output = 1;
        j += isWord(tokens[j + 1], 'line') ? 2 : 1;
      } else if (outputsAfter[tok.w] !== undefined) {
        base.output = outputsAfter[tok.w]!;
        j++;
        if (isWord(tokens[j], 'line', 'band', 'bands')) j++;
      }
    };
    readOutput();
    let after = readAfter(tokens, j, alias.name);
    if (after.numbers.some((v) => v > SINGLE_WORD_NUMBER_LIMIT)) after = { numbers: [], named: {}, end: j, days: false };
    j = after.end;
    readOutput();
    let run: Run = after;
    const prev = spans[spans.length - 1];
    const afterOscillator = prev !== undefined && start - prev.end <= 4 && prev.mentions.some((m) => OSCILLATORS.has(m.name));
    if (after.numbers.length === 0 && Object.keys(after.named).length === 0) {
      const before = readBefore(tokens, start, alias.name, floor, afterOscillator);
      if (before.numbers.length || Object.keys(before.named).length) [run, start] = [before, before.start];
    } else if (alias.name === 'bb' && after.named.std === undefined) {
      const before = readBefore(tokens, start, alias.name, floor, afterOscillator);
      if (before.named.std !== undefined) [run, start] = [{ ...after, named: { ...after.named, std: before.named.std } }, before.start];
    }
    spans.push({ start, end: j, mentions: assign(base, run) });
    i = Math.max(j, i + 1);
    floor = i;
  }
  const out: PToken[] = [];
  let k = 0;
  for (const span of spans) {
    while (k < span.start) out.push(tokens[k++]!);
    out.push(...span.mentions);
    k = span.end;
  }
  while (k < tokens.length) out.push(tokens[k++]!);
  return out;
}
