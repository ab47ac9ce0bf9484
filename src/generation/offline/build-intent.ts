/**
 * A generate request → the strategy intent: indicator instances, conditions, every
 * strategy_config value with where it came from, and the remarks. Pure and deterministic.
 */
import type { GenerateRequest } from '../../../schemas/generation.ts';
import { SYMBOLS } from '../../../schemas/common.ts';
import { GEN, isRegistry, type GenName } from './gen-indicators.ts';
import { conditionName as nameOf } from './features.ts';
import { DEFAULT_SIGNAL_THRESHOLD, StrategyConfig, type ModelType } from '../../../schemas/strategy.ts';
import { impliedStyle, notes, objective, statedStyle, title, type Summary } from './describe.ts';
import { columnOf, conditionName, planFeatures } from './features.ts';
import {
  applyIndicatorsObject,
  completeParams,
  finalizeInstances,
  resolveMentions,
  type InstanceRef,
  type InstanceTable,
} from './instances.ts';
import type {
  Approximation,
  Condition,
  ConditionSpec,
  LevelUnit,
  Operand,
  RiskLevel,
  Role,
  RoleColumns,
  Setting,
  Source,
  StrategyIntent,
  TrailLevel,
} from './intent.ts';
import type { TrailAsked } from './parse-exits.ts';
import type { Weekday } from '../../../schemas/strategy.ts';
import { ENTRY_LONG_COLUMN, ENTRY_SHORT_COLUMN, EXIT_LONG_COLUMN, EXIT_SHORT_COLUMN, GATE_COLUMN } from './features.ts';
import { entryRules } from './entry-rules.ts';
import { uncovered } from './coverage.ts';
import * as mk from './market.ts';
import { DEFAULT_MODEL, modelParams } from './models.ts';
import type { DOperand, Draft } from './parse-conditions.ts';
import type { Direction, OnOpposite } from './parse-rules.ts';
import { parseRequestText, type FieldParse } from './parse-request.ts';
import type { Amount, TakeValue } from './parse-risk.ts';
import { sessionHoursLabel, type SessionValue } from './parse-sessions.ts';
import { fromField, pick, PRIORITY, type Candidate, type Picked } from './settings.ts';
import { commentSafe } from './text.ts';
import { PAIR_SLANG_WORDS, pairSlang } from './pair-slang.ts';

type ROperand =
  | { kind: 'column'; ref: InstanceRef; output: number }
  | { kind: 'price' }
  | { kind: 'value'; value: number }
  | { kind: 'avg'; window: number };
type Level = { amount: number; unit: LevelUnit; atr: InstanceRef | null };
type RCondition =
  | { kind: 'compare'; left: ROperand; relation: Extract<Condition, { kind: 'compare' }>['relation']; right: ROperand }
  | { kind: 'band'; ref: InstanceRef; where: Extract<Condition, { kind: 'band' }>['where'] }
  | { kind: 'breakout'; window: number }
  | { kind: 'momentum'; window: number }
  | { kind: 'pattern'; ref: InstanceRef; output: number }
  | { kind: 'channel'; ref: InstanceRef }
  | ({ kind: 'offset'; left: ROperand; relation: 'above' | 'below'; base: ROperand; within: boolean } & Level)
  | ({ kind: 'near'; left: ROperand; base: ROperand } & Level);

const DEFAULT_SET: Array<[GenName, Record<string, number>]> = [
  ['ema', { period: 12 }],
  ['ema', { period: 26 }],
  ['rsi', { period: 14 }],
  ['atr', { period: 14 }],
];

function toROperand(op: DOperand, table: InstanceTable): ROperand | null {
  if (op.kind !== 'mention') return op;
  const ref = table.of.get(op.m);
  return ref ? { kind: 'column', ref, output: Math.min(op.output, columnCount(ref) - 1) } : null;
}
const columnCount = (ref: InstanceRef) => GEN[ref.name].columns(ref.params).length;

function toRCondition(d: Draft, table: InstanceTable): RCondition | null {
  const c = d.cond;
  if (c.kind === 'breakout' || c.kind === 'momentum') return c;
  if (c.kind === 'band') {
    const ref = table.of.get(c.m);
    return ref ? { kind: 'band', ref, where: c.where } : null;
  }
  if (c.kind === 'pattern' || c.kind === 'channel') {
    const ref = table.of.get(c.m);
    if (!ref) return null;
    return c.kind === 'pattern' ? { kind: 'pattern', ref, output: Math.min(c.output, columnCount(ref) - 1) } : { kind: 'channel', ref };
  }
  if (c.kind === 'offset' || c.kind === 'near') {
    const [left, base] = [toROperand(c.left, table), toROperand(c.base, table)];
    const atr = c.atr ? (table.of.get(c.atr) ?? null) : null;
    if (!left || !base || (c.unit === 'atr' && !atr)) return null;
    return c.kind === 'near'
      ? { kind: 'near', left, base, amount: c.amount, unit: c.unit, atr }
      : { kind: 'offset', left, relation: c.relation, base, amount: c.amount, unit: c.unit, atr, within: c.within };
  }
  const [left, right] = [toROperand(c.left, table), toROperand(c.right, table)];
  if (!left || !right) return null;
  // An ATR level in pips or price is the volatility filter (min_atr), not a feature.
  if (left.kind === 'column' && left.ref.name === 'atr' && right.kind === 'value') return null;
  if (left.kind === 'column' && right.kind === 'column' && left.ref === right.ref && left.output === right.output) return null;
  return { kind: 'compare', left, relation: c.relation, right };
}

const candidates = <T>(
  fields: readonly FieldParse[],
  get: (f: FieldParse) => readonly { value: T; at: number; phrase: string }[],
): Candidate<T>[] => fields.flatMap((f) => fromField(f.field, get(f)));

