/**
 * Community entries written straight into `sf_community`, as POST /share will write them: the
 * payout sweep reads only who published what, when, and its parent, so the model is a fixed one.
 */
import { CommunityEntryRecord } from '../../schemas/community.ts';
import type { TradeStats } from '../../schemas/backtest.ts';
import { strategyConfig } from './strategy-config.ts';

const STATS: TradeStats = {
  n: 12,
  wins: 7,
  losses: 5,
  wr: 7 / 12,
  ret: 0.04,
  pf: 1.6,
  rr: 1.1,
  expect: 33,
  mdd: -0.02,
  np: 400,
  avg: 0.003,
  best: 0.01,
  worst: -0.006,
};

export interface EntryFields {
  community_id: number;
  user_id: number;
  author: string;
  parent_id: number | null;
  created_at: number;
}

export function communityEntry(f: EntryFields): CommunityEntryRecord {
  return CommunityEntryRecord.parse({
    ...f,
    title: `entry ${f.community_id}`,
    description: 'a shared strategy',
    model: {
      user_id: f.user_id,
      username: f.author,
      model_name: `m${f.community_id}`,
      stem: `${f.user_id}_EURUSD_1h_m${f.community_id}`,
      symbol: 'EURUSD',
      timeframe: '1h',
      model_type: 'LogisticRegression',
      title: `entry ${f.community_id}`,
      trained_at: f.created_at - 60_000,
      job_id: f.community_id,
      source: 'synthetic',
      features: ['rsi_14'],
      warmup: 14,
      config: strategyConfig('LogisticRegression', { C: 1, max_iter: 100 }, `entry ${f.community_id}`),
      settings: { confidence_threshold: 0.55, train_split: 0.7 },
      train_stats: STATS,
      test_stats: STATS,
      long_stats: STATS,
      short_stats: STATS,
      trained_span: { from: f.created_at - 86_400_000 * 300, to: f.created_at - 86_400_000 },
      artifact: 'a1',
    },
    post_cutoff_stats: null,
  });
}
