import { z } from 'zod';
import { ClosedTrade } from './backtest.ts';
import { DivergenceRecord } from './community.ts';

/**
 * The live tracker's own data (actors/tracker): where it stands per community entry, and the
 * trades it stores. The public record it publishes is `LiveRecord` (schemas/community.ts).
 */

/** The tracker's resume point for one entry (KV `sf_tracker_state`, key = community_id), saved after every bar. */
export const TrackerState = z.object({
  since: z.number().int().nullable().describe('epoch ms: close of the first bar tracked; null until one is'),
  last_bar_ts: z.number().describe('Open time of the last bar tracked, epoch ms (−1 before the first)'),
  bars: z.number().int().min(0).describe('Bars tracked'),
  trades: z.number().int().min(0).describe('Trades stored so far: the next trade is number `trades` (0-based)'),
  engine: z.unknown().describe('PositionEngine snapshot after the last bar'),
  // Optional: states saved before the divergence check start with none.
  check: z
    .object({
      checks: z.number().int().min(0).describe('Checks run'),
      recent: z
        .array(z.object({ from: z.number().int().describe('epoch ms: open of the check’s first bar'), divergent: z.boolean() }))
        .describe('The last checks that compared something (DIVERGENCE_WINDOW_CHECKS at most), oldest first'),
      agreeing: z.number().int().min(0).describe('Agreeing checks in a row (of those that compared something)'),
      flag: DivergenceRecord.nullable(),
    })
    .optional()
    .describe('The divergence check of live trades against the backtest path (actors/tracker/divergence.ts)'),
});
export type TrackerState = z.infer<typeof TrackerState>;

/**
 * One live trade of a tracked entry (ClickHouse `community_live_trades`): the engine's closed
 * trade, numbered from 0 in exit order. (community_id, seq) is its key, so a bar replayed after a
 * crash stores the same rows again, not more.
 */
export const LiveTrade = ClosedTrade.extend({
  community_id: z.number().int().positive(),
  seq: z.number().int().min(0).describe('0-based number of the trade since publication, in exit order'),
});
export type LiveTrade = z.infer<typeof LiveTrade>;