/** Parses the request and resolves it into the intent (everything but the code text). */
export function buildIntent(request: GenerateRequest): StrategyIntent {
  const symbol = request.symbol ?? 'EURUSD';
  const timeframe = request.timeframe ?? '15min';
  const market = mk.marketFacts(symbol, timeframe);
  const remarks: string[] = [];
  const fields = parseRequestText(request, timeframe);
  for (const f of fields) remarks.push(...f.rules.remarks, ...f.risk.remarks, ...f.model.remarks);
  const named = [...new Set(fields.flatMap((f) => [...f.norm.matchAll(SYMBOL_NAMED)].map((m) => m[1]!.toUpperCase())))];
  const others = named.filter((s) => s !== symbol);
  if (others.length) remarks.push(`the text names ${others.join(', ')}; the code is written for ${symbol}, the request's symbol`);
  remarks.push(
    ...notOffered(
      fields.map((f) => f.norm),
      symbol,
      timeframe,
      fields.map((f) => f.text),
    ),
  );
  for (const u of new Set(fields.flatMap((f) => f.unread)))
    remarks.push(
      `not understood, so nothing in the code comes from it: "${u}" — name an indicator and a level, e.g. "RSI 14 below 30" or "close above the 20 EMA"`,
    );
  const approximations: Approximation[] = fields.flatMap((f) => f.approximations);
  const unsupported = [...new Set(fields.flatMap((f) => f.unsupported))];
  if (unsupported.length)
    remarks.push(
      `left out: ${unsupported.join(', ')} (bars carry no volume, news or order book; no Fibonacci, Renko, hidden divergence, chart patterns or candle patterns other than engulfing, pin, inside and narrow-range bars, stars, tweezers, Heikin-Ashi and candles in a row)`,
    );

  // Indicators: mentions → instances, then the structured object over them.
  const table = resolveMentions(fields, timeframe, remarks);
  const disabled = applyIndicatorsObject(table, request.indicators, remarks);
  type RCond = {
    cond: RCondition;
    side: ConditionSpec['side'];
    from: Source;
    role: Role;
    negate: boolean;
    phrase?: string;
    inferred?: boolean;
    stmt?: string;
    orJoin?: boolean;
  };
  const rconds: RCond[] = fields.flatMap((f) =>
    f.drafts.flatMap((d) => {
      const cond = toRCondition(d, table);
      const stmt = d.stmt === undefined ? undefined : `${f.field}:${d.stmt}`;
      return cond ? [{ cond, side: d.side, from: f.field, role: d.role, negate: d.negate, phrase: d.phrase, stmt, orJoin: d.orJoin }] : [];
    }),
  );
  // Bollinger bands named with no rule of their own: price outside the bands (the mean-reversion reading).
  for (const ref of table.refs) {
    if (ref.name !== 'bb' || rconds.some((c) => (c.cond.kind === 'band' || c.cond.kind === 'channel') && c.cond.ref === ref)) continue;
    if (rconds.some((c) => c.cond.kind === 'compare' && [c.cond.left, c.cond.right].some((o) => o.kind === 'column' && o.ref === ref)))
      continue;
    rconds.push({
      cond: { kind: 'band', ref, where: 'outside' },
      side: null,
      from: fields.find((f) => f.mentions.some((m) => table.of.get(m) === ref))?.field ?? 'indicators',
      role: 'entry',
      negate: false,
      inferred: true,
    });
    remarks.push(
      `Bollinger(${ref.params.period}, ${ref.params.std}) named without a rule: the condition is price outside the bands (+1 above the upper, -1 below the lower)`,
    );
  }
  const intern = (name: GenName, params: Record<string, number>): InstanceRef | null => {
    if (isRegistry(name) && disabled.has(name)) return null;
    const full = completeParams(name, params, remarks);
    const found = table.refs.find((r) => r.name === name && JSON.stringify(r.params) === JSON.stringify(full));
    if (found) return found;
    const ref = { name, params: full };
    table.refs.push(ref);
    return ref;
  };
  if (table.refs.length === 0 && !rconds.some((c) => c.cond.kind === 'breakout' || c.cond.kind === 'momentum')) {
    remarks.push(
      fields.length || request.indicators
        ? 'no built-in indicator recognised: using the default EMA 12/26 crossover with RSI 14 and ATR 14'
        : 'empty request: the default EMA 12/26 crossover with RSI 14 and ATR 14',
    );
    const [fast, slow, rsi] = DEFAULT_SET.map(([n, p]) => intern(n, p));
    if (fast && slow)
      rconds.push({
        cond: {
          kind: 'compare',
          left: { kind: 'column', ref: fast, output: 0 },
          relation: 'cross',
          right: { kind: 'column', ref: slow, output: 0 },
        },
        side: null,
        from: 'default',
        role: 'entry',
        negate: false,
        inferred: true,
      });
    if (rsi) {
      for (const [relation, value] of [
        ['below', 30],
        ['above', 70],
      ] as const) {
        rconds.push({
          cond: { kind: 'compare', left: { kind: 'column', ref: rsi, output: 0 }, relation, right: { kind: 'value', value } },
          side: null,
          from: 'default',
          role: 'entry',
          negate: false,
          inferred: true,
        });
      }
    }
  }

  // Trend filter: a moving-average column; "with the trend" alone means SMA 200.
  const trendCands: Candidate<InstanceRef | 'sma200' | null>[] = fields.flatMap((f) =>
    f.trends.map((t) => ({ value: t.m ? (table.of.get(t.m) ?? null) : 'sma200', from: f.field, phrase: t.phrase, at: t.at })),
  );
  const trendChoice = pick(
    'trend filter',
    'filters',
    trendCands,
    { value: null, from: 'default' },
    (r) => (r === 'sma200' ? 'sma_200' : r ? columnOf(r, 0) : 'none'),
    remarks,
  );
  const trendPick = { ...trendChoice, value: trendChoice.value === 'sma200' ? intern('sma', { period: 200 }) : trendChoice.value };

  // Volatility filter → min_atr (NATR(14) in percent); also gives the model ATR 14.
  const atrPick = pick(
    'volatility filter',
    'filters',
    candidates(fields, (f) => f.risk.minAtr),
    { value: null, from: 'default' },
    (v) => (v === null ? 'none' : v === 'default' ? 'default' : `${v.value} ${v.unit}`),
    remarks,
  );
  let minAtr: number | null = null;
  if (atrPick.value !== null) {
    const v = atrPick.value;
    minAtr =
      v === 'default'
        ? mk.defaultMinAtr(market)
        : mk.sig(
            v.unit === 'pips'
              ? ((v.value * market.pip) / market.price) * 100
              : v.unit === 'price'
                ? (v.value / market.price) * 100
                : v.value,
            3,
          );
    if (minAtr > 100) {
      remarks.push('min_atr above 100% NATR; set to 100');
      minAtr = 100;
    }
    intern('atr', { period: 14 });
  }

  const { instances, index } = finalizeInstances(table.refs);
  // FX bars carry no volume: the VWAP the words name is the session's time-weighted typical price, said so.
  if (instances.some((i) => i.name === 'vwap')) {
    approximations.push({
      asked: 'VWAP',
      done: "the session VWAP as a time-weighted average: the typical price (high + low + close) / 3 averaged over the UTC day's bars so far, every bar weighted alike",
      why: 'FX bars carry no real volume (nor tick counts) to weight by',
    });
  }
  const op = (o: ROperand): Operand => (o.kind === 'column' ? { kind: 'column', instance: index.get(o.ref)!, output: o.output } : o);
  const seenConditions = new Set<string>();
  const allSpecs: ConditionSpec[] = rconds.map(({ cond, side, from, role, negate, phrase, inferred, stmt, orJoin }) => {
    const atr = 'atr' in cond && cond.atr ? index.get(cond.atr)! : null;
    // An exit of price against a line or level ("exit on a close below the 20 EMA") is the close
    // crossing it: the state also holds on most bars where the entry fires, and the engine opens
    // nothing on a bar whose exit is set, so the strategy would never trade. A stop beyond the
    // last swing high / low (hhll) stays a state: the close is never beyond it where an entry fires.
    const swing = cond.kind === 'compare' && cond.right.kind === 'column' && instances[index.get(cond.right.ref)!]?.name === 'hhll';
    const crossing =
      role === 'exit' &&
      !swing &&
      cond.kind === 'compare' &&
      cond.left.kind === 'price' &&
      cond.right.kind !== 'price' &&
      (cond.relation === 'above' || cond.relation === 'below');
    const c: Condition =
      cond.kind === 'compare'
        ? {
            kind: 'compare',
            left: op(cond.left),
            relation: crossing ? (cond.relation === 'above' ? 'cross_up' : 'cross_down') : cond.relation,
            right: op(cond.right),
          }
        : cond.kind === 'band'
          ? { kind: 'band', instance: index.get(cond.ref)!, where: cond.where }
          : cond.kind === 'pattern'
            ? { kind: 'pattern', instance: index.get(cond.ref)!, output: cond.output }
            : cond.kind === 'channel'
              ? { kind: 'channel', instance: index.get(cond.ref)! }
              : cond.kind === 'offset'
                ? {
                    kind: 'offset',
                    left: op(cond.left),
                    relation: cond.relation,
                    base: op(cond.base),
                    amount: cond.amount,
                    unit: cond.unit,
                    atr,
                    within: cond.within,
                  }
                : cond.kind === 'near'
                  ? { kind: 'near', left: op(cond.left), base: op(cond.base), amount: cond.amount, unit: cond.unit, atr }
                  : cond;
    return {
      condition: c,
      side,
      from,
      role,
      ...(negate ? { negate } : {}),
      ...(phrase ? { phrase } : {}),
      ...(inferred ? { inferred } : {}),
      ...(stmt !== undefined ? { stmt, orJoin: orJoin === true } : {}),
    };
  });
  // One condition per column and role side: the same column may be an entry and an exit.
  const dedupe = (list: readonly ConditionSpec[]) =>
    list.filter((c) => {
      const key = `${conditionName(c.condition, instances)}|${c.role}|${c.role === 'exit' ? c.side : ''}|${c.negate === true}`;
      if (seenConditions.has(key)) return false;
      seenConditions.add(key);
      return true;
    });
  const conditions: ConditionSpec[] = dedupe(allSpecs);
  const trendColumn = trendPick.value ? columnOf(instances[index.get(trendPick.value)!]!, 0) : null;

  // Position rules: pos_rules first, then the text.
  const pr = request.pos_rules ?? {};
  const structured = <T>(v: T | undefined): Candidate<T>[] => (v === undefined ? [] : [{ value: v, from: 'pos_rules', at: 0 }]);
  const stated = pick<Direction>(
    'direction',
    'position',
    [...structured(pr.direction), ...candidates(fields, (f) => f.rules.direction)],
    { value: 'both', from: 'default' },
    String,
    remarks,
  );
  // Nothing says the direction outright: the entries the text names decide it ("go long when…",
  // "…, sell" with no buy anywhere); both sides named, or neither, trade both.
  // Entries read for both sides ("…, go long; opposite for short") trade both, whatever side words the text uses.
  const entrySides = new Set(allSpecs.filter((c) => c.role === 'entry' && c.side).map((c) => c.side));
  const implied = stated.from === 'default' && entrySides.size < 2 ? (impliedDirection(fields) ?? oneSided(allSpecs, fields)) : null;
  const direction = implied ?? stated;
  if (implied)
    remarks.push(
      `${implied.value} only: the text names ${implied.value === 'long' ? 'buys and no sells' : 'sells and no buys'} ("${implied.phrase}"); say "both ways" to trade both`,
    );
  // "buy the dip …, sell when RSI > 55, no shorting": with the other side ruled out in words, its entries close the side traded.
  if (stated.from !== 'default' && direction.value !== 'both') {
    const closes = allSpecs.filter((c) => c.role === 'entry' && c.side !== null && c.side !== direction.value && !c.inferred);
    for (const c of closes) Object.assign(c, { role: 'exit', side: direction.value });
    if (closes.length)
      remarks.push(
        `${direction.value} only: the ${direction.value === 'long' ? 'sells' : 'buys'} named ("${closes[0]!.phrase ?? closes[0]!.from}") close the ${direction.value}s`,
      );
  }
  const rules = entryRules(
    allSpecs,
    direction.value,
    trendColumn,
    instances,
    fields.map((f) => f.norm),
    remarks,
  );
  conditions.push(...dedupe(rules.added));
  // Side-less conditions gating both sides alike are entry filters.
  conditions.forEach((c, k) => {
    if (c.role === 'entry' && rules.asFilter.includes(conditionName(c.condition, instances))) conditions[k] = { ...c, role: 'filter' };
  });
  const roles = {
    ...roleColumns(conditions, direction.value, instances, remarks, approximations),
    entryLong: rules.long,
    entryShort: rules.short,
  };
  // The trend filter's column is named in strategy_config(): its instance keeps the values written in the code.
  const plan = planFeatures(
    instances,
    conditions.map((c) => c.condition),
    market.pip,
    roles,
    trendColumn ? [trendColumn] : [],
  );
  const cooldown = pick(
    'cooldown',
    'position',
    [...structured(pr.cooldown), ...candidates(fields, (f) => f.rules.cooldown)],
    { value: 0, from: 'default' },
    (v) => `${v} bars`,
    remarks,
  );
  const maxPositions = pick(
    'max positions',
    'position',
    [...structured(pr.max_pos), ...candidates(fields, (f) => f.rules.maxPositions)],
    { value: 1, from: 'default' },
    String,
    remarks,
  );
  const onOpposite = pick<OnOpposite>(
    'on opposite signal',
    'position',
    [...structured(pr.on_opposite), ...candidates(fields, (f) => f.rules.onOpposite)],
    { value: 'close_only', from: 'default' },
    String,
    remarks,
  );
  const session = afterOpen(
    pick<SessionValue>(
      'session',
      'filters',
      candidates(fields, (f) => f.sessions),
      { value: { hours: null, label: 'all hours' }, from: 'default' },
      sessionHoursLabel,
      remarks,
    ),
    fields,
    remarks,
  );
  const skipDays = pick<Weekday[]>(
    'days',
    'filters',
    candidates(fields, (f) => f.exits.skipDays),
    { value: [], from: 'default' },
    (d) => d.join(', ') || 'none',
    remarks,
  );

  // Model, horizon, threshold.
  const modelPick = pick<ModelType>(
    'model',
    'model',
    candidates(fields, (f) => f.model.type),
    { value: DEFAULT_MODEL, from: 'default' },
    String,
    remarks,
  );
  const asked = [...fields]
    .sort((a, b) => (a.field === 'model' ? 1 : 0) - (b.field === 'model' ? 1 : 0))
    .flatMap((f) => f.model.params.map((p) => p.value));
  const params = modelParams(modelPick.value, asked, remarks);
  const texts = fields.map((f) => f.norm);
  const style = statedStyle(texts) ?? impliedStyle(conditions, instances, trendColumn !== null);
  const defaultHorizon = style === 'scalping' ? Math.max(1, Math.round(mk.DEFAULT_HORIZON[timeframe] / 2)) : mk.DEFAULT_HORIZON[timeframe];
  let horizon = pick(
    'target horizon',
    'horizon',
    candidates(fields, (f) => f.model.horizon),
    { value: defaultHorizon, from: 'default' },
    (v) => `${v} bars`,
    remarks,
  );
  if (horizon.value > 200) {
    remarks.push(`a ${horizon.value}-bar horizon is beyond the 200-bar limit on ${timeframe}; using 200`);
    horizon = { ...horizon, value: 200 };
  }
  const defaultThreshold = DEFAULT_SIGNAL_THRESHOLD[rules.long || rules.short ? 'meta' : 'direction'];
  let threshold = pick(
    'signal threshold',
    'horizon',
    candidates(fields, (f) => f.model.threshold),
    { value: defaultThreshold, from: 'default' },
    String,
    remarks,
  );
  if (threshold.value < 0.5 || threshold.value > 0.95) {
    const v = Math.min(0.95, Math.max(0.5, threshold.value));
    remarks.push(`a ${threshold.value} probability threshold is outside [0.5, 0.95]; using ${v}`);
    threshold = { ...threshold, value: v };
  }
  threshold = { ...threshold, value: mk.sig(threshold.value, 3) };

  // Stops and targets: ratios of the typical price; a trailing stop replaces the default fixed stop.
  const risk = resolveRisk(fields, market, horizon.value, remarks);
  const trailingStop = resolveTrail(fields, risk.stopLoss.value, market, horizon.value, remarks);
  const { stopLoss, takeProfit } = withoutContradictingDefaults(fields, risk, trailingStop, remarks);
  const goal = pick(
    'objective',
    'objective',
    candidates(fields, (f) => f.model.objective),
    { value: 'Maximise the profit factor', from: 'default' },
    String,
    remarks,
  );

  const summary: Summary = {
    style,
    conditions,
    instances,
    direction: direction.value,
    sessionLabel: session.value.hours ? session.value.label : null,
    symbol,
    timeframe,
    model: modelPick.value,
    stop: stopLoss.value,
    take: takeProfit.value,
    horizon: horizon.value,
    threshold: threshold.value,
    trend: trendColumn,
    minAtr,
    extra: [],
  };
  const intent: Omit<StrategyIntent, 'config'> = {
    symbol,
    timeframe,
    indicators: instances.flatMap((i) => (isRegistry(i.name) ? [{ name: i.name, params: i.params }] : [])),
    instances,
    conditions,
    features: plan.names,
    direction,
    session,
    stopLoss,
    takeProfit,
    trailingStop,
    cooldown,
    maxPositions,
    onOpposite,
    skipDays,
    roles,
    entryLong: rules.long ? ENTRY_LONG_COLUMN : null,
    entryShort: rules.short ? ENTRY_SHORT_COLUMN : null,
    entryRuleWords: rules.words,
    exitLong: roles.exitLong.length ? EXIT_LONG_COLUMN : null,
    exitShort: roles.exitShort.length ? EXIT_SHORT_COLUMN : null,
    entryGate: roles.gate.length ? GATE_COLUMN : null,
    approximations,
    trendFilter: { value: trendColumn, from: trendPick.from, ...(trendPick.phrase ? { phrase: trendPick.phrase } : {}) },
    minAtr: { value: minAtr, from: atrPick.from, ...(atrPick.phrase ? { phrase: atrPick.phrase } : {}) },
    model: { value: { type: modelPick.value, params }, from: modelPick.from, ...(modelPick.phrase ? { phrase: modelPick.phrase } : {}) },
    targetHorizon: horizon,
    threshold,
    style,
    title: title(summary),
    objective: objective(goal.value, summary),
    notes: notes(summary),
    remarks: [...new Set(remarks.map((r) => commentSafe(r, 300)))],
    uncovered: [],
  };
  // The coverage check: whatever the words name that the code neither expresses nor says is said now.
  intent.uncovered = uncovered(fields, intent);
  for (const u of intent.uncovered) {
    intent.remarks.push(
      commentSafe(
        u.kind === 'indicator'
          ? `${u.what} is named but in no rule, filter or exit: the code computes it as a feature for the model only; say how it enters, e.g. "close above the ${u.what}"`
          : `not understood, so nothing in the code comes from it: "${u.what}" — name an indicator and a level, e.g. "RSI 14 below 30" or "close above the 20 EMA"`,
        300,
      ),
    );
  }
  const config = StrategyConfig.parse({
    model_type: modelPick.value,
    model_params: params,
    signal_threshold: threshold.value,
    direction: direction.value,
    stop_loss: stopLoss.value?.ratio ?? null,
    take_profit: takeProfit.value?.ratio ?? null,
    cooldown: cooldown.value,
    max_positions: maxPositions.value,
    on_opposite: onOpposite.value,
    session_filter: session.value.hours,
    min_atr: minAtr,
    trend_filter: trendColumn,
    target_horizon: horizon.value,
    objective: intent.objective,
    notes: intent.notes,
    title: intent.title,
    ...(skipDays.value.length ? { skip_days: skipDays.value } : {}),
    ...(intent.entryGate ? { entry_filter: intent.entryGate } : {}),
    ...(intent.entryLong ? { entry_long: intent.entryLong } : {}),
    ...(intent.entryShort ? { entry_short: intent.entryShort } : {}),
    ...(intent.exitLong ? { exit_long: intent.exitLong } : {}),
    ...(intent.exitShort ? { exit_short: intent.exitShort } : {}),
    ...(trailingStop.value ? { trailing_stop: trailingStop.value.config } : {}),
    ...(plan.indicators ? { indicators: plan.indicators } : {}),
  });
  return { ...intent, config };
}

