/**
 * The features a strategy computes, as names and Python: the registry's pandas code for the
 * indicators (so features equal what POST /indicators computes), a scale-free companion per
 * indicator (distance to a moving average, %B and width of the bands, NATR), one column per
 * condition (np.where of comparisons; crosses compare with the previous bar through shift(1),
 * never a negative shift), and price action and time of day. Every name is known before the
 * code is written, so the intent lists exactly the columns the code adds.
 */
import { INDICATORS } from '../../indicators/index.ts';
import { GEN, genPandas, isRegistry, tunablePandas, TUNABLE, type Tunable } from './gen-indicators.ts';
import { formatParamValue } from '../../indicators/index.ts';
import type { Condition, EntryRule, Instance, LevelUnit, Operand, RoleColumns, RuleTerm } from './intent.ts';
import { EXTRAS } from './trader-indicators.ts';

export interface FeatureBlock {
  comment: string;
  lines: string[];
  names: string[];
}

export interface FeaturePlan {
  /** The registry's pandas code for every instance (unindented). */
  indicatorCode: string;
  indicatorNames: string[];
  blocks: FeatureBlock[];
  names: string[];
  /**
   * strategy_config()["indicators"]: the values of the indicators whose periods the code reads from
   * it (one instance per tunable kind), so POST /optimize can tune them; null when none.
   */
  indicators: Record<string, number> | null;
}

export const columnOf = (inst: Instance, output: number): string => GEN[inst.name].columns(inst.params)[output]!;

const LABELS: Record<string, (p: Record<string, number>) => string> = {
  sma: (p) => `SMA ${p.period}`,
  ema: (p) => `EMA ${p.period}`,
  wma: (p) => `WMA ${p.period}`,
  rsi: (p) => `RSI(${p.period})`,
  atr: (p) => `ATR(${p.period})`,
  bb: (p) => `Bollinger(${p.period}, ${p.std})`,
  macd: (p) => `MACD(${p.fast},${p.slow},${p.signal})`,
  stoch: (p) => `Stoch(${p.k_period},${p.d_period})`,
};
const OUTPUT_LABEL: Record<string, string[]> = {
  macd: ['line', 'signal', 'histogram'],
  bb: ['upper band', 'middle band', 'lower band'],
  stoch: ['%K', '%D'],
};

export const instanceLabel = (inst: Instance): string =>
  isRegistry(inst.name) ? LABELS[inst.name]!(inst.params) : EXTRAS[inst.name].label(inst.params);
const outputLabels = (inst: Instance): string[] | undefined =>
  isRegistry(inst.name) ? OUTPUT_LABEL[inst.name] : EXTRAS[inst.name].outputs;

function operandName(op: Operand, instances: readonly Instance[]): string {
  if (op.kind === 'price') return 'close';
  if (op.kind === 'value') return (op.value < 0 ? 'm' : '') + formatParamValue(Math.abs(op.value));
  if (op.kind === 'avg') return `avg${op.window}`;
  return columnOf(instances[op.instance]!, op.output);
}

/** Python for an operand; `of` is the other side's expression (an `avg` operand is its rolling mean). */
function operandExpr(op: Operand, instances: readonly Instance[], of = 'close'): string {
  if (op.kind === 'price') return 'close';
  if (op.kind === 'value') return String(op.value);
  if (op.kind === 'avg') return `${of}.rolling(${op.window}).mean()`;
  return `df['${columnOf(instances[op.instance]!, op.output)}']`;
}

function operandLabel(op: Operand, instances: readonly Instance[]): string {
  if (op.kind === 'price') return 'price';
  if (op.kind === 'value') return String(op.value);
  if (op.kind === 'avg') return `its ${op.window}-bar average`;
  const inst = instances[op.instance]!;
  const outputs = outputLabels(inst);
  return outputs?.[op.output] ? `${instanceLabel(inst)} ${outputs[op.output]}` : instanceLabel(inst);
}

const REL_NAME = {
  above: 'gt',
  below: 'lt',
  cross_up: 'xup',
  cross_down: 'xdn',
  cross: 'x',
  rising: 'rising',
  falling: 'falling',
  touch: 'touch',
} as const;
const REL_LABEL = {
  above: 'above',
  below: 'below',
  cross_up: 'crosses above',
  cross_down: 'crosses below',
  cross: 'crosses',
  rising: 'rising',
  falling: 'falling',
  touch: 'touches',
} as const;
const UNIT_NAME = { atr: 'atr', pct: 'pct', pips: 'pips' } as const;
const UNIT_LABEL = { atr: 'x ATR(14)', pct: '%', pips: 'pips' } as const;

