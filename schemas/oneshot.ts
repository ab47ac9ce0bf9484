import { z } from 'zod';
import { Plan } from './accounts.ts';
import { TradeStats } from './backtest.ts';
import { Symbol, Timeframe } from './common.ts';
import { Channel } from './live.ts';
import { AiModel, MAX_CODE_CHARS } from './training.ts';
import { strictObject } from './strict.ts';

/** POST /one_shot: an idea in plain language (or your own code) → generated, trained, deployed. */
export const OneShotRequest = strictObject({
  prompt: z.string().min(1).max(4000).describe('The strategy idea in plain language'),
  deliver_to: strictObject({
    webhook: z
      .union([z.boolean(), z.url({ protocol: /^https?$/ }).max(2000)])
      .optional()
      .describe('A URL: signals are POSTed there. true: reuse the webhook_url of your most recent deployment that had one (400 when none)'),
    messenger: z.string().min(1).max(64).optional().describe('Telegram chat id to send signals to'),
  })
    .optional()
    .describe('Channels wired at deploy; the sse channel is always on'),
  code: z
    .string()
    .min(1)
    .max(MAX_CODE_CHARS)
    .optional()
    .describe('Your own strategy code: generation is skipped and no credits are charged, only the training-compute cap'),
  symbol: Symbol.optional().describe('Default: the symbol the prompt names, else EURUSD'),
  timeframe: Timeframe.optional().describe('Default: the timeframe the prompt names, else 15min'),
  ai_model: AiModel.optional(),
}).meta({ id: 'OneShotRequest' });
export type OneShotRequest = z.infer<typeof OneShotRequest>;

export const OneShotStage = z.enum(['generate', 'train', 'deploy']);

export const OneShotStep = z
  .object({
    stage: OneShotStage,
    pct: z.number().int().min(0).max(100).describe('Progress of the whole pipeline'),
    msg: z.string(),
  })
  .meta({ id: 'OneShotStep' });
export type OneShotStep = z.infer<typeof OneShotStep>;

export const OneShotDone = z
  .object({
    live_url: z.string().describe('The model’s live signal stream (GET, SSE, with your X-API-Key)'),
    model: z.string().describe('Display name'),
    stem: z.string(),
    channels: z.array(Channel),
    metrics: TradeStats.describe('Out-of-sample (test span) stats'),
    train_metrics: TradeStats.describe('In-sample (train span) stats'),
    job_id: z.number().int(),
    deployment_id: z.string(),
    webhook_secret: z.string().optional().describe('Signing secret of the webhook channel, shown once'),
    credits_remaining: z.number().int(),
  })
  .meta({ id: 'OneShotDone' });
export type OneShotDone = z.infer<typeof OneShotDone>;

export type OneShotEvent =
  | { event: 'token'; data: { text: string } }
  | { event: 'step'; data: OneShotStep }
  | { event: 'done'; data: OneShotDone }
  | { event: 'error'; data: { error: string } };

/** The data of any one_shot frame (token, step, done, error), for the API description. */
export const OneShotFrame = z.union([z.object({ text: z.string() }), OneShotStep, OneShotDone, z.object({ error: z.string() })]);

// ---- the durable pipeline (KV `sf_one_shots`) ------------------------------------------------

/** Where a one_shot run stands: generating → training → deploying → deployed, or refunded. */
export const OneShotRunStatus = z.enum(['generating', 'training', 'deploying', 'deployed', 'refunded']);
export type OneShotRunStatus = z.infer<typeof OneShotRunStatus>;

/**
 * A one_shot run as it progresses, so a run whose process died is picked up by another (or the
 * restarted) process: it completes the deploy, or refunds the fee and says why.
 */
export const OneShotRun = z.object({
  run_id: z.string(),
  user_id: z.number().int(),
  username: z.string(),
  plan: Plan,
  status: OneShotRunStatus,
  /** Credits charged for the pipeline (refunded when it does not reach the deploy). */
  fee: z.number().int().min(0),
  channels: z.array(Channel),
  webhook_url: z.string().nullable(),
  messenger_chat_id: z.string().nullable(),
  job_id: z.number().int().nullable(),
  model_stem: z.string().nullable(),
  deployment_id: z.string().nullable(),
  reason: z.string().nullable().describe('Why the run was refunded'),
  /** The process running it, and when that process last said it still does. */
  owner: z.string(),
  alive_at: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type OneShotRun = z.infer<typeof OneShotRun>;