const RR_WITHOUT_STOP = 'a reward/risk multiple without a stop: taken of the default stop distance';

function resolveRisk(
  fields: readonly FieldParse[],
  m: mk.MarketFacts,
  horizon: number,
  remarks: string[],
): { stopLoss: Setting<RiskLevel | null>; takeProfit: Setting<RiskLevel | null> } {
  const show = (a: Amount | null) => (a ? `${a.amount} ${a.unit}` : 'none');
  const stop = pick<Amount | null>(
    'stop loss',
    'risk',
    candidates(fields, (f) => f.risk.stop),
    { value: { amount: mk.sig(mk.defaultStopRatio(m, horizon), 3), unit: 'ratio' }, from: 'default' },
    show,
    remarks,
  );
  const take = pick<TakeValue>(
    'take profit',
    'risk',
    candidates(fields, (f) => f.risk.take),
    { value: { rr: mk.DEFAULT_REWARD_RISK }, from: 'default' },
    (v) => (v === null ? 'none' : 'rr' in v ? `${v.rr} x the stop` : show(v)),
    remarks,
  );
  const level = (a: Amount, what: string): RiskLevel => {
    if (a.assumed) remarks.push(`${what} ${a.amount} has no unit; read as pips`);
    const ratio = mk.clampRatio(mk.toRatio(a.amount, a.unit, m), what, remarks);
    return { ratio, amount: a.amount, unit: a.unit, pips: mk.sig(mk.ratioToPips(ratio, m), 3) };
  };
  const stopLevel = stop.value ? level(stop.value, 'stop loss') : null;
  let takeLevel: RiskLevel | null = null;
  if (take.value && 'rr' in take.value) {
    const base = stopLevel?.ratio ?? mk.defaultStopRatio(m, horizon);
    if (!stopLevel) remarks.push(RR_WITHOUT_STOP);
    const ratio = mk.clampRatio(base * take.value.rr, 'take profit', remarks);
    takeLevel = { ratio, amount: take.value.rr, unit: 'rr', pips: mk.sig(mk.ratioToPips(ratio, m), 3) };
  } else if (take.value) takeLevel = level(take.value, 'take profit');
  return {
    stopLoss: { ...(stop as Picked<Amount | null>), value: stopLevel },
    takeProfit: { ...(take as Picked<TakeValue>), value: takeLevel },
  };
}

