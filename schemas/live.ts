import { z } from 'zod';
import { IsoDateTime, Symbol, Timeframe } from './common.ts';
import { strictObject } from './strict.ts';
import { NextBarFields } from './next-bar.ts';
import { WebhookTemplate } from './bridge-template.ts';
import { ModelIdentity } from './model-identity.ts';

/**
 * Live signals: deployments (desired state, KV), the signal events deployed models emit
 * (JetStream `signals.>` + ClickHouse), and what delivery sends to webhooks, Telegram and SSE.
 */

export const CHANNELS = ['webhook', 'messenger', 'sse', 'discord', 'slack', 'email'] as const;
export const Channel = z
  .enum(CHANNELS)
  .describe(
    'webhook = signed POST to your URL (optionally in your own body template); messenger = Telegram; sse = the live stream; discord = a Discord webhook; slack = a Slack incoming webhook; email = a mail to your confirmed address (POST /api/v1/email; unavailable on a server without SMTP_URL)',
  );
export type Channel = z.infer<typeof Channel>;

/** A deployment as kept in KV `sf_deployments`, key `<user_id>.<hex of model_name>` (the model's key). */
export const DeploymentRecord = z.object({
  deployment_id: z.string().describe('Stable id of this deployment (a new one per POST /deploy): `dep_<random>`'),
  user_id: z.number().int(),
  username: z.string(),
  model_name: z.string(),
  stem: z.string(),
  symbol: Symbol,
  timeframe: Timeframe,
  channels: z.array(Channel),
  webhook_url: z.string().nullable(),
  /** Standard Webhooks signing secret (`whsec_` + base64); shown once at deploy, never logged. */
  webhook_secret: z.string().nullable(),
  messenger_chat_id: z.string().nullable(),
  /** The webhook channel's body template (issue 38, execution bridges); absent/null = the standard payload. */
  webhook_template: z.string().nullable().optional(),
  /** Discord webhook URL (discord channel); absent on records stored before it existed. */
  discord_webhook_url: z.string().nullable().optional(),
  /** Slack incoming-webhook URL (slack channel). */
  slack_webhook_url: z.string().nullable().optional(),
  /** The account's confirmed address at deploy (email channel): mails go there while it stays confirmed. */
  email_to: z.string().nullable().optional(),
  created_at: z.number().int(),
  /**
   * Set when the deployment failed for good (its stored model failed the safety check): no host
   * runs its actor again. Deploying the model again (after a retrain) writes a new record without
   * it. Absent on a deployment that runs, and on records stored before it existed.
   */
  failure: z
    .object({
      reason: z.string().describe('For the owner, in plain words: what failed and what to do (never the check’s internals)'),
      at: z.number().int(),
    })
    .optional(),
});
export type DeploymentRecord = z.infer<typeof DeploymentRecord>;

export const SignalAction = z
  .enum(['open', 'close', 'cancel'])
  .describe(
    'open = a position is entered at the next bar open; close = a position is closed (by signal, SL, TP); ' +
      'cancel = the open announced on the previous bar did not fill: its fill bar came at a time the strategy’s session or day filter excludes (a feed gap, a holiday, a weekend reopening off the usual hour); nothing was entered',
  );

