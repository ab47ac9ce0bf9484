import { z } from 'zod';
import { IsoDateTime, Symbol, Timeframe } from './common.ts';

export const ACTIVITY_KINDS = ['TRAINED', 'BACKTEST_DONE', 'DEPLOYED', 'SIGNAL_FIRED', 'SHARED', 'FORKED'] as const;
export const ActivityKind = z.enum(ACTIVITY_KINDS);
export type ActivityKind = z.infer<typeof ActivityKind>;

/** Model metadata an event may carry. Strict: nothing else (no code, no prompt) can ride along. */
export const ActivityModel = z.strictObject({
  name: z.string().max(120).describe('Display name of the model'),
  stem: z.string().max(200).optional(),
  symbol: Symbol.optional(),
  timeframe: Timeframe.optional(),
  model_type: z.string().max(60).optional(),
});

/** Headline metrics only: what any public event may carry. */
export const PublicActivityMetrics = z.strictObject({
  n: z.number().int().optional(),
  wr: z.number().optional(),
  ret: z.number().optional(),
  pf: z.number().optional(),
  mdd: z.number().optional(),
});
export type PublicActivityMetrics = z.infer<typeof PublicActivityMetrics>;

/**
 * What a capability may hand to `emit`: the headline metrics, and for SIGNAL_FIRED the signal's
 * side and price. Those two never reach a public surface for a private model (every model, today):
 * src/community/activity-privacy.ts removes them before the event is stored or served.
 */
export const ActivityMetrics = PublicActivityMetrics.extend({
  side: z.enum(['long', 'short', 'flat']).optional().describe('SIGNAL_FIRED: the signal direction (not published for a private model)'),
  price: z.number().optional().describe('SIGNAL_FIRED: the price the signal refers to (never published)'),
});

/** The most models one SIGNAL_FIRED event names; more of one bot on one bar go in further events. */
export const FIRED_MODELS_MAX = 50;

/** What a capability hands to `emit`. The bus adds id and ts. */
export const ActivityInput = z.strictObject({
  kind: ActivityKind,
  bot: z.string().max(40).describe('Public handle of the bot owner (the username)'),
  model: ActivityModel.optional().describe('The model (SIGNAL_FIRED: the first of `models`)'),
  models: z
    .array(ActivityModel)
    .max(FIRED_MODELS_MAX)
    .optional()
    .describe(
      `SIGNAL_FIRED: every deployed model of the bot that entered a position on the bar, once each. One event per bot and bar, not one per model (a bot with many models fires them on the same bar close); beyond ${FIRED_MODELS_MAX} models, further events`,
    ),
  bar_time: IsoDateTime.optional().describe('SIGNAL_FIRED: open time of the bar whose close fired the entries'),
  metrics: ActivityMetrics.optional(),
  community_id: z.number().int().optional(),
  parent_id: z.number().int().optional().describe('Fork parent (community id)'),
});
export type ActivityInput = z.infer<typeof ActivityInput>;

/** An event as every public surface shows it (activity JSON and SSE). */
export const ActivityEvent = ActivityInput.extend({
  metrics: PublicActivityMetrics.optional().describe(
    'Headline metrics of the model (TRAINED, BACKTEST_DONE, DEPLOYED); none on SIGNAL_FIRED',
  ),
  id: z.number().int().describe('Monotonic event id; use as the `since` cursor'),
  ts: IsoDateTime.describe('When the bus stored the event, UTC, to the microsecond'),
}).meta({ id: 'ActivityEvent' });
export type ActivityEvent = z.infer<typeof ActivityEvent>;

export const ActivityQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: IsoDateTime.optional().describe('Only events strictly older than this timestamp (use next_before)'),
  since: z.coerce.number().int().min(0).optional().describe('Only events whose id is greater than this'),
  kind: ActivityKind.optional(),
});
export type ActivityQuery = z.infer<typeof ActivityQuery>;

export const ActivityList = z
  .object({
    count: z.number().int(),
    events: z.array(ActivityEvent).describe('Newest first'),
    next_before: IsoDateTime.nullable().describe('Pass as `before` for the next (older) page; null when none'),
  })
  .meta({ id: 'ActivityList' });
export type ActivityList = z.infer<typeof ActivityList>;