/** Where the text says it first, by the risk fields' precedence (settings.ts), as a setting's source. */
function firstSaid(
  fields: readonly FieldParse[],
  get: (f: FieldParse) => readonly { at: number; phrase: string }[],
): { from: Source; phrase: string } | null {
  const rank = (f: FieldParse) => {
    const i = PRIORITY.risk.indexOf(f.field);
    return i < 0 ? PRIORITY.risk.length : i;
  };
  for (const f of [...fields].sort((a, b) => rank(a) - rank(b))) {
    const [first] = get(f);
    if (first) return { from: f.field, phrase: first.phrase };
  }
  return null;
}

/**
 * No default that fights the words: the default fixed stop and take stay out where the text says
 * how the trade ends. A stop or take the text gives always holds.
 * - a trailing stop replaces the default fixed stop (it is the stop) and the default take (a fixed
 *   target would cap the trend the trail is there to ride), as do "let it run" and "ride the trend"
 *   for the take;
 * - an indicator target ("target the EMA") replaces the default take;
 * - "exit only on the opposite signal" / "hold until the opposite signal" rule out both.
 * Each default left out is said in the remarks, and the setting names the words that ruled it out.
 */
function withoutContradictingDefaults(
  fields: readonly FieldParse[],
  risk: ReturnType<typeof resolveRisk>,
  trail: Setting<TrailLevel | null>,
  remarks: string[],
): { stopLoss: Setting<RiskLevel | null>; takeProfit: Setting<RiskLevel | null> } {
  const signalOnly = firstSaid(fields, (f) => f.risk.signalExitOnly);
  const trailSaid = trail.value ? { from: trail.from, phrase: trail.phrase ?? 'a trailing stop' } : null;
  let stopLoss = risk.stopLoss;
  if (stopLoss.from === 'default' && stopLoss.value !== null) {
    if (trailSaid) {
      remarks.push('the trailing stop replaces the default fixed stop (a stop the text gives stays as a floor under it)');
      stopLoss = { value: null, ...trailSaid };
    } else if (signalOnly) {
      remarks.push(
        `no fixed stop: "${signalOnly.phrase}" makes the opposite signal the exit (the default stop would close trades before it); say e.g. "stop 30 pips" for one`,
      );
      stopLoss = { value: null, ...signalOnly };
    }
  }
  let takeProfit = risk.takeProfit;
  if (takeProfit.from === 'default' && takeProfit.value !== null) {
    const runs = trailSaid ?? firstSaid(fields, (f) => f.risk.letRun) ?? signalOnly;
    // An indicator target replaces the default take (a take distance the text gives still holds).
    if (fields.some((f) => f.exits.target)) takeProfit = { value: null, from: 'default' };
    else if (runs) {
      remarks.push(
        `no fixed take profit: "${runs.phrase}" lets the trade run, which the default take (${mk.DEFAULT_REWARD_RISK} x the stop) would cap; say e.g. "take profit 2R" for one`,
      );
      takeProfit = { value: null, ...runs };
    }
    if (takeProfit.value === null && remarks.includes(RR_WITHOUT_STOP)) remarks.splice(remarks.indexOf(RR_WITHOUT_STOP), 1);
  }
  return { stopLoss, takeProfit };
}

