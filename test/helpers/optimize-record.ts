/** An optimisation job record as POST /optimize writes it, for tests of the store and the jobs. */
import { OptimizeRecord, OptimizeRequest } from '../../schemas/optimize.ts';
import { strategyCode } from './strategies.ts';

export function optimizeRecord(over: Partial<OptimizeRecord> = {}): OptimizeRecord {
  const now = Date.now();
  return OptimizeRecord.parse({
    optimize_id: 1,
    user_id: 1,
    username: 'tester',
    plan: 'free',
    status: 'queued',
    request: OptimizeRequest.parse({ code: strategyCode(), parameters: { cooldown: { type: 'int', low: 0, high: 10 } } }),
    objective: { metric: 'sharpe', direction: 'maximize', constraints: [], echo: 'Maximise the Sharpe ratio (sharpe).' },
    trials_planned: 20,
    credits_per_trial: 1,
    credits_charged: 20,
    credits_refunded: 0,
    created_at: now,
    started_at: null,
    finished_at: null,
    heartbeat_at: now,
    attempts: 0,
    stage: null,
    cancel_requested: false,
    folds: [],
    trials_run: 0,
    trials_failed: 0,
    best_value: null,
    chosen_trial: null,
    walk_forward: null,
    pbo: null,
    degradation: null,
    robustness: null,
    saved: null,
    ...over,
  });
}