/** Python for a distance: k ATRs (the ATR column), k % of the base, k pips. */
function distanceExpr(
  amount: number,
  unit: LevelUnit,
  atr: number | null,
  base: string,
  instances: readonly Instance[],
  pip: string,
): string {
  if (unit === 'atr') return `${amount} * df['${columnOf(instances[atr!]!, 0)}']`;
  if (unit === 'pct') return `${amount / 100} * ${base}`;
  return `${amount} * ${pip}`;
}
const BAND_NAME = { outside: 'out', above_upper: 'above', below_lower: 'below', inside: 'in' } as const;
const BAND_LABEL = {
  outside: 'outside',
  above_upper: 'above the upper band of',
  below_lower: 'below the lower band of',
  inside: 'inside',
} as const;

/** The feature column a condition becomes. */
export function conditionName(c: Condition, instances: readonly Instance[]): string {
  switch (c.kind) {
    case 'compare':
      if (c.relation === 'rising' || c.relation === 'falling') return `${operandName(c.left, instances)}_${c.relation}`;
      return `${operandName(c.left, instances)}_${REL_NAME[c.relation]}_${operandName(c.right, instances)}`;
    case 'offset':
      return `${operandName(c.left, instances)}_${c.within ? 'within' : REL_NAME[c.relation]}_${operandName(c.base, instances)}_${c.relation === 'above' ? 'p' : 'm'}${formatParamValue(c.amount)}${UNIT_NAME[c.unit]}`;
    case 'near':
      return `${operandName(c.left, instances)}_near_${operandName(c.base, instances)}_${formatParamValue(c.amount)}${UNIT_NAME[c.unit]}`;
    case 'band': {
      const p = instances[c.instance]!.params;
      return `bb_${BAND_NAME[c.where]}_${formatParamValue(p.period!)}_${formatParamValue(p.std!)}`;
    }
    case 'breakout':
      return `breakout_${c.window}`;
    case 'momentum':
      return `roc_${c.window}`;
    case 'pattern':
      return columnOf(instances[c.instance]!, c.output);
    case 'channel':
      return `${columnOf(instances[c.instance]!, 0)}_break`;
  }
}

/** A condition in words, for the header comment. */
export function describeCondition(c: Condition, instances: readonly Instance[]): string {
  switch (c.kind) {
    case 'compare':
      if (c.relation === 'rising' || c.relation === 'falling') return `${operandLabel(c.left, instances)} ${c.relation}`;
      // A SAR flip: its trend column (+1 / -1) crossing 0.
      if (
        c.left.kind === 'column' &&
        ['psar', 'supertrend'].includes(instances[c.left.instance]!.name) &&
        c.left.output === 1 &&
        c.right.kind === 'value' &&
        c.right.value === 0 &&
        c.relation.startsWith('cross')
      ) {
        const how =
          c.relation === 'cross_up'
            ? ' below the price (trend turns up)'
            : c.relation === 'cross_down'
              ? ' above the price (trend turns down)'
              : ' (+1 below the price, -1 above)';
        return `${instanceLabel(instances[c.left.instance]!)} flips${how}`;
      }
      return `${operandLabel(c.left, instances)} ${REL_LABEL[c.relation]} ${operandLabel(c.right, instances)}`;
    case 'offset':
      return `${operandLabel(c.left, instances)} ${c.within ? 'less than' : 'more than'} ${c.amount} ${UNIT_LABEL[c.unit]} ${c.relation} ${operandLabel(c.base, instances)}`;
    case 'near':
      return `${operandLabel(c.left, instances)} within ${c.amount} ${UNIT_LABEL[c.unit]} of ${operandLabel(c.base, instances)}`;
    case 'band':
      return `price ${BAND_LABEL[c.where]} ${instanceLabel(instances[c.instance]!)}`;
    case 'breakout':
      return `close breaks the prior ${c.window}-bar high (+1) or low (-1) (the Donchian(${c.window}) channel)`;
    case 'momentum':
      return `${c.window}-bar momentum (rate of change)`;
    case 'pattern':
      return operandLabel({ kind: 'column', instance: c.instance, output: c.output }, instances);
    case 'channel':
      return `close breaks out of ${instanceLabel(instances[c.instance]!)}`;
  }
}

