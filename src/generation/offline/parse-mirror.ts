/**
 * The other side of a stated entry, said in few words: "go long on a green flip, short on red
 * flip", "buy the break of the high, sell the break of the low", "short on the opposite", "sell
 * the mirror", "up = buy, down = sell", "buy when ROC crosses above zero, sell when it crosses
 * below". A clause that names one side and no condition of its own, after an entry of the other
 * side, takes that entry's conditions mirrored: a directional comparison flips (an oscillator's
 * level about its centre: RSI above 60 ↔ below 40), a band's side swaps, and signed columns (a
 * cross either way, a breakout, a pattern) stay as they are — the rule reads their sign per side.
 * Conditions with no direction (ADX above 25, a volatility regime) hold for both sides alike.
 */
import type { Relation } from './intent.ts';
import type { DCondition, DOperand } from './parse-conditions.ts';
import { CENTRE } from './trader-indicators.ts';

/** Lines drawn on the price, whose slope is the trend's direction. */
const SLOPED = new Set(['sma', 'ema', 'wma', 'vwap', 'keltner', 'donchian', 'bb', 'supertrend', 'psar', 'ichimoku']);
const FLIP: Partial<Record<Relation, Relation>> = {
  above: 'below',
  below: 'above',
  cross_up: 'cross_down',
  cross_down: 'cross_up',
  rising: 'falling',
  falling: 'rising',
};

/** Words that make a side-only clause the other side of the entry before (a direction statement has none of them). */
export const MIRROR_CUE =
  /\b(?:opposite|mirror(?:ed)?|reverse[d]?|inverse|vice versa|other (?:way|side|direction)|same|flips?|flipped|cross(?:es|ing|ed)?|breaks?|breaking|breakouts?|below|above|under|over|down|up|lower|upper|lows?|highs?|red|green|bearish|bullish|rejections?|rejects?|bounces?)\b/;
/** Direction statements and prohibitions are not entries ("no sells", "shorts only", "never short on fridays"). */
export const NOT_ENTRY = /\b(?:no|not|never|don'?t|dont|only|avoid|skip|without)\b/;

const centreOf = (op: DOperand): number | undefined => (op.kind === 'mention' ? CENTRE[op.m.name] : undefined);

/** The condition for the other side. */
export function mirrorCondition(c: DCondition): DCondition {
  switch (c.kind) {
    case 'compare': {
      const flip = FLIP[c.relation];
      if (!flip) return c;
      // A line's slope is a direction: the mirror of "the 50 EMA rising" is it falling (ADX rising is strength, the same for both).
      if ((c.relation === 'rising' || c.relation === 'falling') && c.left.kind === 'mention' && SLOPED.has(c.left.m.name))
        return { ...c, relation: flip };
      if (c.right.kind === 'value') {
        const mid = centreOf(c.left);
        // A level with no centre (ADX above 25) has no direction: the same for both sides.
        if (mid === undefined) return c;
        if (c.relation === 'rising' || c.relation === 'falling') return { ...c, relation: flip };
        return { ...c, relation: flip, right: { kind: 'value', value: 2 * mid - c.right.value } };
      }
      if (c.relation === 'rising' || c.relation === 'falling') return c;
      return { ...c, relation: flip };
    }
    case 'band':
      return c.where === 'above_upper' ? { ...c, where: 'below_lower' } : c.where === 'below_lower' ? { ...c, where: 'above_upper' } : c;
    case 'offset':
      return { ...c, relation: c.relation === 'above' ? 'below' : 'above' };
    default:
      return c;
  }
}
