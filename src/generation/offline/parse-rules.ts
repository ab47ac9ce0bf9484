/**
 * Position rules in normalised text: direction ("long only", "no shorts", "both ways"),
 * cooldown ("wait 3 bars after a trade", "cooldown 30 minutes"), max positions ("max 2
 * positions", "one trade at a time", "pyramid up to 3") and on_opposite ("reverse on opposite
 * signal", "just close", "ignore opposite signals"). Each finding keeps its position so that,
 * within one text, the last statement wins.
 */
import type { Timeframe } from '../../../schemas/common.ts';
import { barMinutes } from './market.ts';

export interface Finding<T> {
  value: T;
  /** Character offset in the normalised text. */
  at: number;
  phrase: string;
}

export type Direction = 'both' | 'long' | 'short';
export type OnOpposite = 'reverse' | 'close_only' | 'ignore';

export interface RuleFindings {
  direction: Finding<Direction>[];
  cooldown: Finding<number>[];
  maxPositions: Finding<number>[];
  onOpposite: Finding<OnOpposite>[];
  remarks: string[];
}

/** Every match of each pattern, as findings with the value `value(match)` (null: skip). */
export function findAll<T>(text: string, patterns: readonly RegExp[], value: (m: RegExpMatchArray) => T | null): Finding<T>[] {
  const out: Finding<T>[] = [];
  for (const re of patterns) {
    const global = new RegExp(re.source, re.flags.includes('g') ? re.flags : `${re.flags}g`);
    for (const m of text.matchAll(global)) {
      const v = value(m);
      if (v !== null) out.push({ value: v, at: m.index ?? 0, phrase: m[0].trim() });
    }
  }
  return out.sort((a, b) => a.at - b.at);
}

/** Every match of each pattern gives `value` (which may be null: "no stop"). */
export function findConst<T>(text: string, patterns: readonly RegExp[], value: T): Finding<T>[] {
  return findAll(text, patterns, () => ({ v: value })).map((f) => ({ ...f, value: f.value.v }));
}

