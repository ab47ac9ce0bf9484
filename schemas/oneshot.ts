import { z } from 'zod';
import { Plan } from './accounts.ts';
import { TradeStats } from './backtest.ts';
import { Symbol, Timeframe } from './common.ts';
import { Channel } from './live.ts';
import { WebhookTemplate } from './bridge-template.ts';
import { NextBarFields } from './next-bar.ts';
import { RobustnessSummary } from './robustness-summary.ts';
import { AiModel, MAX_CODE_CHARS } from './training.ts';
import { strictObject } from './strict.ts';

/**
 * When one_shot deploys the model it trained, by the robustness verdict of its out-of-sample
 * record. The fee decision: a model kept off live by this guard is treated like a pipeline that
 * stopped before the deploy — the pipeline fee is refunded, generation's price is not (the code
 * was written and is kept with the model), and the training-compute run counts.
 */
export const DeployIf = z
  .enum(['always', 'not_overfit', 'robust'])
  .describe(
    'When to deploy the trained model, by its robustness verdict (GET /api/v1/results/{model} → robustness). ' +
      '`always` (the default, as the contract has it): whatever the verdict. `not_overfit`: unless the verdict is `overfit`. ' +
      '`robust`: only when the verdict is `robust`. A model without a verdict counts as falling short of both. When the ' +
      'verdict falls short, the model is kept (it is in GET /api/v1/models; deploy it yourself with POST /api/v1/deploy, ' +
      'free) but not deployed, the pipeline fee is refunded (what generation cost is not: the code was written), and ' +
      '`done` says so: `deployed` false, `not_deployed_reason`, `deployment_id` and `live_url` null.',
  );
export type DeployIf = z.infer<typeof DeployIf>;

/** POST /one_shot: an idea in plain language (or your own code) → generated, trained, deployed. */
export const OneShotRequest = strictObject({
  prompt: z.string().min(1).max(4000).describe('The strategy idea in plain language'),
  deliver_to: strictObject({
    webhook: z
      .union([z.boolean(), z.url({ protocol: /^https?$/ }).max(2000)])
      .optional()
      .describe('A URL: signals are POSTed there. true: reuse the webhook_url of your most recent deployment that had one (400 when none)'),
    messenger: z.string().min(1).max(64).optional().describe('Telegram chat id to send signals to'),
    webhook_template: WebhookTemplate.optional().describe(`With webhook: ${WebhookTemplate.description}`),
    discord: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .optional()
      .describe('A Discord webhook URL (https://discord.com/api/webhooks/<id>/<token>): each signal arrives as an embed'),
    slack: z
      .url({ protocol: /^https$/ })
      .max(2000)
      .optional()
      .describe('A Slack incoming-webhook URL (https://hooks.slack.com/services/…): each signal arrives as a Block Kit message'),
    email: z
      .literal(true)
      .optional()
      .describe(
        'true: each signal is mailed to the address your account confirmed (POST /api/v1/email, then its link); 422 before anything is charged when none is confirmed, or when the server has no SMTP_URL',
      ),
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
  deploy_if: DeployIf.optional(),
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
    live_url: z
      .string()
      .nullable()
      .describe(
        'The model’s live signal stream (GET, SSE, with your X-API-Key); null only when deploy_if kept the model off live (never with the default `always`)',
      ),
    model: z.string().describe('Display name'),
    stem: z.string(),
    channels: z.array(Channel).describe('Channels the deployment delivers to; empty when deploy_if kept the model off live'),
    metrics: TradeStats.describe('Out-of-sample (test span) stats'),
    train_metrics: TradeStats.describe('In-sample (train span) stats'),
    job_id: z.number().int(),
    deployed: z
      .boolean()
      .describe('false when deploy_if kept the model off live (see not_deployed_reason); always true with the default `always`'),
    not_deployed_reason: z
      .string()
      .nullable()
      .describe('Why the model was not deployed, in plain words with the verdict’s reasons; null when it was'),
    deployment_id: z.string().nullable().describe('null only when deploy_if kept the model off live (never with the default `always`)'),
    robustness: RobustnessSummary.nullable().describe(
      'Is the edge real? The robustness verdict, its reasons and headline figures (the full report: GET /api/v1/results/{stem} → robustness); null when the training made none',
    ),
    webhook_secret: z.string().optional().describe('Signing secret of the webhook channel, shown once'),
    credits_remaining: z.number().int(),
    next_bar_at: NextBarFields.next_bar_at
      .nullable()
      .describe(`${NextBarFields.next_bar_at.description}; null when deploy_if kept the model off live`),
    note: NextBarFields.note,
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

/** Where a one_shot run stands: generating → training → deploying → deployed, or refunded, or not_deployed (deploy_if held it back). */
export const OneShotRunStatus = z.enum(['generating', 'training', 'deploying', 'deployed', 'refunded', 'not_deployed']);
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
  /** The request's deploy_if (runs written before it existed deploy always). */
  deploy_if: DeployIf.default('always'),
  webhook_url: z.string().nullable(),
  messenger_chat_id: z.string().nullable(),
  /** Runs written before these existed have none. */
  webhook_template: z.string().nullable().default(null),
  discord_webhook_url: z.string().nullable().default(null),
  slack_webhook_url: z.string().nullable().default(null),
  job_id: z.number().int().nullable(),
  model_stem: z.string().nullable(),
  deployment_id: z.string().nullable(),
  reason: z.string().nullable().describe('Why the run was refunded, or not deployed'),
  /** The process running it, and when that process last said it still does. */
  owner: z.string(),
  alive_at: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});
export type OneShotRun = z.infer<typeof OneShotRun>;
