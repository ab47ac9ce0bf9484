/**
 * How an activity event reads on /pulse, shared by the server-rendered list and the live script
 * so an event looks the same whichever drew it.
 */
import type { ActivityEvent } from '../../schemas/activity.ts';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** "12 trades · win 50.0% · return 1.2% · PF 1.50": the headline metrics the event carries. */
export function activityMetricsText(metrics: ActivityEvent['metrics']): string {
  if (!metrics) return '';
  const { n, wr, ret, pf } = metrics;
  return [
    n !== undefined && `${n} trades`,
    wr !== undefined && `win ${pct(wr)}`,
    ret !== undefined && `return ${pct(ret)}`,
    pf !== undefined && `PF ${pf.toFixed(2)}`,
  ]
    .filter(Boolean)
    .join(' · ');
}

/** "Momentum", or "Momentum +36 more" when a SIGNAL_FIRED names several models of the bot. */
export function activityModelText(event: Pick<ActivityEvent, 'model' | 'models'>): string {
  const name = event.model?.name ?? '';
  const others = (event.models?.length ?? 0) - 1;
  return others > 0 ? `${name} +${others} more` : name;
}

/** "EURUSD 15min", or what of it the event names. */
export const activityMarketText = (model: ActivityEvent['model']): string =>
  model ? [model.symbol, model.timeframe].filter(Boolean).join(' ') : '';

/** "2026-01-05 12:00:00": the event time to the second, UTC. */
export const activityTimeText = (ts: string): string => ts.slice(0, 19).replace('T', ' ');
