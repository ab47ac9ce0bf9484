/** The intent as the API answers it (`understood`): each setting, where it came from, in words. */
import type { GenerateRequest, Understood } from '../../../schemas/generation.ts';
import { buildIntent } from './build-intent.ts';
import { describeCondition, instanceLabel } from './features.ts';
import type { Approximation, ConditionSpec, RiskLevel, Setting, StrategyIntent, TrailLevel } from './intent.ts';

const said = <T, U>(s: Setting<T>, value: U) => ({ value, from: s.from, ...(s.phrase ? { phrase: s.phrase } : {}) });
const trailing = (t: TrailLevel): string => `${t.label} behind the best price since entry (strategy_config trailing_stop; never loosens)`;
const level = (r: RiskLevel | null): string | null =>
  r === null ? null : r.unit === 'ratio' ? `${r.ratio} of the entry price` : `${r.amount} ${r.unit}`;

/**
 * The defaults the code adds that the words did not ask for, each with its value. A default the
 * words rule out (a fixed take under a trailing stop, a stop where the opposite signal is the only
 * exit) is not added; the remarks say which and why.
 */
function defaultsAdded(intent: StrategyIntent): string[] {
  const out: string[] = [];
  const isDefault = (s: Setting<unknown>) => s.from === 'default';
  if (intent.conditions.some((c) => c.from === 'default'))
    out.push('entries: the EMA 12/26 crossover with RSI(14) below 30 / above 70 (no indicator was recognised)');
  if (isDefault(intent.direction)) out.push(`direction: ${intent.direction.value} (nothing names a side)`);
  const stop = intent.stopLoss.value;
  if (isDefault(intent.stopLoss) && stop)
    out.push(
      `stop_loss: ${level(stop)} (~${stop.pips} pips, scaled to the pair’s typical move over the ${intent.targetHorizon.value}-bar horizon)`,
    );
  const take = intent.takeProfit.value;
  if (isDefault(intent.takeProfit) && take)
    out.push(`take_profit: ${take.unit === 'rr' ? `${take.amount} x the stop` : level(take)} (~${take.pips} pips)`);
  if (isDefault(intent.model)) out.push(`model: ${intent.model.value.type}`);
  if (isDefault(intent.targetHorizon)) out.push(`target_horizon: ${intent.targetHorizon.value} bars of ${intent.timeframe}`);
  if (isDefault(intent.threshold))
    out.push(
      `signal_threshold: ${intent.threshold.value}${intent.entryLong || intent.entryShort ? ` (the rule's trade is taken unless the model finds it likelier to lose than win: P(win) < ${intent.threshold.value})` : ''}`,
    );
  return out;
}

/** How the offline generator reads the request (the one reading every entry point makes). */
export const understand = (request: GenerateRequest): Understood => understoodFrom(buildIntent(request));

/** An intent already built (the offline generator's own) in the answer's words. */
export function understoodFrom(intent: StrategyIntent): Understood {
  const rule = (c: ConditionSpec) => ({ condition: describeCondition(c.condition, intent.instances), side: c.side, from: c.from });
  const of = (role: ConditionSpec['role']) => intent.conditions.filter((c) => c.role === role);
  const exitNotes = intent.approximations;
  const isStop = (a: Approximation) => /\b(?:stop|sl|trail)/.test(a.asked);
  const isTarget = (a: Approximation) => /\b(?:target|take|tp|profit)/.test(a.asked) && !isStop(a);
  const filters = [
    ...of('filter').map((c) => ({ filter: `${c.negate ? 'not: ' : ''}${describeCondition(c.condition, intent.instances)}`, from: c.from })),
    ...(intent.session.value.hours
      ? [{ filter: `session ${intent.session.value.label} [${intent.session.value.hours.join(', ')}) UTC`, from: intent.session.from }]
      : []),
    ...(intent.skipDays.value.length
      ? [{ filter: `no entries on ${intent.skipDays.value.join(', ')} (UTC)`, from: intent.skipDays.from }]
      : []),
    ...(intent.trendFilter.value
      ? [{ filter: `longs above ${intent.trendFilter.value}, shorts below`, from: intent.trendFilter.from }]
      : []),
    ...(intent.minAtr.value !== null ? [{ filter: `NATR(14) >= ${intent.minAtr.value}%`, from: intent.minAtr.from }] : []),
  ];
  return {
    direction: said(intent.direction, intent.direction.value),
    indicators: intent.instances.map(instanceLabel),
    conditions: intent.conditions.map(rule),
    entries: of('entry').map(rule),
    entry_rules: {
      long: intent.entryRuleWords.long,
      short: intent.entryRuleWords.short,
      ...(intent.entryLong || intent.entryShort ? { columns: { entry_long: intent.entryLong, entry_short: intent.entryShort } } : {}),
    },
    exits: of('exit').map(rule),
    filters,
    stops: [
      ...(intent.stopLoss.value ? [`fixed: ${level(intent.stopLoss.value)}`] : []),
      ...(intent.trailingStop.value ? [`trailing: ${trailing(intent.trailingStop.value)}`] : []),
      ...exitNotes.filter(isStop).map((a) => `${a.asked}: ${a.done}`),
    ],
    targets: [
      ...(intent.takeProfit.value ? [`fixed: ${level(intent.takeProfit.value)}`] : []),
      ...exitNotes.filter(isTarget).map((a) => `${a.asked}: ${a.done}`),
    ],
    approximations: intent.approximations,
    session: said(intent.session, intent.session.value.label),
    skip_days: said(intent.skipDays, intent.skipDays.value),
    trend_filter: said(intent.trendFilter, intent.trendFilter.value),
    min_atr: said(intent.minAtr, intent.minAtr.value),
    stop_loss: said(intent.stopLoss, level(intent.stopLoss.value)),
    take_profit: said(intent.takeProfit, level(intent.takeProfit.value)),
    trailing_stop: said(intent.trailingStop, intent.trailingStop.value ? trailing(intent.trailingStop.value) : null),
    model: said(intent.model, intent.model.value.type),
    defaults: defaultsAdded(intent),
    remarks: intent.remarks,
  };
}
