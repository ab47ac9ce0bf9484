/**
 * The trader's entry rules (meta-labelling's primary signal): the entry conditions the words
 * state, per side, combined as the words say — the conditions of one statement all hold ("and"),
 * statements joined by "or" are alternatives. strategy_config entry_long / entry_short name the
 * rule columns; once either is set, a side without a rule opens nothing. Conditions the generator
 * read on its own (the default set, bands named without a rule), the trend filter's comparison
 * (trend_filter does it, both sides) and the `features` field's words (features for the model)
 * are not rules; "let the model decide" sets none.
 */
import { columnOf, conditionName, describeCondition } from './features.ts';
import type { Condition, ConditionSpec, EntryRule, Instance, Operand, RuleTerm, Source } from './intent.ts';
import { CENTRE } from './trader-indicators.ts';

/** How the remark on a mirrored short side begins (Pine from text, which draws no sides, leaves it out). */
export const MIRROR_REMARK = 'no side named: shorts take the mirror of each directional condition';

/** The text fields whose conditions are entries the trader states (features, model, risk… are read for other things). */
const RULE_FIELDS: ReadonlySet<Source> = new Set<Source>(['description', 'signals']);
const MODEL_DECIDES =
  /\b(?:let (?:the )?(?:model|ml|classifier|ai) (?:decide|choose|pick)|(?:the )?(?:model|classifier) decides|model picks)\b/;

const FLIP = { above: 'below', below: 'above', cross_up: 'cross_down', cross_down: 'cross_up' } as const;

/** Columns holding +1 / −1 (a cross either way, a breakout up or down, a rate of change, a bullish / bearish pattern): their sign says the side. */
function signed(c: Condition, instances: readonly Instance[]): boolean {
  if (c.kind === 'pattern') return !(instances[c.instance]!.name === 'insidebar' && c.output === 0);
  return (
    (c.kind === 'compare' && c.relation === 'cross') ||
    c.kind === 'breakout' ||
    c.kind === 'momentum' ||
    c.kind === 'channel' ||
    (c.kind === 'band' && c.where === 'outside')
  );
}

function sense(c: Condition, side: 'long' | 'short', instances: readonly Instance[], fade: boolean): RuleTerm['sense'] {
  if (!signed(c, instances)) return 'pos';
  // Outside the bands (+1 above, -1 below): a fade buys below the lower band, a breakout above the upper.
  if (c.kind === 'band' && fade) return side === 'long' ? 'neg' : 'pos';
  return side === 'long' ? 'pos' : 'neg';
}
const BREAKOUT_WORDS = /\b(?:break ?outs?|breaking out|breaks? out|momentum|trend(?:ing)?|ride)\b/;

/** The mirror of a side-less directional comparison, for the other side ("fast EMA crossing above slow EMA" both ways). */
function mirror(c: Condition, instances: readonly Instance[]): Condition | null {
  if (c.kind === 'band')
    return c.where === 'above_upper' ? { ...c, where: 'below_lower' } : c.where === 'below_lower' ? { ...c, where: 'above_upper' } : null;
  if (c.kind !== 'compare' || !(c.relation in FLIP)) return null;
  const flip = FLIP[c.relation as keyof typeof FLIP];
  const centre = (op: Operand) => (op.kind === 'column' ? CENTRE[instances[op.instance]!.name] : undefined);
  if (c.right.kind === 'value') {
    const mid = centre(c.left);
    if (mid === undefined) return null;
    return { ...c, relation: flip, right: { kind: 'value', value: 2 * mid - c.right.value } };
  }
  if (c.left.kind === 'value') return null;
  return { ...c, relation: flip };
}

export interface EntryRules {
  long: EntryRule | null;
  short: EntryRule | null;
  /** Conditions added for the rules (mirrors for the other side): the code computes them too. */
  added: ConditionSpec[];
  /** The rules in words, per side. */
  words: { long: string | null; short: string | null };
  /** Conditions naming no side that gate both sides alike: entry filters (the model picks the side), not rules. */
  asFilter: string[];
}

/**
 * Which of a condition and its mirror is the bullish one: a low oscillator level / the lower band
 * for a fade (buy oversold), the high one for a breakout; price above a line, a cross up.
 */
function bullish(c: Condition, fade: boolean): boolean {
  if (c.kind === 'band') return (c.where === 'below_lower') === fade;
  if (c.kind !== 'compare') return true;
  const up = c.relation === 'above' || c.relation === 'cross_up';
  return c.right.kind === 'value' && fade ? !up : up;
}

/**
 * The entry rules of the conditions read (in reading order, duplicates included: a condition may
 * belong to several statements). `direction`: the sides the strategy trades.
 */
