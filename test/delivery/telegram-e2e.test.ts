/**
 * Messenger (Telegram) end to end: the real service with a bot token, grammy's real client
 * talking to a local stand-in Bot API server: pairing through GET /messenger/code and
 * `/start <code>` (long polling), formatted signal messages, per-chat pacing and a 429.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { DeliveriesResponse, MessengerCodeLinkable } from '../../schemas/delivery.ts';
import { Buckets } from '../../schemas/messages.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startTelegramStandIn, type TelegramStandIn } from '../helpers/telegram-stand-in.ts';
import { deploy, publish, signal, waitFor } from './harness.ts';

describe('messenger delivery (Telegram Bot API stand-in)', () => {
  let tg: TelegramStandIn;
  let s: TestService;
  let key: string;
  let userId: number;
  const CHAT = 4242;
  const logs: string[] = [];

  before(async () => {
    tg = await startTelegramStandIn();
    s = await startTestService(
      {
        MARKET_FEED: 'none',
        RATE_LIMIT_PER_MIN: '100000',
        TELEGRAM_BOT_TOKEN: tg.token,
        TELEGRAM_API_ROOT: tg.apiRoot,
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_RETRY_MAX_MS: '200',
        LOG_LEVEL: 'debug',
      },
      { logSink: (line) => void logs.push(line) },
    );
    const minted = await s.mintKey();
    key = minted.api_key;
    userId = minted.user_id;
  });
  after(async () => {
    await s?.stop();
    await tg?.stop();
  });

  const code = async (query = '') => {
    const res = await s.api('GET', `/api/v1/messenger/code${query}`, { key });
    assert.equal(res.status, 200, res.text);
    return MessengerCodeLinkable.parse(res.body);
  };
  const toChat = (chat: number | string) => tg.sent.filter((m) => m.chat_id === String(chat));

  it('pairs a chat: code and deep link, /start <code> to the bot, status becomes linked', async () => {
    const askedFrom = Date.now();
    const first = await code();
    const askedBy = Date.now();
    assert.equal(first.status, 'pending');
    assert.match(first.code!, /^[A-HJ-KM-NP-Z2-9]{8}$/);
    assert.equal(first.deep_link, `https://t.me/${tg.botUsername}?start=${first.code}`);
    assert.equal(first.bot_username, tg.botUsername);
    // Valid for 10 minutes from when it was made.
    const madeAt = Date.parse(first.expires_at!) - 10 * 60_000;
    assert.ok(madeAt >= askedFrom && madeAt <= askedBy, `expires_at ${first.expires_at}: 10 minutes after the request`);
    assert.equal(first.chat_id, null);
    // Polling returns the same code while it is valid.
    assert.equal((await code()).code, first.code);

    tg.userSends({ id: 777, first_name: 'Mallory' }, '/start WRONGCDE');
    await waitFor(() => toChat(777).length === 1, 10_000, 'the answer to a wrong code');
    assert.match(toChat(777)[0]!.text, /Unknown code/);

    tg.userSends({ id: CHAT, first_name: 'Ada' }, `/start ${first.code}`);
    await waitFor(async () => (await code()).status === 'linked', 10_000, 'the chat to be linked');
    const linked = await code();
    assert.equal(linked.chat_id, String(CHAT));
    assert.equal(linked.code, null, 'the code is used up');
    assert.deepEqual(
      linked.chats.map((c) => [c.chat_id, c.title]),
      [[String(CHAT), 'Ada']],
    );
    await waitFor(() => toChat(CHAT).length === 1, 10_000, 'the bot’s confirmation');
    assert.match(toChat(CHAT)[0]!.text, /Linked/);

    // A used code does not link another chat.
    tg.userSends({ id: 778, first_name: 'Eve' }, `/start ${first.code}`);
    await waitFor(() => toChat(778).length === 1, 10_000, 'the answer to a used code');
    assert.match(toChat(778)[0]!.text, /Unknown code/);
    assert.deepEqual(
      (await code()).chats.map((c) => c.chat_id),
      [String(CHAT)],
    );
  });

  it('sends signals as formatted messages to the linked chat, in order, at most one per second', async () => {
    const deployments = await openBucket(s.service.bus, Buckets.deployments);
    const d = await deploy({ deployments }, { userId, modelName: 'Tele <Model>', channels: ['messenger'] });
    const before = toChat(CHAT).length;
    const events = [0, 1, 2, 3].map((n) => signal(d, n));
    for (const e of events) await publish(s.service.bus, e);
    await waitFor(() => toChat(CHAT).length === before + 4, 15_000, '4 signal messages');
    const messages = toChat(CHAT).slice(before);
    assert.deepEqual(
      messages.map((m) => m.text.split('\n')[0]),
      [
        '🟢 <b>OPEN LONG</b> · EURUSD 15min',
        '⚪ <b>CLOSE LONG</b> · EURUSD 15min',
        '🟢 <b>OPEN LONG</b> · EURUSD 15min',
        '⚪ <b>CLOSE LONG</b> · EURUSD 15min',
      ],
    );
    assert.equal(messages[0]!.parse_mode, 'HTML');
    assert.equal(
      messages[0]!.text,
      [
        '🟢 <b>OPEN LONG</b> · EURUSD 15min',
        'Price <b>1.08000</b>',
        'SL 1.07800 · TP 1.08400',
        'Reason: model signal (p↑ 0.60)',
        'Model: Tele &lt;Model&gt;',
        `Bar ${events[0]!.bar_time.slice(0, 10)} ${events[0]!.bar_time.slice(11, 16)} UTC`,
      ].join('\n'),
    );
    assert.match(messages[1]!.text, /Exit <b>1\.08010<\/b>\nP&amp;L \+\$12\.50/);
    for (let i = 1; i < messages.length; i++) {
      assert.ok(messages[i]!.at - messages[i - 1]!.at >= 950, `gap ${messages[i]!.at - messages[i - 1]!.at} ms`);
    }
    const deliveries = async () =>
      DeliveriesResponse.parse((await s.api('GET', `/api/v1/deploy/${encodeURIComponent('Tele <Model>')}/deliveries`, { key })).body)
        .channels[0]!;
    await waitFor(async () => (await deliveries()).delivered === 4, 5_000, 'the delivered count');
    const status = await deliveries();
    assert.equal(status.channel, 'messenger');
    assert.equal(status.enabled, true);
    assert.equal(status.target, String(CHAT));
    assert.equal(status.delivered, 4);
  });

  it('honours a 429 retry_after and keeps the queue order', async () => {
    const deployments = await openBucket(s.service.bus, Buckets.deployments);
    const d = await deploy({ deployments }, { userId, modelName: 'Throttled', channels: ['messenger'] });
    const before = toChat(CHAT).length;
    tg.rateLimitNext(2);
    const events = [0, 1, 2].map((n) => signal(d, n));
    for (const e of events) await publish(s.service.bus, e);
    await waitFor(() => toChat(CHAT).length === before + 3, 20_000, '3 messages after the 429');
    const refused = tg.sendAttempts.filter((a) => a.status === 429);
    assert.equal(refused.length, 1);
    const messages = toChat(CHAT).slice(before);
    assert.ok(messages[0]!.at - refused[0]!.at >= 1_950, `resent ${messages[0]!.at - refused[0]!.at} ms after the 429`);
    assert.deepEqual(
      messages.map((m) => m.text.split('\n')[1]),
      ['Price <b>1.08000</b>', 'Exit <b>1.08010</b>', 'Price <b>1.08020</b>'],
    );
  });

  it('does not send to a chat id that is not linked to the deployment’s owner', async () => {
    const deployments = await openBucket(s.service.bus, Buckets.deployments);
    const d = await deploy({ deployments }, { userId, modelName: 'Elsewhere', channels: ['messenger'], chatId: '-100999' });
    await publish(s.service.bus, signal(d, 0));
    await waitFor(
      async () => {
        const res = await s.api('GET', '/api/v1/deploy/Elsewhere/deliveries', { key });
        return Boolean(res.body.channels?.[0]?.current);
      },
      10_000,
      'a failed attempt',
    );
    const res = await s.api('GET', '/api/v1/deploy/Elsewhere/deliveries', { key });
    assert.match(res.body.channels[0].current.last_error, /messenger_chat_id -100999 is not linked to this account/);
    assert.equal(toChat(-100999).length, 0);
  });

  it('links a second chat (a group) with a renewed code; new signals go to the latest chat unless one is named', async () => {
    const renewed = await code('?renew=true');
    assert.equal(renewed.status, 'linked');
    assert.ok(renewed.code);
    tg.userSends({ id: -100123, type: 'group', title: 'Trading desk' }, `/start@${tg.botUsername} ${renewed.code}`);
    await waitFor(async () => (await code()).chats.length === 2, 10_000, 'the group to be linked');
    const status = await code();
    assert.equal(status.chat_id, '-100123');
    assert.deepEqual(
      status.chats.map((c) => c.title),
      ['Ada', 'Trading desk'],
    );
    const deployments = await openBucket(s.service.bus, Buckets.deployments);
    const toGroup = await deploy({ deployments }, { userId, modelName: 'Group', channels: ['messenger'] });
    const toAda = await deploy({ deployments }, { userId, modelName: 'Ada only', channels: ['messenger'], chatId: String(CHAT) });
    const beforeAda = toChat(CHAT).length;
    await publish(s.service.bus, signal(toGroup, 0));
    await publish(s.service.bus, signal(toAda, 0));
    await waitFor(() => toChat(-100123).some((m) => m.text.includes('Model: Group')), 10_000, 'the group message');
    await waitFor(() => toChat(CHAT).length === beforeAda + 1, 10_000, 'the message to the named chat');
    assert.match(toChat(CHAT).at(-1)!.text, /Model: Ada only/);
  });

  it('never logs the bot token', () => {
    assert.ok(
      logs.some((l) => l.includes('telegram rate limit')),
      'the 429 was logged',
    );
    const secretPart = tg.token.split(':')[1]!;
    assert.equal(logs.filter((l) => l.includes(secretPart)).length, 0);
  });
});