function conditionLines(c: Condition, name: string, instances: readonly Instance[], pip: string): string[] {
  switch (c.kind) {
    case 'offset': {
      const [l, b] = [operandExpr(c.left, instances), operandExpr(c.base, instances)];
      const d = distanceExpr(c.amount, c.unit, c.atr, b, instances, pip);
      const beyond = c.relation === 'above' ? `gt(${l}, ${b} + ${d})` : `lt(${l}, ${b} - ${d})`;
      const expr = c.within
        ? c.relation === 'above'
          ? `gt(${l}, ${b}) & le(${l}, ${b} + ${d})`
          : `lt(${l}, ${b}) & ge(${l}, ${b} - ${d})`
        : beyond;
      return [`df['${name}'] = np.where(${expr}, 1.0, 0.0)`];
    }
    case 'near': {
      const [l, b] = [operandExpr(c.left, instances), operandExpr(c.base, instances)];
      return [`df['${name}'] = np.where(le((${l} - ${b}).abs(), ${distanceExpr(c.amount, c.unit, c.atr, b, instances, pip)}), 1.0, 0.0)`];
    }
    case 'compare': {
      if (c.relation === 'rising' || c.relation === 'falling') {
        const l = operandExpr(c.left, instances);
        return [`df['${name}'] = np.where(${c.relation === 'rising' ? 'gt' : 'lt'}(${l}, ${l}.shift(1)), 1.0, 0.0)`];
      }
      const l = operandExpr(c.left, instances);
      const r = operandExpr(c.right, instances, l);
      // The bar's range reaches the level (the price's high and low, whatever the left side).
      if (c.relation === 'touch') return [`df['${name}'] = np.where(ge(high, ${r}) & le(low, ${r}), 1.0, 0.0)`];
      const prev = (e: string, op: Operand) => (op.kind === 'value' ? e : op.kind === 'avg' ? `(${e}).shift(1)` : `${e}.shift(1)`);
      const [lp, rp] = [prev(l, c.left), prev(r, c.right)];
      const up = `gt(${l}, ${r}) & le(${lp}, ${rp})`;
      const down = `lt(${l}, ${r}) & ge(${lp}, ${rp})`;
      const expr =
        c.relation === 'above'
          ? `np.where(gt(${l}, ${r}), 1.0, 0.0)`
          : c.relation === 'below'
            ? `np.where(lt(${l}, ${r}), 1.0, 0.0)`
            : c.relation === 'cross_up'
              ? `np.where(${up}, 1.0, 0.0)`
              : c.relation === 'cross_down'
                ? `np.where(${down}, 1.0, 0.0)`
                : `np.where(${up}, 1.0, np.where(${down}, -1.0, 0.0))`;
      return [`df['${name}'] = ${expr}`];
    }
    case 'band': {
      const [upper, , lower] = INDICATORS.bb.columns(instances[c.instance]!.params).map((col) => `df['${col}']`);
      const expr =
        c.where === 'outside'
          ? `np.where(gt(close, ${upper}), 1.0, np.where(lt(close, ${lower}), -1.0, 0.0))`
          : c.where === 'above_upper'
            ? `np.where(gt(close, ${upper}), 1.0, 0.0)`
            : c.where === 'below_lower'
              ? `np.where(lt(close, ${lower}), 1.0, 0.0)`
              : `np.where(le(close, ${upper}) & ge(close, ${lower}), 1.0, 0.0)`;
      return [`df['${name}'] = ${expr}`];
    }
    case 'breakout':
      return [
        `_hh = high.rolling(${c.window}).max().shift(1)`,
        `_ll = low.rolling(${c.window}).min().shift(1)`,
        `df['${name}'] = np.where(close > _hh, 1.0, np.where(close < _ll, -1.0, 0.0))`,
        `df['range_pos_${c.window}'] = np.where(_hh - _ll > 0, (close - _ll) / (_hh - _ll), 0.5)`,
      ];
    case 'momentum':
      return [`df['${name}'] = close.pct_change(${c.window})`];
    case 'pattern':
      return []; // the pattern's own column
    case 'channel': {
      const cols = GEN[instances[c.instance]!.name].columns(instances[c.instance]!.params);
      const [upper, lower] = [`df['${cols[0]}']`, `df['${cols[['donchian', 'sessrange'].includes(instances[c.instance]!.name) ? 1 : 2]}']`];
      return [`df['${name}'] = np.where(gt(close, ${upper}), 1.0, np.where(lt(close, ${lower}), -1.0, 0.0))`];
    }
  }
}

