/**
 * Stops, targets and the volatility filter in normalised text.
 *
 * Amounts: `20 pips` (also `points`), `0.5%` / `0.5 percent`, `$50` / `50 dollars`, `2 x ATR`,
 * a bare ratio below 0.2 with a decimal point (`stop 0.005`); a bare whole number is read as
 * pips. Reward/risk: `1:2 risk reward`, `rr 2`, `2r target`, `target twice the stop` set the take
 * as a multiple of the stop (the larger side of a:b is the reward). "no stop", "let profits
 * run" disable. Words that only rule out a *default* (never a stop or take the text gives):
 * "let it run", "ride the trend" — no default take; "exit only on the opposite signal", "hold
 * until the opposite signal" — no default stop or take (the opposite signal is the exit). Volatility: `ATR above 10 pips`, `NATR > 0.05`, `min ATR 0.08%` → min_atr (NATR in
 * percent); "volatility filter", "avoid quiet markets" → the default for the symbol/timeframe.
 */
import { findAll, findConst, type Finding } from './parse-rules.ts';

export type AmountUnit = 'pips' | 'pct' | 'usd' | 'atr' | 'ratio';
export interface Amount {
  amount: number;
  unit: AmountUnit;
  /** A bare whole number read as pips. */
  assumed?: boolean;
}
export type TakeValue = Amount | { rr: number } | null;
export type MinAtrValue = { value: number; unit: 'pips' | 'pct' | 'price' } | 'default' | null;

export interface RiskFindings {
  stop: Finding<Amount | null>[];
  take: Finding<TakeValue>[];
  minAtr: Finding<MinAtrValue>[];
  /** "let it run", "ride the trend": no default take profit (a take the text gives still holds). */
  letRun: Finding<true>[];
  /** "exit only on the opposite signal": neither a default stop nor a default take. */
  signalExitOnly: Finding<true>[];
  remarks: string[];
}

const NUM = '(\\d+(?:\\.\\d+)?|\\.\\d+)';
const UNITS = '(pips|points|%|percent|\\$|dollars|x atr|times atr|atr|atrs)';
const NOT_TIME = '(?! ?(?:bars|candles|hours|minutes|trades|losses|positions|days|periods|ahead|in a row|times? in|consecutive)\\b)';
const LINK =
  '(?: (?:of|at|is|=|:|to|around|about|~|set at|placed at|set to|with|distance|level|roughly|approx|approximately|maybe|max|maximum|at most))*';

const STOP_WORDS = '(?:stop loss|stop|stops|protective stop|hard stop)';
const TAKE_WORDS = '(?:take profit|profit target|target|targets|take|profit|tgt)';

function amount(dollarBefore: string | undefined, raw: string, unit: string | undefined): Amount | null {
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) return null;
  if (dollarBefore || unit === '$' || unit === 'dollars') return { amount: n, unit: 'usd' };
  if (unit === 'pips' || unit === 'points') return { amount: n, unit: 'pips' };
  if (unit === '%' || unit === 'percent') return { amount: n, unit: 'pct' };
  if (unit && /atr/.test(unit)) return { amount: n, unit: 'atr' };
  if (raw.includes('.') && n < 0.2) return { amount: n, unit: 'ratio' };
  return { amount: n, unit: 'pips', assumed: true };
}

const N = `${NUM}(?!\\d|\\.\\d)`;
const after = (words: string) => new RegExp(`\\b${words}\\b${LINK} ?(?<d>\\$ )?(?<n>${N}) ?(?<u>${UNITS})?${NOT_TIME}`);
const before = (words: string) => new RegExp(`(?:(?<d>\\$ )(?<n>${N})|(?<n2>${N}) ?(?<u>${UNITS})) (?:${words})\\b`);
const fromMatch = (m: RegExpMatchArray) => amount(m.groups?.d, (m.groups?.n ?? m.groups?.n2)!, m.groups?.u);

const RR_PAIR_AFTER = new RegExp(
  `\\b(?:risk ?(?:to |: ?|\\/ ?)?reward|reward ?(?:to |: ?|\\/ ?)?risk|rr|r ?: ?r|r\\/r)(?: ratio)?(?: of| =| :| at)? ${NUM} ?(?::|to|\\/) ?${NUM}`,
);
const RR_PAIR_BEFORE = new RegExp(
  `${NUM} ?(?::|to|\\/) ?${NUM} (?:risk ?(?:to |: ?|\\/ ?)?reward|reward ?(?:to |: ?|\\/ ?)?risk|rr|r ?: ?r|r\\/r)`,
);
const RR_SINGLE = [
  new RegExp(`\\b(?:rr|risk ?(?:to )?reward|reward ?(?:to )?risk)(?: ratio)?(?: of| =| :)? ${NUM}\\b(?! ?(?::|to|\\/) ?\\d)`),
  new RegExp(`\\b${NUM} ?r (?:target|take profit|tp|take)\\b`),
  // "take profit 3R" at the end of the text too (it was read as 3 pips).
  new RegExp(`\\b(?:take profit|target|tp|take)(?: at| of| =)? ${NUM} ?(?:x|times|r)(?: (?:the )?(?:stop|risk|sl|stop loss))?\\b`),
];
const RR_WORDS = [/\b(?:twice|double) (?:the )?(?:stop|risk|stop loss)\b/];

