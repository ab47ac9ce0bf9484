import { z } from 'zod';
import { TradeStats } from './backtest.ts';
import { ModelRecord } from './training.ts';

/**
 * The community's stored shapes, shared by share/fork/leaderboard (src/community), the payout
 * sweep and the live tracker (actors/tracker). Public response shapes are built from these in
 * the community routes; the frozen code never appears in any of them.
 */

/**
 * A shared model, frozen at publication (KV `sf_community`, key = community_id): what forks copy
 * and the leaderboard ranks. The author retraining or deleting the model changes nothing here;
 * the code and the ONNX file are frozen too (object store `sf_community`: `<community_id>/strategy.py`,
 * `<community_id>/model.onnx`).
 */
export const CommunityEntryRecord = z.object({
  community_id: z.number().int().positive(),
  user_id: z.number().int().describe('The author'),
  author: z.string().describe('The author handle (username)'),
  title: z.string(),
  description: z.string(),
  parent_id: z.number().int().positive().nullable().describe('The entry this was forked from'),
  created_at: z.number().int().describe('epoch ms of publication'),
  /** The model as it was when shared (its stats, config, settings, features, artifact id). */
  model: ModelRecord,
  post_cutoff_stats: TradeStats.nullable().describe('The recorded post-cutoff span, when the model had one'),
});
export type CommunityEntryRecord = z.infer<typeof CommunityEntryRecord>;

/**
 * The verified live track record of an entry (KV `sf_track_records`, key = community_id): the
 * trades the same position engine made on live bars since publication. Written by the tracker
 * after each bar; read by the leaderboard and the catalogue.
 */
export const LiveRecord = z.object({
  since: z.number().int().describe('epoch ms: close of the first bar tracked (the last bar closed at publication)'),
  last_bar_ts: z.number().int().describe('epoch ms: open time of the last bar tracked'),
  bars: z.number().int().min(0).describe('Bars scored since publication'),
  stats: TradeStats.describe('TradeStats of the trades closed since publication'),
});
export type LiveRecord = z.infer<typeof LiveRecord>;
