import { z } from 'zod';
import { IsoDateTime } from './common.ts';
import { SignalEvent } from './live.ts';
import { strictObject } from './strict.ts';

/**
 * Delivery of live signals to the `webhook`, `messenger` (Telegram), `discord`, `slack` and `email` channels: what the
 * delivery actor keeps in KV, what a webhook receiver gets, and the delivery API.
 */

export const DELIVERY_CHANNELS = ['webhook', 'messenger', 'discord', 'slack', 'email'] as const;
export const DeliveryChannel = z
  .enum(DELIVERY_CHANNELS)
  .describe('A channel the delivery actor pushes to (sse is served live by the edge)');
export type DeliveryChannel = z.infer<typeof DeliveryChannel>;

// ---- KV records --------------------------------------------------------------------------------

/** The signal at the head of a channel's queue while it is failing. */
export const AttemptRecord = z.object({
  seq: z.number().int().describe('SIGNALS stream sequence of the signal'),
  signal_id: z.string(),
  replay: z.boolean().describe('true when it is a dead letter being replayed'),
  attempts: z.number().int().min(1),
  first_attempt_at: z.number().int().describe('epoch ms'),
  last_attempt_at: z.number().int(),
  next_attempt_at: z.number().int(),
  last_error: z.string(),
  last_status: z
    .number()
    .int()
    .nullable()
    .describe('HTTP status of the last answer (email: the SMTP reply code); null when there was none'),
});
export type AttemptRecord = z.infer<typeof AttemptRecord>;

/**
 * KV `sf_delivery`, key `<channel>.<deployment_id>`: one channel of one deployment. Signals are
 * read from the SIGNALS stream in order; `cursor` is the stream sequence of the last one handled
 * (delivered or dead-lettered), so a restart resumes exactly there.
 */
export const DeliveryState = z.object({
  deployment_id: z.string(),
  channel: DeliveryChannel,
  user_id: z.number().int(),
  cursor: z.number().int().min(0),
  delivered: z.number().int().min(0),
  dead_lettered: z.number().int().min(0),
  last_delivered_at: z.number().int().nullable(),
  last_delivered_id: z.string().nullable(),
  current: AttemptRecord.nullable(),
  /** Dead letters (stream sequences) queued for another round by a replay, oldest first. */
  replay: z.array(z.number().int()),
  /** Set when a receiver said it is gone for good (webhook 410; Discord/Slack: the webhook was deleted); cleared by a replay. */
  disabled: z.object({ reason: z.string(), at: z.number().int() }).nullable(),
  updated_at: z.number().int(),
});
export type DeliveryState = z.infer<typeof DeliveryState>;

/**
 * Where a webhook channel's deliveries reached, ahead of its `DeliveryState` in `sf_delivery`: the
 * fields a delivery moves on, as absolute values (a later entry replaces an earlier one whole).
 */
export const DeliveryProgress = z.object({
  cursor: z.number().int().min(0),
  delivered: z.number().int().min(0),
  last_delivered_at: z.number().int().nullable(),
  last_delivered_id: z.string().nullable(),
  updated_at: z.number().int(),
});
export type DeliveryProgress = z.infer<typeof DeliveryProgress>;

/**
 * KV `sf_delivery_progress`, key `<page>.<host>`: the webhook deliveries of one delivery process
 * on one page of deployments (by a hash of the id) that are not yet written to their state. One
 * write carries a bar's deliveries of a page instead of one write per webhook; the next holder of
 * a deployment and the deliveries API take the furthest of the state and every host's entry.
 */
export const DeliveryProgressPage = z.object({
  host: z.string(),
  written_at: z.number().int(),
  /** By state key (`webhook.<deployment_id>`). */
  entries: z.record(z.string(), DeliveryProgress),
});
export type DeliveryProgressPage = z.infer<typeof DeliveryProgressPage>;

/** KV `sf_delivery_dead`, key `<channel>.<deployment_id>.<seq>`: a signal that ran out of retries. */
export const DeadLetterRecord = z.object({
  deployment_id: z.string(),
  channel: DeliveryChannel,
  seq: z.number().int(),
  signal: SignalEvent,
  attempts: z.number().int().min(0),
  first_attempt_at: z.number().int().nullable(),
  died_at: z.number().int(),
  last_error: z.string(),
  last_status: z.number().int().nullable(),
  status: z.enum(['dead', 'queued']).describe('queued = a replay has put it back in the delivery queue'),
  /** email: not sent because the account's daily e-mail cap was reached (never retried on its own). */
  capped: z.literal(true).optional(),
});
export type DeadLetterRecord = z.infer<typeof DeadLetterRecord>;

