import type { DeploymentRecord, SignalEvent } from '../../../schemas/live.ts';

/** A deployment's `open` signal of a 15-minute EURUSD bar (its `n`th of the bar), as the delivery benches send. */
export function benchSignal(
  d: Pick<DeploymentRecord, 'deployment_id' | 'stem' | 'model_name'>,
  bar: number,
  { n = 0, side = 'long', createdAt = bar + 15 * 60_000 }: { n?: number; side?: 'long' | 'short'; createdAt?: number } = {},
): SignalEvent {
  return {
    id: `sig_${d.deployment_id}_${bar}_${n}`,
    deployment_id: d.deployment_id,
    model: d.stem,
    model_name: d.model_name,
    symbol: 'EURUSD',
    timeframe: '15min',
    action: 'open',
    side,
    price: 1.0432,
    stop_loss: 1.0412,
    take_profit: 1.0472,
    reason: 'signal',
    p_up: 0.64,
    pnl: null,
    bar_time: new Date(bar).toISOString(),
    created_at: new Date(createdAt).toISOString(),
  };
}
