import { z } from 'zod';
import type { DeliveryApi } from '../../delivery/index.ts';
import {
  DeliveriesParams,
  DeliveriesQuery,
  DeliveriesResponse,
  MessengerCodeQuery,
  MessengerCodeResponse,
  ReplayRequest,
  ReplayResponse,
} from '../../../schemas/delivery.ts';
import { ErrorBody } from '../../../schemas/common.ts';
import { requireUser } from '../plugins/auth.ts';
import type { App } from '../types.ts';

const NAMES = 'The model is named by stem or display name and must be deployed by the caller (404 otherwise).';

const DELIVERY =
  'Signals are delivered per channel strictly in order: a failing signal is retried with exponential backoff ' +
  '(±20% jitter) for the retry window, holding back later signals of the same deployment (not other deployments), ' +
  'then becomes a dead letter and the next signal goes. Webhooks: 2xx = delivered; 410 Gone = delivery disabled for ' +
  'the deployment (later signals go straight to the dead letters) until a replay; anything else (or no answer within the timeout) = retry. ' +
  "Discord and Slack: their rate-limit answers are honoured per webhook (429 retry_after / Retry-After, Discord's X-RateLimit-Remaining " +
  'and X-RateLimit-Reset-After), the same message is sent again once the webhook may be called; a deleted webhook (Discord 404 Unknown ' +
  'Webhook or 401 Invalid Webhook Token, Slack 404 no_service or 410 channel_is_archived) disables the channel like 410 Gone. ' +
  "E-mail: an SMTP 4xx (or no answer) = retry, a 5xx = a dead letter at once (the channel stays on); beyond the account's daily " +
  'cap a signal is not mailed and becomes a dead letter with `capped: true` (not retried; replay it the next UTC day); an address ' +
  'unsubscribed by its one-click link, or no longer confirmed, disables the channel like 410 Gone.';

export function deliveryRoutes(app: App, { delivery }: { delivery: DeliveryApi }): void {
  app.get('/api/v1/deploy/:model/deliveries', {
    config: { auth: 'key' },
    schema: {
      tags: ['deploy'],
      summary: 'Delivery status of a deployed model: per channel delivered, pending, failing attempt, dead letters',
      description: `${NAMES} ${DELIVERY}`,
      params: DeliveriesParams,
      querystring: DeliveriesQuery,
      response: { 200: DeliveriesResponse, 404: ErrorBody },
    },
    handler: async (request) => delivery.status(requireUser(request).user_id, request.params.model, request.query.dead_limit),
  });

  app.post('/api/v1/deploy/:model/deliveries/replay', {
    config: { auth: 'key' },
    schema: {
      tags: ['deploy'],
      summary: 'Replay dead letters: put them back in the delivery queue',
      description:
        `${NAMES} Replayed dead letters are delivered before newer signals, oldest first, with a fresh retry window ` +
        '(the same webhook-id as before, so receivers can de-duplicate). A replay also re-enables a channel disabled by 410 Gone (or a deleted Discord/Slack webhook). ' +
        'The body is optional: by default every dead letter of every channel is replayed.',
      params: DeliveriesParams,
      body: ReplayRequest.nullish(),
      response: { 200: ReplayResponse, 404: ErrorBody },
    },
    handler: async (request) => delivery.replay(requireUser(request).user_id, request.params.model, request.body ?? {}),
  });

  app.get('/api/v1/messenger/code', {
    config: { auth: 'key' },
    schema: {
      tags: ['deploy'],
      summary: 'Get or poll your messenger (Telegram) pairing code',
      description:
        'Returns an 8-character code valid for 10 minutes and the bot deep link `https://t.me/<bot>?start=<code>`. ' +
        'Open the link (or send `/start <code>` to the bot, also in a group) and the chat is linked to your key; poll this ' +
        'endpoint until `status` is `linked`. The same code is returned while it is valid; once a chat is linked the code ' +
        'is used up (ask with `renew=true` to link one more chat). Signals of deployments with the messenger channel go to ' +
        'their messenger_chat_id when that chat is linked to you, else to your most recently linked chat. ' +
        'When the server runs no Telegram bot the answer is `{ "enabled": false, "status": "disabled", "message": … }`; ' +
        '503 when the Telegram Bot API cannot be reached to name the bot.',
      querystring: MessengerCodeQuery,
      response: { 200: MessengerCodeResponse, 503: ErrorBody },
    },
    handler: async (request) => delivery.messengerCode(requireUser(request).user_id, request.query.renew),
  });

  app.post('/api/v1/messenger/telegram-webhook', {
    config: { auth: 'none' },
    schema: {
      tags: ['deploy'],
      summary: 'Telegram Bot API updates (webhook mode only)',
      description:
        'Called by Telegram when TELEGRAM_MODE=webhook; authenticated by the X-Telegram-Bot-Api-Secret-Token header the ' +
        'service registered with setWebhook. 404 when the bot is not in webhook mode.',
      body: z.record(z.string(), z.unknown()),
      response: { 200: z.object({ ok: z.literal(true) }), 403: ErrorBody, 404: ErrorBody },
    },
    handler: async (request) => {
      const header = request.headers['x-telegram-bot-api-secret-token'];
      delivery.telegramUpdate(typeof header === 'string' ? header : undefined, request.body);
      return { ok: true as const };
    },
  });
}