/** KV `sf_messenger_codes`, key = the code: a pending pairing, one use, 10 minutes. */
export const PairingCodeRecord = z.object({
  user_id: z.number().int(),
  created_at: z.number().int(),
  expires_at: z.number().int(),
});
export type PairingCodeRecord = z.infer<typeof PairingCodeRecord>;

export const LinkedChat = z.object({
  chat_id: z.string(),
  title: z.string().describe('Chat title or the Telegram user’s name'),
  linked_at: z.number().int(),
});
export type LinkedChat = z.infer<typeof LinkedChat>;

/** KV `sf_messenger_links`, key `<user_id>`: the user's current code and linked chats (newest last). */
export const MessengerLinkRecord = z.object({
  code: z.string().nullable(),
  code_expires_at: z.number().int().nullable(),
  chats: z.array(LinkedChat),
});
export type MessengerLinkRecord = z.infer<typeof MessengerLinkRecord>;

/** `delivery.kick.<channel>.<deployment_id>`: the API changed a channel's queue (a replay). */
export const DeliveryKick = z.object({ channel: DeliveryChannel, deployment_id: z.string() });

// ---- What a webhook receiver gets --------------------------------------------------------------

export const WebhookPayload = z
  .object({
    type: z.literal('signal').describe('Event type; `signal` is the only one today'),
    timestamp: IsoDateTime.describe('When the signal was created (the same on every retry)'),
    data: SignalEvent,
  })
  .meta({
    id: 'WebhookPayload',
    description:
      'Body of every webhook POST (Standard Webhooks): headers `webhook-id` (= data.id, the same on every retry: de-duplicate on it), ' +
      '`webhook-timestamp` (unix seconds of this attempt) and `webhook-signature` (`v1,<base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" ' +
      'keyed with the base64-decoded part of the secret after `whsec_`>`).',
  });
export type WebhookPayload = z.infer<typeof WebhookPayload>;

// ---- Delivery API ----------------------------------------------------------------------------

export const DeliveriesParams = z.object({
  model: z
    .string()
    .min(1)
    .max(200)
    .describe('Model stem or display name of your deployment')
    .meta({ examples: ['7_EURUSD_15min_Model 3'] }),
});

export const DeliveriesQuery = z.object({
  dead_limit: z.coerce.number().int().min(0).max(500).default(50).describe('Dead letters listed per channel (oldest first)'),
});

export const CurrentAttempt = z.object({
  signal_id: z.string(),
  replay: z.boolean().describe('true when the failing signal is a replayed dead letter'),
  attempts: z.number().int(),
  first_attempt_at: IsoDateTime,
  last_attempt_at: IsoDateTime,
  next_attempt_at: IsoDateTime,
  last_error: z.string(),
  last_status: z.number().int().nullable().describe('HTTP status of the last answer; null on a network error or timeout'),
});

export const DeadLetter = z
  .object({
    channel: DeliveryChannel,
    signal_id: z.string(),
    seq: z.number().int().describe('SIGNALS stream sequence'),
    status: z.enum(['dead', 'queued']).describe('queued = replay requested, waiting for its turn'),
    attempts: z.number().int(),
    first_attempt_at: IsoDateTime.nullable(),
    died_at: IsoDateTime,
    last_error: z.string(),
    last_status: z.number().int().nullable().describe('HTTP status of the last answer (email: the SMTP reply code)'),
    capped: z
      .literal(true)
      .optional()
      .describe(
        'email only: not sent because the account reached its daily e-mail cap (SIGNAL_EMAILS_PER_DAY); it is not retried on its own, replay it once the UTC day has turned',
      ),
    signal: SignalEvent,
  })
  .meta({ id: 'DeadLetter' });
export type DeadLetter = z.infer<typeof DeadLetter>;