/** One live signal. Its `id` is stable: a replayed bar yields the same id, so receivers can de-duplicate. */
export const SignalEvent = z
  .object({
    id: z.string().describe('`sig_<deployment_id>_<bar open ms>_<n>`: the same bar and event always give the same id'),
    deployment_id: z.string(),
    model: z.string().describe('Model stem'),
    model_name: z.string(),
    symbol: Symbol,
    timeframe: Timeframe,
    action: SignalAction,
    side: z.enum(['long', 'short']).describe('Side of the position opened or closed (cancel: of the entry that did not fill)'),
    price: z
      .number()
      .describe(
        'open: the close of the signal bar (the fill comes at the next open); close: the exit fill price; cancel: the open of the bar the entry would have filled at',
      ),
    stop_loss: z.number().nullable().describe('open: the stop level from that price; null when none (and on close and cancel)'),
    take_profit: z.number().nullable(),
    reason: z
      .enum(['signal', 'SL', 'TP'])
      .describe('What caused it: the model’s signal, or a stop-loss / take-profit hit (cancel: signal, the entry it withdraws)'),
    p_up: z
      .number()
      .nullable()
      .describe(
        "The model's probability on the signal bar: of an up move, or with entry rules (meta-labelling) P(win) of the rule's trade; null for SL/TP exits and cancels",
      ),
    labels: z
      .literal('meta')
      .optional()
      .describe(
        'meta: the model is meta-labelled (strategy_config entry_long / entry_short), so p_up is P(win) of the rule\'s trade, not P(up) (messages show it as "P(win)"); absent on a direction model\'s signals and on signals sent before this field',
      ),
    pnl: z.number().nullable().describe('close: net USD P&L of the closed trade at the deployment’s lot size'),
    bar_time: IsoDateTime.describe(
      'Open time of the bar whose close produced the event (cancel: of the bar that came at the excluded time, whose open the entry would have filled at)',
    ),
    created_at: IsoDateTime,
    late: z
      .literal(true)
      .optional()
      .describe(
        'A catch-up signal: its bar closed before the deployment was made (a new deployment announces its position on the last closed bar at once), or more than 30 s before it was sent (an actor catching up after a restart). Absent on signals sent on time',
      ),
    due_at: IsoDateTime.optional().describe('Late signals only: the close of the bar, when the signal would have been sent'),
  })
  .meta({ id: 'SignalEvent' });
export type SignalEvent = z.infer<typeof SignalEvent>;

/**
 * What a deployed model made of one closed bar (issue 18, the WebSocket `predictions` channel):
 * published by its actor on core NATS once the bar's signals are stored, in bar order.
 */
export const BarPrediction = z
  .object({
    deployment_id: z.string(),
    model: z.string().describe('Model stem'),
    symbol: Symbol,
    timeframe: Timeframe,
    bar: z.object({
      time: IsoDateTime.describe('Bar open time'),
      open: z.number(),
      high: z.number(),
      low: z.number(),
      close: z.number(),
    }),
    p_up: z
      .number()
      .nullable()
      .describe(
        "The model's probability: of an up move, or with entry rules (meta-labelling) P(win) of the rule's trade; null while the bar has no feature row (warm-up)",
      ),
    decision: z.enum(['long', 'short', 'flat']).describe('The threshold signal after the entry filters (session, min ATR, trend)'),
    position: z
      .object({
        side: z.enum(['long', 'short', 'flat']),
        open_positions: z.number().int().min(0),
        entry_price: z.number().nullable().describe('Entry price of the oldest open position; null when flat'),
      })
      .describe('The position engine after this bar (an entry announced by this bar fills at the next open)'),
    signal_ids: z
      .array(z.string())
      .describe('Ids of the signal events this bar produced, in order (often none): stored on SIGNALS and sent before this message'),
  })
  .meta({ id: 'BarPrediction' });
export type BarPrediction = z.infer<typeof BarPrediction>;

/**
 * Someone watches a deployment's predictions (a WebSocket `predictions` subscription, on any
 * edge) until `until` (epoch ms): its actor builds and publishes a BarPrediction per bar only
 * then. The edge renews it while the subscription lasts.
 */
export const WatchRecord = z.object({ until: z.number().int() });
export type WatchRecord = z.infer<typeof WatchRecord>;

