/**
 * The per-phrase coverage check (issue 35: never replace one indicator with another in silence).
 * Every indicator the trader's words name (description and signals; the `features` field asks for
 * features) must be expressed — in a condition (an entry rule, a filter or an exit), the trend
 * filter, the volatility filter or an ATR stop — or named in an approximation or a remark; every
 * part of a clause worded as a condition must have given a condition or be said. What is left is
 * what the strategy would otherwise drop or swap without a word.
 */
import { GEN } from './gen-indicators.ts';
import { instanceLabel } from './features.ts';
import type { Condition, Instance, Operand, StrategyIntent } from './intent.ts';
import type { FieldParse } from './parse-request.ts';
import type { Mention } from './parse-indicators.ts';

export interface Uncovered {
  field: string;
  /** What was named or worded, e.g. "Keltner(20, 2) lower" or the clause part. */
  what: string;
  kind: 'indicator' | 'condition';
}

/** Indicators whose outputs are different levels: naming one (R1, +DI, the lower channel) is not covered by another. */
const BY_OUTPUT = new Set(['pivot', 'adx', 'keltner', 'donchian']);
const CHECKED_FIELDS = new Set(['description', 'signals']);

type IntentView = Pick<
  StrategyIntent,
  'instances' | 'conditions' | 'trendFilter' | 'minAtr' | 'stopLoss' | 'takeProfit' | 'trailingStop' | 'remarks' | 'approximations'
>;

/** The (instance, output) pairs a condition reads; output null = the instance as a whole. */
function reads(c: Condition): Array<[number, number | null]> {
  const ops = (...list: Operand[]) =>
    list.flatMap((o): Array<[number, number | null]> => (o.kind === 'column' ? [[o.instance, o.output]] : []));
  switch (c.kind) {
    case 'compare':
      return ops(c.left, c.right);
    case 'band':
    case 'channel':
      return [[c.instance, null]];
    case 'pattern':
      return [[c.instance, c.output]];
    case 'offset':
    case 'near':
      return [...ops(c.left, c.base), ...(c.atr !== null ? [[c.atr, 0] as [number, number]] : [])];
    default:
      return [];
  }
}

const outputLabel = (inst: Instance, output: number): string => {
  const outputs = (GEN[inst.name] as { outputs?: string[] }).outputs;
  return outputs?.[output] ? `${instanceLabel(inst)} ${outputs[output]}` : instanceLabel(inst);
};

/** What the words name or word as a condition that the intent neither expresses nor says. */
export function uncovered(fields: readonly FieldParse[], intent: IntentView): Uncovered[] {
  const used = intent.conditions.flatMap((c) => reads(c.condition));
  // A range breakout of N bars is the Donchian(N) / N-bar high-low breakout.
  intent.conditions.forEach(({ condition: c }) => {
    if (c.kind !== 'breakout') return;
    intent.instances.forEach((inst, i) => {
      if ((inst.name === 'donchian' || inst.name === 'hhll') && inst.params.period === c.window) used.push([i, null]);
    });
  });
  const said = [...intent.remarks, ...intent.approximations.flatMap((a) => [a.asked, a.done])].join(' | ').toLowerCase();
  const atrRisk =
    [intent.stopLoss.value, intent.takeProfit.value].some((r) => r?.unit === 'atr') ||
    (typeof intent.trailingStop.value?.config === 'object' && 'atr' in intent.trailingStop.value.config) ||
    intent.minAtr.value !== null;
  const out: Uncovered[] = [];
  const seen = new Set<string>();
  const covered = (m: Mention): boolean => {
    const byOutput = BY_OUTPUT.has(m.name) && m.output !== null;
    const kinds = intent.instances.map((inst, i) => [inst, i] as const).filter(([inst]) => inst.name === m.name);
    if (!kinds.length) return said.includes(m.name);
    if (used.some(([i, o]) => intent.instances[i]!.name === m.name && (!byOutput || o === null || o === m.output))) return true;
    if (m.name === 'atr' && atrRisk) return true;
    if (intent.trendFilter.value && kinds.some(([inst]) => GEN[inst.name].columns(inst.params).includes(intent.trendFilter.value!)))
      return true;
    return kinds.some(([inst]) => said.includes((byOutput ? outputLabel(inst, m.output!) : instanceLabel(inst)).toLowerCase()));
  };
  for (const f of fields) {
    if (!CHECKED_FIELDS.has(f.field)) continue;
    for (const m of f.named) {
      if (covered(m)) continue;
      const inst = intent.instances.find((i) => i.name === m.name);
      const what = inst ? (BY_OUTPUT.has(m.name) && m.output !== null ? outputLabel(inst, m.output) : instanceLabel(inst)) : m.name;
      if (seen.has(`${f.field}|${what}`)) continue;
      seen.add(`${f.field}|${what}`);
      out.push({ field: f.field, what, kind: 'indicator' });
    }
    for (const part of [...f.unread, ...f.unreadParts]) {
      if (said.includes(part.toLowerCase()) || seen.has(`${f.field}|${part}`)) continue;
      seen.add(`${f.field}|${part}`);
      out.push({ field: f.field, what: part, kind: 'condition' });
    }
  }
  return out;
}
