/**
 * Relative and compound levels, before indicator mentions are read: "more than 2 ATR above",
 * "1.5 % below", "within 10 pips of" become one distance token (so "2 ATR" is never an ATR(2)),
 * "its 50-bar average" an average token; "the 21" after a moving average is that average
 * ("9 EMA crossing the 21 from below while the close is above the 200"), and "crossing X from
 * below / above" is a cross up / down.
 */
import type { Token } from './text.ts';
import { isSym, isWord } from './text.ts';

const MA = '(ema|sma|wma|ma|moving average)';
const OSC = /\b(rsi|stoch\w*|macd|cci|adx|willr|roc|zscore|atr)\b/g;

/** Rewrites of the normalised clause text that make compound levels plain to the token parser. */
export function rewriteLevels(clause: string): string {
  // "crosses up from below 20": up through it.
  let s = clause
    .replace(/\b(cross(?:es|ing|ed)?) (?:up|upwards?|higher) from below\b/g, '$1 up through')
    .replace(/\b(cross(?:es|ing|ed)?) (?:down|downwards?|lower) from above\b/g, '$1 down through');
  s = s
    .replace(/\b(cross(?:es|ing|ed)?|crossover of) ((?:the )?[a-z0-9 ]{1,24}?) from below\b/g, '$1 above $2')
    .replace(/\b(cross(?:es|ing|ed)?|crossover of) ((?:the )?[a-z0-9 ]{1,24}?) from above\b/g, '$1 below $2');
  // "the 21" / "the 200" after a moving average: the same kind of average, unless an oscillator was named since.
  s = s.replace(
    new RegExp(
      `\\b(above|below|over|under|crossing|crosses|cross|crossed|than|and) (the )?(\\d{1,3})\\b(?! ?(?:pips|points|%|percent|bars?|candles|periods?|days?|hours|minutes|x|times|atr|ema|sma|wma|ma|moving|period|level|mark|line))`,
      'g',
    ),
    (m, rel: string, the: string | undefined, n: string, at: number) => {
      const before = s.slice(0, at);
      const ma = [...before.matchAll(new RegExp(`\\b${MA}\\b`, 'g'))].pop();
      if (!ma || Number(n) < 2) return m;
      const osc = [...before.matchAll(OSC)].pop();
      if (osc && (osc.index ?? 0) > (ma.index ?? 0)) return m;
      return `${rel} ${the ?? ''}${n} ${ma[1] === 'moving average' ? 'ma' : ma[1]}`;
    },
  );
  // "closes back thru the 21": through a line is across it.
  s = s.replace(/\b(closes?|closing|closed|moves?|moving|goes|going|back) (?:thru|through)\b/g, '$1 crosses');
  // "2 std dev from the 20 SMA": the z-score of the close about that average, beyond ±2 ("above" / "below": one side).
  s = s.replace(
    new RegExp(
      `\\b(\\d+(?:\\.\\d+)?) (?:std|sigma|sd|standard deviations?)(?: devs?)? (above|over|below|under|from|away from|beyond|outside|off) (?:the |its |a )?(\\d{1,3}) ?(?:bars? |periods? )?${MA}\\b`,
      'g',
    ),
    (_m, k: string, rel: string, n: string) =>
      /^(?:above|over)$/.test(rel)
        ? `zscore ${n} above ${k}`
        : /^(?:below|under)$/.test(rel)
          ? `zscore ${n} below -${k}`
          : `zscore ${n} below -${k} or zscore ${n} above ${k}`,
  );
  // "the 20-day high", "a 50 bar low": the prior highest high / lowest low (unless it is a breakout's range).
  if (!/\bbreak|\bnew \d|\bdonchian|\brange\b/.test(s))
    s = s.replace(
      /\b(\d+) ?(bars?|days?|periods?|candles?) (high|low)s?\b/g,
      (_m, n: string, unit: string, hl: string) =>
        `${hl === 'high' ? 'highest high' : 'lowest low'} ${n} ${/^day/.test(unit) ? 'days' : 'bars'}`,
    );
  return s;
}

const UNIT_WORDS: Record<string, 'atr' | 'pct' | 'pips'> = {
  atr: 'atr',
  atrs: 'atr',
  '%': 'pct',
  percent: 'pct',
  pips: 'pips',
  points: 'pips',
};

/** Replaces distance phrases and "its N-bar average" by marker tokens (see the file comment). */
export function markLevels(tokens: readonly Token[]): Token[] {
  const out: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    // "within 10 pips of", "less than 2 atr above", "more than 2 x atr below", "1.5 % below"
    let k = i;
    let within = false;
    if (isWord(tokens[k], 'within')) [within, k] = [true, k + 1];
    else if (
      (isWord(tokens[k], 'less', 'more') && isWord(tokens[k + 1], 'than')) ||
      (isWord(tokens[k], 'at') && isWord(tokens[k + 1], 'least'))
    )
      [within, k] = [isWord(tokens[k], 'less'), k + 2];
    else if (isWord(tokens[k], 'no') && isWord(tokens[k + 1], 'more') && isWord(tokens[k + 2], 'than')) [within, k] = [true, k + 3];
    const num = tokens[k];
    if (num?.t === 'num') {
      let u = k + 1;
      if (isWord(tokens[u], 'x', 'times') && isWord(tokens[u + 1], 'atr', 'the')) u += isWord(tokens[u + 1], 'the') ? 2 : 1;
      const unitTok = tokens[u];
      const unit = unitTok?.t === 'word' ? UNIT_WORDS[unitTok.w] : isSym(unitTok, '%') ? 'pct' : undefined;
      if (unit) {
        // An ATR written with its period ("2 ATR(14)") keeps the default 14.
        let r = u + 1;
        if (unit === 'atr' && isSym(tokens[r], '(') && tokens[r + 1]?.t === 'num' && isSym(tokens[r + 2], ')')) r += 3;
        const rel = tokens[r];
        const relation = isWord(rel, 'above', 'over', 'beyond')
          ? 'above'
          : isWord(rel, 'below', 'under', 'beneath')
            ? 'below'
            : within && isWord(rel, 'of', 'from', 'around')
              ? 'near'
              : isWord(rel, 'away') && isWord(tokens[r + 1], 'from')
                ? 'near'
                : null;
        if (relation && num.v > 0) {
          out.push({ t: 'lvl', amount: num.v, unit, rel: relation, within: within && relation !== 'near' });
          i = r + (isWord(rel, 'away') ? 1 : 0);
          continue;
        }
      }
    }
    // "its 50 bar average", "its average", "the 20 period mean of it"
    if (isWord(t, 'its')) {
      let j = i + 1;
      let window = 20;
      if (tokens[j]?.t === 'num') [window, j] = [(tokens[j] as { v: number }).v, j + 1];
      if (isWord(tokens[j], 'bars', 'bar', 'period', 'periods', 'day', 'days', 'candles')) j++;
      if (isWord(tokens[j], 'moving') && isWord(tokens[j + 1], 'average')) j++;
      if (isWord(tokens[j], 'average', 'mean', 'ma', 'sma', 'avg') && window >= 2 && window <= 2000 && Number.isInteger(window)) {
        out.push({ t: 'avg', window });
        i = j;
        continue;
      }
    }
    out.push(t);
  }
  return out;
}