/** The schema's bounds of an ATR multiple, its period and a pip distance (schemas/strategy.ts TrailingStop). */
const TRAIL_BOUNDS = { atr: [0.1, 20], period: [2, 200], pips: [0.1, 10_000] } as const;

function bounded(value: number, key: keyof typeof TRAIL_BOUNDS, what: string, remarks: string[]): number {
  const [lo, hi] = TRAIL_BOUNDS[key];
  const v = Math.min(hi, Math.max(lo, value));
  if (v !== value) remarks.push(`a trailing stop ${what} of ${value} is outside [${lo}, ${hi}]; using ${v}`);
  return v;
}

/** The trailing stop the text asks for, as strategy_config trailing_stop (none by default). */
function resolveTrail(
  fields: readonly FieldParse[],
  stop: RiskLevel | null,
  m: mk.MarketFacts,
  horizon: number,
  remarks: string[],
): Setting<TrailLevel | null> {
  const show = (v: TrailAsked | null) => (v === null ? 'none' : v === 'default' ? 'no distance' : `${v.amount} ${v.unit}`);
  const asked = pick<TrailAsked | null>(
    'trailing stop',
    'risk',
    candidates(fields, (f) => f.exits.trail),
    { value: null, from: 'default' },
    show,
    remarks,
  );
  const v = asked.value;
  if (v === null) return { ...asked, value: null };
  let level: TrailLevel;
  if (v === 'default') {
    const ratio = stop?.ratio ?? mk.sig(mk.defaultStopRatio(m, horizon), 3);
    remarks.push(
      `a trailing stop without a distance trails by the stop distance, ${mk.sig(ratio * 100, 4)}% of the price; say e.g. "trail by 2 ATR" or "trailing stop 30 pips"`,
    );
    level = { config: ratio, label: `${mk.sig(ratio * 100, 4)}% (the stop distance)` };
  } else if (v.unit === 'pct') {
    const ratio = mk.clampRatio(v.amount / 100, 'trailing stop', remarks);
    level = { config: ratio, label: `${mk.sig(ratio * 100, 4)}%` };
  } else if (v.unit === 'pips') {
    const pips = bounded(v.amount, 'pips', 'in pips', remarks);
    level = { config: { pips }, label: `${pips} pips` };
  } else {
    const atr = bounded(v.amount, 'atr', 'ATR multiple', remarks);
    const period = bounded(v.period ?? 14, 'period', 'ATR period', remarks);
    level = { config: { atr, period }, label: `${atr} x ATR(${period})` };
  }
  return { ...asked, value: level };
}