const NO_STOP = [/\b(?:no|without(?: a| any)?|disable(?:d)?(?: the)?|skip(?: the)?) (?:fixed |hard )?(?:stop loss|stop|stops)\b/];
const NO_TAKE = [
  /\b(?:no|without(?: a| any)?|disable(?:d)?(?: the)?) (?:fixed |hard |set )?(?:take profit|profit target|target|targets|tp)\b/,
  /\blet (?:the )?(?:profits|winners|profit|winning trades) run\b/,
];
const OPPOSITE = '(?:the |an |a )?(?:opposite|opposing|counter|reverse) signals?';
const SIGNAL_EXIT_ONLY = [
  new RegExp(`\\b(?:exit|exits|close|closes)(?: the)?(?: position| positions| trade| trades)? only (?:on|at|when|with|by) ${OPPOSITE}\\b`),
  new RegExp(`\\bonly (?:exit|close)(?: the)?(?: position| trade)? (?:on|at|when|with|by) ${OPPOSITE}\\b`),
  new RegExp(`\\b(?:hold|stay in|keep)(?: it| the position| the trade| positions| trades)? (?:until|till|to) ${OPPOSITE}\\b`),
];
const LET_RUN = [
  /\blet (?:it|them|the trade|the trades|the position|positions|trades|the winner|winning positions) run\b/,
  /\bride (?:the |a )?(?:trend|trends|move|moves|winners?|wave)\b/,
];

const MIN_ATR = [
  new RegExp(
    `\\b(natr|atr|average true range|volatility)(?: ?\\(?\\d+\\)?)?(?: is| must be| needs to be| has to be)? (?:above|over|greater than|more than|>|>=|at least|exceeds|higher than|of at least) ${NUM} ?(pips|points|%|percent)?`,
  ),
  new RegExp(`\\bmin(?:imum)? ?(natr|atr|volatility)(?: =| :| of)? ${NUM} ?(pips|points|%|percent)?`),
];
const VOL_DEFAULT = [
  /\b(?:volatility|atr|natr) filter\b/,
  /\b(?:avoid|skip|filter out|ignore|no trades? (?:in|during)) (?:low|quiet|dead|choppy|flat|sleepy) (?:volatility|markets?|periods?|sessions?|conditions|hours)\b/,
  /\b(?:only )?(?:trade )?(?:when|in|during) (?:the )?(?:volatility is high|high volatility|elevated volatility|rising volatility|volatile markets?|the market is (?:volatile|moving))\b/,
  /\bhigh volatility only\b/,
  /\bmin(?:imum)? volatility\b(?! ?(?:of|=|:)? ?\d)/,
];

function minAtr(m: RegExpMatchArray): MinAtrValue {
  const key = m[1]!;
  const n = Number(m[2]);
  const unit = m[3];
  if (!Number.isFinite(n) || n <= 0) return null;
  if (unit === 'pips' || unit === 'points') return { value: n, unit: 'pips' };
  if (unit === '%' || unit === 'percent' || key === 'natr' || key === 'volatility') return { value: n, unit: 'pct' };
  // A bare ATR number: whole pips from 1 up, a price distance below 1.
  return n >= 1 ? { value: n, unit: 'pips' } : { value: n, unit: 'price' };
}

/** Stop, take and volatility-filter statements in one normalised text. */
export function parseRisk(text: string): RiskFindings {
  const remarks: string[] = [];
  const stop = [
    ...findAll(text, [after(STOP_WORDS), before(STOP_WORDS)], fromMatch),
    ...findAll(text, [new RegExp(`\\brisk(?:ing)? ${NUM} ?(pips|points)\\b`)], (m) => amount(undefined, m[1]!, m[2])),
    ...findConst<Amount | null>(text, NO_STOP, null),
  ].sort((a, b) => a.at - b.at);
  const rrPair = (m: RegExpMatchArray) => {
    const [a, b] = [Number(m[1]), Number(m[2])];
    return a > 0 && b > 0 ? { rr: Math.max(a, b) / Math.min(a, b) } : null;
  };
  const take = [
    ...findAll(text, [after(TAKE_WORDS), before(TAKE_WORDS)], fromMatch),
    ...findAll(text, [RR_PAIR_AFTER, RR_PAIR_BEFORE], rrPair),
    ...findAll(text, RR_SINGLE, (m) => (Number(m[1]) > 0 ? { rr: Number(m[1]) } : null)),
    ...findAll(text, RR_WORDS, () => ({ rr: 2 })),
    ...findConst<TakeValue>(text, NO_TAKE, null),
  ].sort((a, b) => a.at - b.at);
  // An RR statement also matches the plain take pattern ("target 2 x the stop"): keep the RR one.
  const takeClean = take.filter(
    (f, i) =>
      !(
        f.value &&
        'unit' in f.value &&
        take.some((g, j) => j !== i && g.at <= f.at + 3 && g.at >= f.at - 3 && g.value !== null && 'rr' in g.value)
      ),
  );
  const atr = [
    ...findAll(text, MIN_ATR, minAtr),
    ...findAll(text, VOL_DEFAULT, () => 'default' as const),
    ...findConst<MinAtrValue>(text, [/\bno (?:volatility|atr) filter\b/], null),
  ].sort((a, b) => a.at - b.at);
  if (
    new RegExp(
      `\\brisk(?:ing)? (?:\\$ )?${NUM} ?(?:%|percent|\\$|dollars)? (?:per trade|of (?:the )?(?:account|balance|equity|capital))`,
    ).test(text)
  ) {
    remarks.push('position sizing (risk per trade) is set by the train request (capital, lot_size), not by the strategy code');
  }
  return {
    stop,
    take: takeClean,
    minAtr: atr,
    letRun: findConst(text, LET_RUN, true as const),
    signalExitOnly: findConst(text, SIGNAL_EXIT_ONLY, true as const),
    remarks,
  };
}