/** Scale-free companions of each indicator: what a model can compare across price levels. */
function companion(inst: Instance): FeatureBlock | null {
  const cols = GEN[inst.name].columns(inst.params);
  const p = inst.params;
  switch (inst.name) {
    case 'sma':
    case 'ema':
    case 'wma':
      return { comment: '', lines: [`df['${cols[0]}_dist'] = close / df['${cols[0]}'] - 1`], names: [`${cols[0]}_dist`] };
    case 'bb': {
      const tag = `${formatParamValue(p.period!)}_${formatParamValue(p.std!)}`;
      // %B divides by the band width, which magnifies the rounding noise of pandas' running
      // variance (it depends on where the history starts); a two-pass deviation of the same
      // window is exact, so %B is the same on any stretch of history.
      return {
        comment: '',
        lines: [
          `# %B of Bollinger(${p.period}, ${p.std}) from a two-pass standard deviation (exact on any stretch of history)`,
          '_bb_ss = 0.0',
          `for _j in range(${p.period}):`,
          `    _bb_ss = _bb_ss + (close.shift(_j) - df['${cols[1]}']) ** 2`,
          `_bb_sd2 = np.sqrt(_bb_ss / ${p.period})`,
          `df['bb_pctb_${tag}'] = np.where(_bb_sd2 > 1e-7 * close, 0.5 + (close - df['${cols[1]}']) / (2 * ${p.std} * _bb_sd2), 0.5)`,
          `df['bb_width_${tag}'] = (df['${cols[0]}'] - df['${cols[2]}']) / df['${cols[1]}']`,
        ],
        names: [`bb_pctb_${tag}`, `bb_width_${tag}`],
      };
    }
    case 'atr':
      return { comment: '', lines: [`df['natr_${p.period}'] = df['${cols[0]}'] / close * 100`], names: [`natr_${p.period}`] };
    case 'macd':
      return { comment: '', lines: [`df['${cols[2]}_pct'] = df['${cols[2]}'] / close * 100`], names: [`${cols[2]}_pct`] };
    case 'keltner':
    case 'donchian':
    case 'vwap':
    case 'pivot':
    case 'ichimoku':
    case 'psar':
    case 'supertrend':
    case 'hhll':
    case 'sessrange':
      // Price-scale levels: the distance to the first one is what carries across price levels.
      return { comment: '', lines: [`df['${cols[0]}_dist'] = close / df['${cols[0]}'] - 1`], names: [`${cols[0]}_dist`] };
    default:
      return null;
  }
}

const PRICE_ACTION: FeatureBlock = {
  comment: 'Price action and time of day',
  lines: [
    "df['ret_1'] = close.pct_change()",
    "df['ret_4'] = close.pct_change(4)",
    "df['range_pct'] = (high - low) / close",
    "df['body_pct'] = (close - open_) / close",
    "df['hour_sin'] = np.sin(2 * np.pi * df.index.hour / 24)",
    "df['hour_cos'] = np.cos(2 * np.pi * df.index.hour / 24)",
  ],
  names: ['ret_1', 'ret_4', 'range_pct', 'body_pct', 'hour_sin', 'hour_cos'],
};

/**
 * Comparisons with a margin: a difference below 1e-9 (relative) is a tie, neither above nor
 * below, so the rounding noise of rolling sums (which depends on where the history starts)
 * never flips a flag, and the features computed on a truncated history equal the full ones.
 */
const COMPARE_HELPERS = [
  'def gt(a, b):',
  '    """True where a exceeds b by more than rounding noise (1e-9, relative)."""',
  '    return (a - b) > 1e-9 * (np.abs(b) + 1)',
  '',
  'def lt(a, b):',
  '    """True where a is below b by more than rounding noise (1e-9, relative)."""',
  '    return (b - a) > 1e-9 * (np.abs(b) + 1)',
  '',
  'def ge(a, b):',
  '    """True where a is not below b beyond rounding noise; False where either is NaN (a negated lt would be True there)."""',
  '    return (a - b) >= -1e-9 * (np.abs(b) + 1)',
  '',
  'def le(a, b):',
  '    """True where a does not exceed b beyond rounding noise; False where either is NaN (a negated gt would be True there)."""',
  '    return (b - a) >= -1e-9 * (np.abs(b) + 1)',
  '',
];