export const DeployRequest = strictObject({
  model_name: z.string().min(1).max(200).describe('Model stem or display name'),
  channels: z.array(Channel).min(1).max(CHANNELS.length).default(['sse']).describe('Where signals go; default sse'),
  webhook_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('Required with the webhook channel; http(s) only; private, loopback and link-local targets are refused'),
  webhook_template: WebhookTemplate.optional(),
  messenger_chat_id: z.string().min(1).max(64).optional().describe('Telegram chat id; default: the chat linked with GET /messenger/code'),
  // http(s) here; DISCORD_/SLACK_WEBHOOK_HOSTS decide (a bare host means https, only a listed origin may be http).
  discord_webhook_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe(
      'Required with the discord channel: a Discord webhook URL, https://discord.com/api/webhooks/<id>/<token> (Server Settings → Integrations → Webhooks → Copy Webhook URL)',
    ),
  slack_webhook_url: z
    .url({ protocol: /^https?$/ })
    .max(2000)
    .optional()
    .describe('Required with the slack channel: a Slack incoming-webhook URL, https://hooks.slack.com/services/T…/B…/…'),
}).meta({ id: 'DeployRequest' });
export type DeployRequest = z.infer<typeof DeployRequest>;

export const DeployResponse = z
  .object({
    status: z.literal('deployed'),
    model: z.string().describe('Model stem'),
    channels: z.array(Channel),
    deployment_id: z.string(),
    webhook_secret: z
      .string()
      .optional()
      .describe('Standard Webhooks signing secret (`whsec_…`), shown only in this response: keep it to verify `webhook-signature`'),
    replaced: z.array(z.string()).describe('Stems undeployed to make room (plan limit: the oldest goes first)'),
    unchanged: z
      .boolean()
      .optional()
      .describe(
        'true when the model was already deployed to the same channels and destinations: nothing changed (the same deployment_id and secret), no signal is sent twice',
      ),
    ...NextBarFields,
  })
  .meta({ id: 'DeployResponse' });
export type DeployResponse = z.infer<typeof DeployResponse>;

export const DeployedModel = z
  .object({
    model: z.string().describe('Model stem'),
    ...ModelIdentity.shape,
    channels: z.array(Channel),
    created_at: IsoDateTime,
    webhook_url: z.string().nullable(),
    webhook_template: z.string().nullable().describe('The webhook channel’s body template; null = the standard payload'),
    messenger_chat_id: z.string().nullable(),
    discord_webhook_url: z.string().nullable().describe('The Discord webhook’s origin and id (its token is not shown)'),
    slack_webhook_url: z.string().nullable().describe('The Slack webhook’s origin (its secret path is not shown)'),
    email_to: z.string().nullable().describe('email channel: the confirmed address signals are mailed to'),
    deployment_id: z.string(),
    status: z
      .enum(['deployed', 'failed'])
      .describe(
        'deployed: its actor runs (or is starting) and sends signals; failed: it stopped for good, `error` says why and what to do (deploy the model again once that is done)',
      ),
    error: z.string().optional().describe('failed only: why, in plain words'),
    failed_at: IsoDateTime.optional().describe('failed only: when it failed'),
  })
  .meta({ id: 'DeployedModel' });

export const DeployedList = z
  .object({ count: z.number().int(), deployed: z.array(DeployedModel).describe('Oldest first') })
  .meta({ id: 'DeployedList' });
export type DeployedList = z.infer<typeof DeployedList>;

export const UndeployResponse = z.object({ status: z.literal('undeployed'), model: z.string() }).meta({ id: 'UndeployResponse' });

export const DeployParams = z.object({
  model: z
    .string()
    .min(1)
    .max(200)
    .describe('Model stem or display name')
    .meta({ examples: ['7_EURUSD_15min_Model 3'] }),
});

/** A model actor's progress (KV `sf_actor_state`, key = deployment id): where to resume. */
export const ActorState = z.object({
  last_bar_ts: z.number().describe('Open time of the last bar the actor handled, epoch ms'),
  engine: z.unknown().describe('PositionEngine snapshot after that bar'),
  signals_sent: z.number().int(),
});
export type ActorState = z.infer<typeof ActorState>;

/** Who runs an actor now (KV `sf_claims`, key = its id, valid while that host's heartbeat in `sf_hosts` lives); also a host's heartbeat. */
export const LeaseRecord = z.object({ host: z.string(), renewed_at: z.number().int() });