export const ChannelDeliveryStatus = z
  .object({
    channel: DeliveryChannel,
    enabled: z
      .boolean()
      .describe(
        'false when the server has no Telegram bot (messenger) or no SMTP_URL (email), a receiver answered 410 Gone (webhook), Discord/Slack said the webhook no longer exists, or the address unsubscribed or is no longer confirmed (email)',
      ),
    disabled_reason: z.string().nullable(),
    target: z
      .string()
      .nullable()
      .describe(
        'webhook: the receiver origin (scheme://host:port); messenger: the chat id signals go to; discord: the webhook’s origin and id (not its token); slack: the webhook’s origin; email: the address',
      ),
    delivered: z.number().int().describe('Signals delivered (including replayed dead letters)'),
    pending: z.number().int().describe('Signals waiting, in order, including the one being retried and queued replays'),
    last_delivered_at: IsoDateTime.nullable(),
    last_delivered_id: z.string().nullable(),
    current: CurrentAttempt.nullable().describe('The signal at the head of the queue while it is being retried; null when none is failing'),
    dead_letters: z.number().int().describe('Signals that ran out of retries and were not (yet) replayed successfully'),
    dead: z.array(DeadLetter).describe('The dead letters, oldest first (at most dead_limit)'),
  })
  .meta({ id: 'ChannelDeliveryStatus' });
export type ChannelDeliveryStatus = z.infer<typeof ChannelDeliveryStatus>;

export const DeliveriesResponse = z
  .object({
    model: z.string().describe('Model stem'),
    deployment_id: z.string(),
    retry_window_s: z.number().describe('How long a failing signal is retried before it becomes a dead letter'),
    channels: z.array(ChannelDeliveryStatus),
  })
  .meta({ id: 'DeliveriesResponse' });
export type DeliveriesResponse = z.infer<typeof DeliveriesResponse>;

export const ReplayRequest = strictObject({
  channel: DeliveryChannel.optional().describe('Only this channel; default all of the deployment’s'),
  signal_ids: z.array(z.string().max(200)).max(10_000).optional().describe('Only these dead letters; default all of them'),
}).meta({ id: 'ReplayRequest' });
export type ReplayRequest = z.infer<typeof ReplayRequest>;

export const ReplayResponse = z
  .object({
    model: z.string(),
    deployment_id: z.string(),
    replayed: z.number().int().describe('Dead letters put back in the queue'),
    channels: z.array(z.object({ channel: DeliveryChannel, replayed: z.number().int(), re_enabled: z.boolean() })),
  })
  .meta({ id: 'ReplayResponse' });
export type ReplayResponse = z.infer<typeof ReplayResponse>;

export const MessengerCodeQuery = z.object({
  renew: z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((v) => v === 'true' || v === '1')
    .describe('true = replace the current code with a new one (e.g. to link one more chat)'),
});

export const MessengerCodeLinkable = z
  .object({
    enabled: z.literal(true),
    status: z.enum(['pending', 'linked']).describe('linked once a chat has sent `/start <code>` to the bot'),
    code: z.string().nullable().describe('8-character pairing code; null once linked (ask with renew=true for another)'),
    deep_link: z.string().nullable().describe('https://t.me/<bot>?start=<code>: opens the bot with the code filled in'),
    bot_username: z.string(),
    expires_at: IsoDateTime.nullable().describe('The code is valid for 10 minutes'),
    chat_id: z.string().nullable().describe('The chat signals go to by default (the most recently linked)'),
    chats: z.array(z.object({ chat_id: z.string(), title: z.string(), linked_at: IsoDateTime })),
  })
  .meta({ id: 'MessengerCodeLinkable' });
export type MessengerCodeLinkable = z.infer<typeof MessengerCodeLinkable>;

export const MessengerOff = z
  .object({
    enabled: z.literal(false),
    status: z.literal('disabled'),
    message: z.string().describe('Why: the server runs no Telegram bot'),
  })
  .meta({ id: 'MessengerOff' });

export const MessengerCodeResponse = z
  .union([MessengerCodeLinkable, MessengerOff])
  .describe('`enabled: false` (status `disabled`) when the server runs no Telegram bot; otherwise the pairing code and status')
  .meta({ id: 'MessengerCodeResponse' });
export type MessengerCodeResponse = z.infer<typeof MessengerCodeResponse>;
