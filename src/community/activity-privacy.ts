import type { ActivityInput, PublicActivityMetrics } from '../../schemas/activity.ts';

/** An event with nothing a private model's owner has not chosen to share. */
export type PublicActivity = Omit<ActivityInput, 'metrics'> & { metrics?: PublicActivityMetrics };

/**
 * The one rule for every public surface (the activity JSON, its SSE stream, and whatever shows
 * the feed later): a private model's live signals are announced, never revealed. A public
 * SIGNAL_FIRED carries the bot handle and the model metadata (name, symbol, timeframe, type) —
 * no side, no price, no stop or take levels, no probability or P&L. Signals are decided only at a
 * bar's close, so the event's time says which bar and nothing finer.
 *
 * Sharing a model publishes a frozen copy as a community entry (metrics and the verified live
 * record, never signals); the author's deployments of it stay private under this rule.
 */
export function toPublic(event: ActivityInput): PublicActivity {
  if (!event.metrics) return event as PublicActivity;
  const { side: _side, price: _price, ...headline } = event.metrics;
  const { metrics: _metrics, ...rest } = event;
  return Object.keys(headline).length > 0 ? { ...rest, metrics: headline } : rest;
}
