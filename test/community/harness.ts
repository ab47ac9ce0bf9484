/** Share and fork on a real nats-server with the real model store: trained models crafted in it. */
import { openBucket } from '../../src/bus/index.ts';
import { CommunityIndex, CommunityStore, Fork, Share, type Forker } from '../../src/community/index.ts';
import { ModelStore } from '../../src/training/index.ts';
import type { ActivityInput } from '../../schemas/activity.ts';
import { Buckets } from '../../schemas/messages.ts';
import type { ModelRecord, Results } from '../../schemas/training.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';
import { CAPITAL, modelRecord, statsOf } from './fixtures.ts';
import { clockAt } from '../../src/lib/clock.ts';

export interface Harness {
  nats: TestNats;
  models: ModelStore;
  store: CommunityStore;
  index: CommunityIndex;
  share: Share;
  fork: Fork;
  /** Every event share and fork announced, in order. */
  events: ActivityInput[];
  close(): Promise<void>;
}

/** A caller on an established free account (claimed long ago): their forks count. */
export const caller = (userId: number, account: Partial<Forker> = {}): Forker => ({
  user_id: userId,
  username: `user${userId}`,
  plan: 'free',
  is_trial: false,
  created_at: 0,
  ...account,
});

export async function startHarness(name: string, now = () => 1_800_000_000_000): Promise<Harness> {
  const nats = await startNats(name);
  const models = await ModelStore.open(nats.bus, await openBucket(nats.bus, Buckets.models), await openBucket(nats.bus, Buckets.signals));
  const store = await CommunityStore.open(nats.bus);
  const index = new CommunityIndex();
  const following = await store.follow(index);
  const events: ActivityInput[] = [];
  const activity = { emit: async (e: ActivityInput) => void events.push(e) };
  return {
    nats,
    models,
    store,
    index,
    events,
    share: new Share({ store, index, models, activity, log, clock: clockAt(now) }),
    fork: new Fork({ store, index, activity, log, clock: clockAt(now) }),
    async close() {
      following.stop();
      await nats.close();
    },
  };
}

const trade = (pnl: number, period: 'train' | 'test', i: number) => ({
  side: 'long' as const,
  entry_time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000).toISOString(),
  exit_time: new Date(Date.UTC(2024, 0, 1) + i * 3_600_000 + 1_800_000).toISOString(),
  entry_price: 1.1,
  exit_price: 1.1 + pnl / 100_000,
  lots: 1,
  units: 100_000,
  exit_reason: 'TP' as const,
  pips: pnl / 10,
  gross_pnl: pnl,
  commission: 0,
  swap: 0,
  pnl,
  bars_held: 2,
  margin: null,
  period,
});

export interface TrainedModel {
  user: number;
  name: string;
  /** Per-trade returns (pnl / capital) of the test span; the train span gets 0.01 each. */
  test: number[];
  artifact?: string;
  trainedAt?: number;
  post?: number[] | null;
  code?: string;
  /** Fields of the stored record to set otherwise (e.g. a record written before a field existed). */
  record?: Partial<ModelRecord>;
}

/** Saves a "trained" model with these test trades through the real model store. */
export async function saveModel(h: Harness, m: TrainedModel): Promise<ModelRecord> {
  const record = modelRecord({
    user_id: m.user,
    model_name: m.name,
    test_stats: statsOf(m.test),
    train_stats: statsOf([0.01, 0.01]),
    artifact: m.artifact ?? 'j1',
    trained_at: m.trainedAt ?? 1_700_000_000_000,
    ...m.record,
  });
  const results = {
    trade_log: [trade(100, 'train', 0), trade(100, 'train', 1), ...m.test.map((r, i) => trade(r * CAPITAL, 'test', i + 10))],
    spans: {
      train: { from: '2024-01-01T00:00:00.000Z', to: '2024-01-21T00:00:00.000Z', bars: 480 },
      test: { from: '2024-01-22T00:00:00.000Z', to: '2024-02-01T12:00:00.000Z', bars: 252 },
      post_cutoff: null,
    },
    settings: record.settings,
    pred_stats: m.post ? statsOf(m.post) : null,
    pred_signals: [],
  } as unknown as Results;
  const code = m.code ?? `# model ${m.name} of user ${m.user}\ndef feature_engineering(df, close, open_, high, low):\n    return df\n`;
  await h.models.save(record, { onnx: new Uint8Array([1, 2, 3, m.user]), code, results });
  return record;
}
