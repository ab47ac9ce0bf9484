/** The intent as the API answers it (`understood`): each setting, where it came from, in words. */
import type { GenerateRequest, Understood } from '../../../schemas/generation.ts';
import { buildIntent } from './build-intent.ts';
import { describeCondition, instanceLabel } from './features.ts';
import type { RiskLevel, Setting, StrategyIntent } from './intent.ts';

const said = <T, U>(s: Setting<T>, value: U) => ({ value, from: s.from, ...(s.phrase ? { phrase: s.phrase } : {}) });
const level = (r: RiskLevel | null): string | null => (r === null ? null : r.unit === 'ratio' ? `${r.ratio} of the entry price` : `${r.amount} ${r.unit}`);

/** How the offline generator reads the request (the one reading every entry point makes). */
export const understand = (request: GenerateRequest): Understood => understoodFrom(buildIntent(request));

/** An intent already built (the offline generator's own) in the answer's words. */
export function understoodFrom(intent: StrategyIntent): Understood {
  return {
    direction: said(intent.direction, intent.direction.value),
    indicators: intent.instances.map(instanceLabel),
    conditions: intent.conditions.map((c) => ({ condition: describeCondition(c.condition, intent.instances), side: c.side, from: c.from })),
    session: said(intent.session, intent.session.value.label),
    trend_filter: said(intent.trendFilter, intent.trendFilter.value),
    min_atr: said(intent.minAtr, intent.minAtr.value),
    stop_loss: said(intent.stopLoss, level(intent.stopLoss.value)),
    take_profit: said(intent.takeProfit, level(intent.takeProfit.value)),
    model: said(intent.model, intent.model.value.type),
    remarks: intent.remarks,
  };
}