export function entryRules(
  specs: readonly ConditionSpec[],
  direction: 'both' | 'long' | 'short',
  trendColumn: string | null,
  instances: readonly Instance[],
  texts: readonly string[],
  remarks: string[],
): EntryRules {
  const none: EntryRules = { long: null, short: null, added: [], words: { long: null, short: null }, asFilter: [] };
  const fade = !texts.some((t) => BREAKOUT_WORDS.test(t));
  const isTrend = (c: Condition) =>
    trendColumn !== null &&
    c.kind === 'compare' &&
    c.left.kind === 'price' &&
    (c.relation === 'above' || c.relation === 'below') &&
    c.right.kind === 'column' &&
    columnOf(instances[c.right.instance]!, c.right.output) === trendColumn;
  const stated = specs.filter((s) => s.role === 'entry' && !s.inferred && RULE_FIELDS.has(s.from) && !isTrend(s.condition));
  if (!stated.length) return none;
  const decides = texts.map((t) => MODEL_DECIDES.exec(t)).find(Boolean);
  if (decides) {
    remarks.push(`no entry rule: "${decides[0]}" leaves the entries to the model (the conditions are its features)`);
    return none;
  }
  const added: ConditionSpec[] = [];
  // Side-less directional comparisons, both ways and no side named anywhere: the short side is the mirror.
  // Side-less conditions stated with their own mirror ("RSI 30/70", "the lower and upper band"):
  // the bullish one is the long rule, its mirror the short rule — never both in one rule.
  const paired = new Set<ConditionSpec>();
  let list: ConditionSpec[] = stated.map((s) => {
    if (s.side !== null || signed(s.condition, instances)) return s;
    const m = mirror(s.condition, instances);
    if (!m) return s;
    const name = conditionName(m, instances);
    if (!stated.some((o) => o !== s && o.side === null && conditionName(o.condition, instances) === name)) return s;
    const twin: ConditionSpec = { ...s, side: bullish(s.condition, fade) ? 'long' : 'short' };
    paired.add(twin);
    return twin;
  });
  if (paired.size)
    remarks.push(
      `a condition and its mirror stated side by side: the ${fade ? 'low / lower' : 'high / upper'} one is the long entry, its mirror the short one`,
    );
  if (direction === 'both' && list.every((s) => s.side === null || paired.has(s))) {
    list = list.flatMap((s) => {
      if (paired.has(s)) return [s];
      const m = signed(s.condition, instances) ? null : mirror(s.condition, instances);
      if (!m) return [s];
      const twin: ConditionSpec = { ...s, condition: m, side: 'short', inferred: true };
      added.push(twin);
      return [{ ...s, side: 'long' as const }, twin];
    });
    if (added.length) remarks.push(`${MIRROR_REMARK} (${added.map((a) => describeCondition(a.condition, instances)).join('; ')})`);
  }
  const ruleOf = (side: 'long' | 'short'): EntryRule | null => {
    const groups: RuleTerm[][] = [];
    let stmt: string | undefined;
    for (const s of list) {
      if ((s.side ?? side) !== side) continue;
      if (s.stmt !== stmt) {
        if (!groups.length || (s.orJoin && groups[groups.length - 1]!.length)) groups.push([]);
        stmt = s.stmt;
      }
      const term: RuleTerm = { name: conditionName(s.condition, instances), sense: sense(s.condition, side, instances, fade) };
      const g = groups[groups.length - 1]!;
      if (!g.some((t) => t.name === term.name && t.sense === term.sense)) g.push(term);
    }
    return groups.length && groups.some((g) => g.length) ? groups.filter((g) => g.length) : null;
  };
  const SENSE_WORDS = { pos: ' (+1: up / bullish)', neg: ' (-1: down / bearish)', nonzero: ' (either way)' } as const;
  const say = (rule: EntryRule | null) => {
    if (!rule) return null;
    const label = (t: RuleTerm) => {
      const spec = list.find((s) => conditionName(s.condition, instances) === t.name)!;
      if (spec.condition.kind === 'band' && spec.condition.where === 'outside')
        return `${describeCondition(spec.condition, instances)} (${t.sense === 'neg' ? 'below the lower band' : 'above the upper band'})`;
      return `${describeCondition(spec.condition, instances)}${signed(spec.condition, instances) ? SENSE_WORDS[t.sense] : ''}`;
    };
    return rule.map((g) => g.map(label).join(' and ')).join(' or ');
  };
  const trades = (side: 'long' | 'short') => direction === 'both' || direction === side;
  const long = trades('long') ? ruleOf('long') : null;
  const short = trades('short') ? ruleOf('short') : null;
  if (!long && !short) return none;
  // The same rule for both sides names no side: both would fire on the same bars, where the engine opens nothing.
  if (long && short && JSON.stringify(long) === JSON.stringify(short)) {
    remarks.push(
      `the entry conditions name no side (${say(long)}): they filter entries on both sides alike (entry_filter) and the model picks the side; say e.g. "buy when …, sell when …" for rules`,
    );
    return { ...none, asFilter: [...new Set(long.flat().map((t) => t.name))] };
  }
  for (const side of ['long', 'short'] as const) {
    if (trades(side) && !(side === 'long' ? long : short)) {
      remarks.push(
        `no ${side} entry stated, so no ${side}s open (entry_${side === 'long' ? 'short' : 'long'} is the only rule); name one, e.g. "${side === 'long' ? 'buy when RSI 14 is below 30' : 'sell when RSI 14 is above 70'}"`,
      );
    }
  }
  return { long, short, added, words: { long: say(long), short: say(short) }, asFilter: [] };
}