export const GATE_COLUMN = 'entry_gate';
export const EXIT_LONG_COLUMN = 'exit_long_rule';
export const EXIT_SHORT_COLUMN = 'exit_short_rule';
export const ENTRY_LONG_COLUMN = 'entry_long_rule';
export const ENTRY_SHORT_COLUMN = 'entry_short_rule';

const SENSE = { pos: '> 0', neg: '< 0', nonzero: '!= 0' } as const;
/** An entry rule as a numpy condition: any group, each group all of its terms. */
export function ruleExpr(rule: EntryRule): string {
  const group = (g: readonly RuleTerm[]) => g.map((t) => `(df['${t.name}'] ${SENSE[t.sense]})`).join(' & ');
  return rule.length === 1 ? group(rule[0]!) : rule.map((g) => (g.length > 1 ? `(${group(g)})` : group(g))).join(' | ');
}

/** The role columns' block: 1.0 where the gate holds / an exit rule fires. */
function roleBlock(roles: RoleColumns): FeatureBlock {
  const block: FeatureBlock = {
    comment:
      "Roles: entry_long / entry_short = the trader's entry rules (a side opens only where its rule is 1, and the model confirms); entry_filter = entries only where every filter holds; exit_long / exit_short = close that side at the next open",
    lines: [],
    names: [],
  };
  for (const [rule, column] of [
    [roles.entryLong, ENTRY_LONG_COLUMN],
    [roles.entryShort, ENTRY_SHORT_COLUMN],
  ] as const) {
    if (!rule?.length) continue;
    block.lines.push(`df['${column}'] = np.where(${ruleExpr(rule)}, 1.0, 0.0)`);
    block.names.push(column);
  }
  if (roles.gate.length) {
    block.lines.push(
      `df['${GATE_COLUMN}'] = np.where(${roles.gate.map((g) => `(df['${g.name}'] ${g.negate ? '==' : '!='} 0)`).join(' & ')}, 1.0, 0.0)`,
    );
    block.names.push(GATE_COLUMN);
  }
  for (const [names, column] of [
    [roles.exitLong, EXIT_LONG_COLUMN],
    [roles.exitShort, EXIT_SHORT_COLUMN],
  ] as const) {
    if (!names.length) continue;
    block.lines.push(`df['${column}'] = np.where(${names.map((n) => `(df['${n}'] != 0)`).join(' | ')}, 1.0, 0.0)`);
    block.names.push(column);
  }
  return block;
}

/**
 * The instances whose parameters the code reads from strategy_config()["indicators"]: the first of
 * each tunable kind (the Indicators object has one key per parameter), except one whose column
 * strategy_config() names (trend_filter: a literal name that must not move with the period).
 */
function tunables(instances: readonly Instance[], literal: readonly string[]): Tunable[] {
  const out: Tunable[] = [];
  for (const inst of instances) {
    if (!TUNABLE.has(inst.name) || out.some((t) => t.name === inst.name)) continue;
    if (GEN[inst.name].columns(inst.params).some((c) => literal.includes(c))) continue;
    out.push({ name: inst.name as Tunable['name'], params: inst.params });
  }
  return out;
}

/**
 * Column names that follow a tunable instance's parameters: each literal name (at the code's own
 * values) and its f-string body, `rsi_14` → `rsi_{_p_rsi_period}`; the ATR's NATR companion too.
 */
function nameTokens(list: readonly Tunable[]): Array<[string, string]> {
  const tokens: Array<[string, string]> = [];
  for (const t of list) {
    const info = INDICATORS[t.name].info;
    const literal = INDICATORS[t.name].columns(t.params);
    info.columns.patterns.forEach((pattern, i) =>
      tokens.push([literal[i]!, pattern.replace(/\{(\w+)\}/g, (_, k: string) => `{_p_${t.name}_${k}}`)]),
    );
    if (t.name === 'atr') tokens.push([`natr_${t.params.period}`, `natr_{_p_atr_period}`]);
  }
  return tokens.sort((a, b) => b[0].length - a[0].length);
}