/** Entry verbs of each side ("as long as", "short-term" and a plain "long period" are not entries). */
// "short it when…", "Short USDCHF whenever…", "long on a bullish engulfing": the side as a verb.
const SYMBOL_WORDS = SYMBOLS.map((s) => s.toLowerCase()).join('|');
const SYMBOL_NAMED = new RegExp(`\\b(${SYMBOL_WORDS})\\b`, 'g');
const PAIR_WORD = `(?:it|them|the (?:pair|market|cross)|(?:the )?${PAIR_SLANG_WORDS}|${SYMBOL_WORDS})`;
const LONG_ENTRY = new RegExp(
  `\\b(buy|buys|buying|go(?:es)? long|going long|enter long|long (?:entry|entries|trades?|positions?|setups?|when|whenever|if|once|on|after|above|below|under|over|at)|long ${PAIR_WORD}|longs)\\b|= ?long\\b`,
);
const SHORT_ENTRY = new RegExp(
  `\\b(sell|sells|selling|go(?:es)? short|going short|enter short|short (?:entry|entries|trades?|positions?|setups?|when|whenever|if|once|on|after|above|below|under|over|at)|short ${PAIR_WORD}|shorts|shorting)\\b|= ?short\\b`,
);

/** "a breakout of the 20 bar high": every entry condition read is of one side, though no side word says so. */
function oneSided(
  specs: readonly ConditionSpec[],
  fields: readonly { field: Source }[],
): { value: Direction; from: Source; phrase: string } | null {
  const entries = specs.filter((c) => c.role === 'entry');
  const sides = new Set(entries.map((c) => c.side ?? null));
  const [side] = sides;
  if (sides.size !== 1 || !side || !fields.length) return null;
  return { value: side, from: fields[0]!.field, phrase: entries[0]!.phrase ?? side };
}

