import type { ActivityInput } from '../../schemas/activity.ts';
import type { ModelRecord } from '../../schemas/training.ts';

/** What SHARED and FORKED say of an entry's model: its metadata and headline test metrics, never code. */
export function announcedModel(m: ModelRecord): Pick<ActivityInput, 'model' | 'metrics'> {
  const t = m.test_stats;
  return {
    model: { name: m.model_name, stem: m.stem, symbol: m.symbol, timeframe: m.timeframe, model_type: m.model_type },
    metrics: { n: t.n, wr: t.wr, ret: t.ret, pf: t.pf, mdd: t.mdd },
  };
}