/** Every quoted column name holding a tunable token becomes an f-string computed from the values read. */
function followValues(lines: readonly string[], tokens: ReadonlyArray<[string, string]>): string[] {
  if (!tokens.length) return [...lines];
  const body = new Map(tokens);
  const token = new RegExp(`(?<![a-z0-9])(${tokens.map(([t]) => t).join('|')})(?![a-z0-9])`, 'g');
  return lines.map((line) =>
    line.replace(/'([a-z][a-z0-9_]*)'/g, (quoted, name: string) => {
      token.lastIndex = 0;
      if (!token.test(name)) return quoted;
      return `f'${name.replace(token, (t) => body.get(t)!)}'`;
    }),
  );
}

/**
 * Every feature, in the order the code adds them; duplicate names are written once. `literal`:
 * column names strategy_config() refers to (they keep their instance's values written in the code).
 */
export function planFeatures(
  instances: readonly Instance[],
  conditions: readonly Condition[],
  pip = 0.0001,
  roles: RoleColumns = { gate: [], exitLong: [], exitShort: [] },
  literal: readonly string[] = [],
): FeaturePlan {
  const list = instances.map((i) => ({ name: i.name, params: i.params }));
  const indicatorNames = list.flatMap((i) => GEN[i.name].columns(i.params));
  const seen = new Set<string>(indicatorNames);
  const blocks: FeatureBlock[] = [];
  const companions: FeatureBlock = { comment: 'Scale-free companions of the indicators', lines: [], names: [] };
  for (const inst of instances) {
    const c = companion(inst);
    if (c && c.names.every((n) => !seen.has(n))) {
      c.names.forEach((n) => seen.add(n));
      companions.lines.push(...c.lines);
      companions.names.push(...c.names);
    }
  }
  if (companions.lines.length) blocks.push(companions);
  const conds: FeatureBlock = {
    comment: 'Conditions from the request: 1.0 where true (crosses: +1 up, -1 down), else 0.0',
    lines: [...COMPARE_HELPERS],
    names: [],
  };
  for (const c of conditions) {
    const name = conditionName(c, instances);
    if (seen.has(name)) continue;
    const extra = c.kind === 'breakout' ? [`range_pos_${c.window}`] : [];
    if (extra.some((n) => seen.has(n))) continue;
    [name, ...extra].forEach((n) => seen.add(n));
    conds.lines.push(`# ${describeCondition(c, instances)}`, ...conditionLines(c, name, instances, String(pip)));
    conds.names.push(name, ...extra);
  }
  if (conds.names.length) {
    // The helpers only when a comparison uses them.
    if (!conds.lines.slice(COMPARE_HELPERS.length).some((l) => /\b(gt|lt|ge|le)\(/.test(l))) conds.lines.splice(0, COMPARE_HELPERS.length);
    blocks.push(conds);
  }
  const rolesBlock = roleBlock(roles);
  if (rolesBlock.names.length) blocks.push(rolesBlock);
  const price = { ...PRICE_ACTION, lines: [...PRICE_ACTION.lines], names: [...PRICE_ACTION.names] };
  const keep = price.names.map((n) => !seen.has(n));
  blocks.push({ comment: price.comment, lines: price.lines.filter((_, i) => keep[i]), names: price.names.filter((_, i) => keep[i]) });
  const tuned = tunables(instances, literal);
  const tokens = nameTokens(tuned);
  const isTuned = (i: { name: string; params: Record<string, number> }) => tuned.some((t) => t.name === i.name && t.params === i.params);
  const code = list.length
    ? [tunablePandas(tuned), ...list.map((i) => (isTuned(i) ? tunablePandas.instance(i as Tunable) : genPandas([i])))]
        .filter(Boolean)
        .join('\n')
    : '';
  return {
    indicatorCode: followValues(code.split('\n'), tokens).join('\n'),
    indicatorNames,
    blocks: blocks.map((b) => ({ ...b, lines: followValues(b.lines, tokens) })),
    names: [...indicatorNames, ...blocks.flatMap((b) => b.names)],
    indicators: tuned.length
      ? Object.fromEntries(tuned.flatMap((t) => INDICATORS[t.name].info.params.map((p) => [p.key, t.params[p.name] ?? p.default])))
      : null,
  };
}