/** The one side the text's entries are on, when it names entries of one side only. */
function impliedDirection(fields: readonly { field: Source; norm: string }[]): { value: Direction; from: Source; phrase: string } | null {
  let long: { field: Source; phrase: string } | null = null;
  let short: { field: Source; phrase: string } | null = null;
  for (const f of fields) {
    const l = LONG_ENTRY.exec(f.norm);
    const sh = SHORT_ENTRY.exec(f.norm);
    if (l) long ??= { field: f.field, phrase: l[0] };
    if (sh) short ??= { field: f.field, phrase: sh[0] };
  }
  if (long && !short) return { value: 'long', from: long.field, phrase: long.phrase };
  if (short && !long) return { value: 'short', from: short.field, phrase: short.phrase };
  return null;
}

/**
 * The role columns: filters gate entries (entry_filter), exits close their side (exit_long /
 * exit_short). An exit with no side of its own closes the side(s) the strategy trades.
 */
function roleColumns(
  conditions: readonly ConditionSpec[],
  direction: 'both' | 'long' | 'short',
  instances: StrategyIntent['instances'],
  remarks: string[],
  approximations: Approximation[],
): RoleColumns {
  const gate = conditions
    .filter((c) => c.role === 'filter')
    .map((c) => ({ name: nameOf(c.condition, instances), negate: c.negate === true }));
  const trades = (side: 'long' | 'short') => direction === 'both' || direction === side;
  const exits = (side: 'long' | 'short') => [
    ...new Set(
      conditions.filter((c) => c.role === 'exit' && (c.side ?? side) === side && trades(side)).map((c) => nameOf(c.condition, instances)),
    ),
  ];
  const dropped = conditions.filter(
    (c) => c.role === 'exit' && c.side !== null && !trades(c.side) && !approximations.some((a) => a.asked === c.phrase),
  );
  if (dropped.length)
    remarks.push(`exits of ${direction === 'long' ? 'shorts' : 'longs'} have nothing to close (${direction} only); kept as features`);
  for (const c of conditions) {
    if (c.role === 'filter')
      remarks.push(
        `filter "${c.phrase ?? c.from}": entries only where ${nameOf(c.condition, instances)} ${c.negate ? 'is 0' : 'holds'} (entry_filter ${GATE_COLUMN})`,
      );
  }
  const plain = conditions.filter((c) => c.role === 'exit' && !approximations.some((a) => a.asked === c.phrase));
  for (const phrase of new Set(plain.map((c) => c.phrase ?? c.from))) {
    approximations.push({
      asked: phrase,
      done: 'an exit rule: the position closes at the next open after the bar whose close meets it',
      why: "exits act at the next bar's open, like every signal of the engine",
    });
  }
  return { gate, exitLong: exits('long'), exitShort: exits('short') };
}

/** "not in the first hour after the open": the session starts that many hours later (London's open when none is named). */
function afterOpen(session: Picked<SessionValue>, fields: readonly FieldParse[], remarks: string[]): Picked<SessionValue> {
  for (const f of fields) {
    const m =
      /\b(?:not|no trades?|don'?t trade|avoid(?: trading)?|skip) (?:in |during |trading in )?the first (?:(\d+|an?) )?hours?(?: after| of)?(?: the)? ?(london|newyork|tokyo|asian)? open\b/.exec(
        f.norm,
      );
    if (!m) continue;
    const hours = /^\d+$/.test(m[1] ?? '') ? Number(m[1]) : 1;
    const [start, end] = session.value.hours ?? [m[2] === 'newyork' ? 12 : m[2] === 'tokyo' || m[2] === 'asian' ? 0 : 7, null];
    const from = (start + hours) % 24;
    const to = end ?? start;
    if (from === to) continue;
    remarks.push(`"${m[0]}": entries from ${from}:00 UTC${end === null ? `, the ${m[2] ?? 'London'} open being ${start}:00 UTC` : ''}`);
    return { value: { hours: [from, to], label: `${session.value.label} after its first ${hours} h` }, from: f.field, phrase: m[0] };
  }
  return session;
}