// Nouns ("longs only when…" is still long only); verbs ("buy only when RSI < 30" is about timing).
const LONG_WORDS = '(?:long|longs|bullish)';
const SHORT_WORDS = '(?:short|shorts|shorting|bearish)';
const LONG_VERBS = '(?:buy|buys|buying)';
const SHORT_VERBS = '(?:sell|sells|selling)';
const only = (words: string, verbs: string) => [
  // "longs only above it, shorts only below": where each side trades, not a direction.
  new RegExp(`\\b${words} (?:side |trades |positions |entries |breakouts? |setups? |signals? )?only\\b(?! above| below| over| under)`),
  new RegExp(`\\b${verbs} (?:side |trades |positions |entries )?only\\b(?! when| if| after| on| at)`),
  new RegExp(
    `\\bonly (?:go |take |trade |open |enter |place |do )?(?:${words}|${verbs})(?: trades| positions| entries| side)?\\b(?! when| if| after| on| at| below| above)`,
  ),
];
const DIRECTION: Array<[RegExp[], Direction]> = [
  [
    [
      ...only(LONG_WORDS, LONG_VERBS),
      /\bno (?:shorts|shorting|short (?:trades|positions|selling|entries|side)|selling|sells|sell trades)\b/,
      /\b(?:never|don't|dont|do not) (?:go )?(?:short|sell)\b/,
      /\b(?:shorts|short|selling) never\b/,
      /\b(?:shorts?|sells?|selling)\s*\?\s*(?:nah|nope|no)\b/,
    ],
    'long',
  ],
  [
    [
      ...only(SHORT_WORDS, SHORT_VERBS),
      /\bno (?:longs|long (?:trades|positions|entries|side)|buying|buys|buy trades)\b/,
      /\b(?:never|don't|dont|do not) (?:go )?(?:long|buy)\b/,
      /\b(?:longs|buying) never\b/,
      /\b(?:longs?|buys?|buying)\s*\?\s*(?:nah|nope|no)\b/,
    ],
    'short',
  ],
  [
    [
      /\b(?:both (?:ways|directions|sides)|long and short|longs and shorts|buy and sell|buys and sells|two way|either direction|bidirectional|bi directional|long or short|short and long|shorts and longs)\b/,
      /\bdirection (?:=|:|is)? ?both\b/,
    ],
    'both',
  ],
];

const UNIT = '(bars?|candles?|periods?|minutes?|hours?|h|m)';
const COOLDOWN = [
  new RegExp(
    `\\b(?:cooldown|cool down|cool off|wait|pause|sit out|skip|rest|stay out|stand aside)(?: (?:period|time))?(?: (?:of|for|=|:|at least|about|around|another))* (\\d+(?:\\.\\d+)?) ?${UNIT}\\b`,
  ),
  new RegExp(`\\b(\\d+(?:\\.\\d+)?) ?${UNIT} (?:cooldown|cool down|pause|wait|break)\\b`),
  /\bcooldown(?: =| :| of)? (\d+)\b(?! ?(?:minutes|hours|h|m)\b)/,
];

function cooldownBars(m: RegExpMatchArray, tf: Timeframe): number | null {
  const n = Number(m[1]);
  if (!Number.isFinite(n)) return null;
  const unit = m[2] ?? 'bars';
  const minutes = /^(minutes?|m)$/.test(unit) ? n : /^(hours?|h)$/.test(unit) ? n * 60 : null;
  // A time is rounded up to whole bars: never shorter than asked.
  const bars = minutes === null ? Math.round(n) : Math.ceil(minutes / barMinutes(tf) - 1e-9);
  return Math.min(500, Math.max(0, bars));
}

const MAX_POS = [
  /\b(?:max(?:imum)?|at most|up to|no more than|more than|limit(?: of)?|cap(?: of)?|maximum of)(?: of)? (\d+) (?:open |concurrent |simultaneous |active |parallel )?(?:positions|position|pos|trades|trade|entries|orders)\b(?! (?:per|a|each|every) (?:day|week|session|hour))/,
  /\bmax ?pos(?:itions)?(?: =| :| of)? (\d+)\b/,
  /\b(\d+) (?:open |concurrent |simultaneous |parallel )(?:positions|trades)(?: at most| max(?:imum)?)?\b/,
  // "max two open", "2 positions max", "3 trades at a time": the count with its noun left out or after it.
  /\b(?:max(?:imum)?|at most|no more than|up to) (\d+) (?:open|at once|at a time|concurrent(?:ly)?|simultaneous(?:ly)?)\b/,
  /\b(\d+) (?:positions?|trades?) (?:max(?:imum)?|at most|at a time|at once)\b/,
  // "…, trailing 30 pips. max 2.": a bare count said as its own statement.
  /(?:^|[.;,!?] ?)max(?:imum)? (\d{1,2})\s*(?:$|[.;,!?])/,
  /\b(\d{1,2}) max(?:imum)? (?:open |concurrent )?(?:positions?|trades?)\b/,
  /\b(?:pyramid|pyramiding|scale in|scaling in|stack(?:ing)?)(?: up to| to| with)?(?: max(?:imum)?)? (\d+)(?: positions| entries| trades| times| units)?\b/,
];
const ONE_POS = [
  /\b(?:1|single) (?:trade|position) at a time\b/,
  /\bsingle position\b/,
  /\bno (?:pyramiding|scaling in|stacking)\b/,
  /\bnever more than 1 (?:trade|position)\b/,
];
const PYRAMID = [/(?<!\bno )\b(?:allow |with )?pyramiding\b(?! ?\d)/];

const ON_OPPOSITE: Array<[RegExp[], OnOpposite]> = [
  [
    [
      /\b(?:stop and reverse|always in the market|always in market)\b/,
      /\b(?:reverse|flip|switch)(?:s|ing|ed)?\b(?: the)?(?: position| trade| side| direction)?(?: on| at| when| if| with)(?: an| the| a)? (?:opposite|opposing|counter|reverse) signals?\b/,
      /\b(?:opposite|opposing|counter) signals? (?:should )?(?:reverse|flips?|switch)/,
      /\bon opposite(?: signal)?(?: =| :)? reverse\b/,
      /\breverse (?:the )?(?:position|trade)s?\b/,
    ],
    'reverse',
  ],
  [
    [
      /\b(?:just|only) close\b/,
      /\bclose only\b/,
      /\b(?:close|exit|flatten)(?: the)?(?: position| trade)? (?:on|at|when|if|with)(?: an| the| a)? (?:opposite|opposing|counter|reverse) signals?\b/,
      /\b(?:opposite|opposing|counter) signals? (?:should )?(?:just |only )?(?:close|closes|exit|exits|flatten)/,
      /\b(?:don't|dont|do not|never) reverse\b/,
      /\bno revers(?:e|al|ing)\b/,
      /\bon opposite(?: signal)?(?: =| :)? close\b/,
    ],
    'close_only',
  ],
  [
    [
      /\bignore (?:the |any |all )?(?:opposite|opposing|counter|reverse) signals?\b/,
      /\bhold (?:until|till|to) (?:the )?(?:stop|target|sl|tp|take profit|stop loss|exit)/,
      /\bonly exit (?:at|on|via|by) (?:the )?(?:stop|target|take profit|stop loss)/,
      /\bon opposite(?: signal)?(?: =| :)? ignore\b/,
    ],
    'ignore',
  ],
];

/** Direction, cooldown, max positions and on_opposite statements in one normalised text. */
export function parseRules(text: string, tf: Timeframe): RuleFindings {
  const remarks: string[] = [];
  const direction = DIRECTION.flatMap(([res, v]) => findAll(text, res, () => v));
  const cooldown = [
    ...findAll(text, COOLDOWN, (m) => cooldownBars(m, tf)),
    ...findConst(text, [/\bno (?:cooldown|cool down|waiting|pause)\b/], 0),
  ];
  const clampPos = (n: number) => {
    if (n > 10) remarks.push(`max positions ${n} is above the limit of 10; set to 10`);
    return Math.min(10, Math.max(1, n));
  };
  const maxPositions = [
    ...findAll(text, MAX_POS, (m) => clampPos(Number(m[1]))),
    ...findAll(text, ONE_POS, () => 1),
    ...findAll(text, PYRAMID, () => 3),
  ];
  const onOpposite = ON_OPPOSITE.flatMap(([res, v]) => findAll(text, res, () => v));
  const sort = <T>(xs: Finding<T>[]) => xs.sort((a, b) => a.at - b.at);
  return { direction: sort(direction), cooldown: sort(cooldown), maxPositions: sort(maxPositions), onOpposite: sort(onOpposite), remarks };
}
