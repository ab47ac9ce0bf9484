/**
 * The Telegram bot in webhook mode: the service registers its webhook (setWebhook with a secret
 * token) with the Bot API stand-in; updates POSTed to the edge with that secret reach the bot
 * (over NATS, in the delivery actor) and pair the chat; a wrong secret is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { telegramWebhookSecret } from '../../src/delivery/index.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.ts';
import { waitFor } from './harness.ts';

describe('messenger pairing with the bot in webhook mode', () => {
  let tg: TelegramStandIn;
  let s: TestService;

  before(async () => {
    tg = await startTelegramStandIn();
    s = await startTestService({
      MARKET_FEED: 'none',
      TELEGRAM_BOT_TOKEN: tg.token,
      TELEGRAM_API_ROOT: tg.apiRoot,
      TELEGRAM_MODE: 'webhook',
      TELEGRAM_WEBHOOK_URL: 'https://bots.example.com/api/v1/messenger/telegram-webhook',
    });
  });
  after(async () => {
    await s?.stop();
    await tg?.stop();
  });

  it('registers the webhook, takes updates through the edge, and pairs the chat', async () => {
    await waitFor(() => tg.calls.includes('setWebhook'), 10_000, 'setWebhook');
    assert.ok(!tg.calls.includes('getUpdates'), 'no long polling in webhook mode');
    const { api_key: key } = await s.mintKey();
    const code = (await s.api('GET', '/api/v1/messenger/code', { key })).body;
    assert.equal(code.status, 'pending');
    const update = {
      update_id: 1,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: 31337, type: 'private', first_name: 'Grace' },
        from: { id: 31337, is_bot: false, first_name: 'Grace' },
        text: `/start ${code.code}`,
        entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      },
    };
    const refused = await s.api('POST', '/api/v1/messenger/telegram-webhook', {
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': 'guess' },
    });
    assert.equal(refused.status, 403);
    const secret = telegramWebhookSecret(tg.token);
    assert.ok(!secret.includes(tg.token.split(':')[1]!));
    const ok = await s.api('POST', '/api/v1/messenger/telegram-webhook', {
      body: update,
      headers: { 'x-telegram-bot-api-secret-token': secret },
    });
    assert.equal(ok.status, 200, ok.text);
    await waitFor(
      async () => (await s.api('GET', '/api/v1/messenger/code', { key })).body.status === 'linked',
      10_000,
      'the chat to be linked',
    );
    assert.equal((await s.api('GET', '/api/v1/messenger/code', { key })).body.chat_id, '31337');
    await waitFor(() => tg.sent.some((m) => m.chat_id === '31337' && m.text.includes('Linked')), 10_000, 'the confirmation');
  });
});