/** Markets the service has no bars for, named in the text: said, never silently replaced. */
const CURRENCY = '(eur|usd|gbp|jpy|chf|aud|nzd|cad|xau|xag)';
const PAIR_NAMED = new RegExp(
  `\\b${CURRENCY} ?[/-]? ?${CURRENCY}\\b|\\b(gold|silver|crude oil|oil|wti|brent|s&p ?500|spx ?500|spx|us ?500|usoil|uk ?oil|xti|xbr|nasdaq|nas ?100|us ?100|ndx|us ?30|dax|ger ?40|ftse|nikkei|ethereum|eth|solana|sol|xrp|ripple|litecoin|ltc|dogecoin|doge)(?:usdt?)?\\b`,
  'g',
);
const NUMBER = '(?:\\d+|two|three|four|six|eight|twelve|thirty|forty[ -]five)';
/** A chart period: "30 minute bars", "on the 4 hour", "daily chart", "h4" (not "20-day high" or "daily pivot"). */
const PERIOD = new RegExp(
  `\\b(?:(${NUMBER}[ -]?(?:m|mins?|minutes?|h|hrs?|hours?|d|days?))(?= (?:chart|bars?|candles?|timeframe|tf)\\b)|(?<=\\bon (?:the )?)(${NUMBER}[ -]?(?:m|mins?|minutes?|h|hrs?|hours?))\\b|(daily|weekly|monthly|4h|h4|d1|w1|m30|h2)\\b(?! (?:pivots?|high|low|open|close|range|average|vwap)\\b))`,
  'g',
);
/** A chart period written in one word ("4h", "4hr", "30min", "h4"), not a duration ("after 4h", "for 30min"). */
const PERIOD_WRITTEN =
  /(?<![\w.])(?<!\b(?:after|for|within|cooldown|hold|holding|wait|max|limit|every|than|of|last|past|up to|at most|least) )(\d{1,3}(?:m|mins?|h|hrs?|d)|[hmd]\d{1,3}|(?:two|three|four|six|eight|twelve|thirty|forty[ -]five) (?:hours?|hrs?|minutes?|mins?)(?= (?:chart|bars?|candles?|timeframe|tf)\b))(?!\w)/g;
const OFFERED_WRITTEN = /^(?:(?:1|5|15|60)(?:m|mins?)|1(?:h|hrs?)|m(?:1|5|15)|h1)$/;
const OFFERED_PERIOD = /^(?:1|one|5|five|15|fifteen|60)[ -]?(?:m|mins?|minutes?)$|^(?:1|one)[ -]?(?:h|hrs?|hours?)$/;
const OFFERED_NAMED =
  /\b(?:1|one|5|five|15|fifteen)[ -]?(?:m|mins?|minutes?)\b|\b(?:m1|m5|m15|h1|h(?:ou)?rly)\b|\b(?:1|one)[ -]?(?:h|hr|hour)\b/;

function notOffered(texts: readonly string[], symbol: string, timeframe: string, raw: readonly string[]): string[] {
  const out = new Set<string>();
  const noBars = (pair: string) =>
    `the text names ${pair}, which has no bars here (the seven majors and BTCUSD); the code is written for ${symbol}`;
  // Nicknames ("gopher", "chunnel") read on the raw words: spelling repair would turn some into others.
  for (const named of raw.flatMap((t) => pairSlang(t)))
    if (!(SYMBOLS as readonly string[]).includes(named.pair)) out.add(noBars(`${named.pair} ("${named.words}")`));
  for (const text of texts) {
    for (const m of text.matchAll(PAIR_NAMED)) {
      if (m[1] && m[1] === m[2]) continue;
      // An index as traders write it ("nas100"): the normalised text spaced its number from its name.
      const pair = m[3]?.replace(/^([a-z]+) (\d+)$/, '$1$2') ?? `${m[1]}${m[2]}`.toUpperCase();
      // Said as the trader wrote it too ("EURGBP (\"eur/gbp\")"), so they find their words.
      const written = m[0].toUpperCase() === pair.toUpperCase() ? pair : `${pair} ("${m[0]}")`;
      if (m[3] || !(SYMBOLS as readonly string[]).includes(pair)) out.add(noBars(written));
    }
    // A period with no bars here is worth a word only when the text names no period we have.
    if (OFFERED_NAMED.test(text)) continue;
    // Written as traders write a chart ("4hr cable", "30min"), said as written; else as the normalised text reads.
    const written = raw
      .flatMap((t) => [...t.toLowerCase().matchAll(PERIOD_WRITTEN)].map((m) => m[1]!))
      .filter((w) => !OFFERED_WRITTEN.test(w));
    for (const words of written)
      out.add(`the text names a ${words} timeframe, which has no bars here (1min, 5min, 15min, 1h); the code uses ${timeframe}`);
    if (written.length) continue;
    for (const m of text.matchAll(PERIOD)) {
      const words = (m[1] ?? m[2] ?? m[3])!;
      // Said as traders write it ("4h"): the normalised text spaced the number from its unit.
      if (!OFFERED_PERIOD.test(words))
        out.add(
          `the text names a ${words.replace(/^(\d+) ([a-z])$/, '$1$2')} timeframe, which has no bars here (1min, 5min, 15min, 1h); the code uses ${timeframe}`,
        );
    }
  }
  return [...out];
}
