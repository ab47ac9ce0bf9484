/** An optimisation job record as POST /optimize writes it (claimed just now), for tests of the store and the jobs. */
import { OptimizeJobRequest, OptimizeRecord } from '../../schemas/optimize.ts';
import { queuedRecord } from '../../src/optimize/index.ts';
import { strategyCode } from './strategies.ts';

export function optimizeRecord(over: Partial<OptimizeRecord> = {}): OptimizeRecord {
  const now = Date.now();
  const queued = queuedRecord(
    {
      optimize_id: 1,
      user_id: 1,
      username: 'tester',
      plan: 'free',
      request: OptimizeJobRequest.parse({ code: strategyCode(), parameters: { cooldown: { type: 'int', low: 0, high: 10 } } }),
      objective: { metric: 'sharpe', direction: 'maximize', constraints: [], echo: 'Maximise the Sharpe ratio (sharpe).' },
      trials_planned: 20,
      credits_per_trial: 1,
      credits_charged: 20,
    },
    now,
  );
  return OptimizeRecord.parse({ ...queued, heartbeat_at: now, ...over });
}
