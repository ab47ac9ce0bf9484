/**
 * Discord delivery end to end: real nats-server, the real delivery actor, real SignalEvents on
 * SIGNALS, and a local stand-in that answers as Discord's execute-webhook endpoint does (bucket
 * headers, 429 with retry_after, 5xx, 404 Unknown Webhook).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startDiscordStandIn, type DiscordStandIn } from '../helpers/discord-stand-in.ts';
import { deploy, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const PUBLIC_URL = 'https://signals.example';

describe('discord delivery (NATS → delivery actor → Discord webhook)', () => {
  let h: Harness;
  let discord: DiscordStandIn;

  before(async () => {
    discord = await startDiscordStandIn({ bucketSize: 3, bucketWindowMs: 400 });
    h = await startHarness({
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '300',
      WEBHOOK_RETRY_WINDOW_MS: '60000',
      DISCORD_WEBHOOK_HOSTS: discord.origin,
      PUBLIC_URL,
    });
  });
  after(async () => {
    await h?.close();
    await discord?.stop();
  });

  const toDiscord = (url: string) => deploy(h, { channels: ['discord'], extra: { discord_webhook_url: url } });
  const postedIds = (webhook: string) => discord.posted.filter((m) => m.webhook === webhook).map((m) => m.signalId);

  it('posts each signal as one embed: side, symbol, timeframe, price, stop, take profit, confidence, the model and its page', async () => {
    const url = discord.webhook('1001', 'tok-a');
    const d = await toDiscord(url);
    const open: SignalEvent = { ...signal(d, 0), labels: 'meta', p_up: 0.634 };
    const close = signal(d, 1);
    for (const e of [open, close]) await publish(h.bus, e);
    await waitFor(() => postedIds('1001').length === 2, 10_000, 'two Discord messages');
    assert.deepEqual(postedIds('1001'), [open.id, close.id]);

    const [first, second] = discord.posted.filter((m) => m.webhook === '1001');
    assert.equal(first!.headers['content-type'], 'application/json');
    assert.deepEqual(first!.body.allowed_mentions, { parse: [] }, 'a model name never pings anyone');
    const embed = first!.body.embeds[0];
    assert.equal(first!.body.embeds.length, 1);
    assert.equal(embed.title, '🟢 OPEN LONG · EURUSD 15min');
    assert.equal(embed.url, `${PUBLIC_URL}/models/${encodeURIComponent(d.stem)}`);
    assert.equal(embed.timestamp, open.created_at);
    const fields = Object.fromEntries(embed.fields.map((f: { name: string; value: string }) => [f.name, f.value]));
    assert.deepEqual(fields, {
      Price: open.price.toFixed(5),
      'Stop loss': '1.07800',
      'Take profit': '1.08400',
      Confidence: 'P(win) 0.63',
      Reason: 'model signal',
      Model: d.model_name,
    });
    const closeFields = Object.fromEntries(second!.body.embeds[0].fields.map((f: { name: string; value: string }) => [f.name, f.value]));
    assert.equal(second!.body.embeds[0].title, '⚪ CLOSE LONG · EURUSD 15min');
    assert.deepEqual([closeFields.Exit, closeFields['P&L'], closeFields.Confidence], [close.price.toFixed(5), '+$12.50', 'p↑ 0.60']);

    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.delivered === 2, 5_000, 'the delivered count');
    const [status] = (await h.api.status(d.user_id, d.model_name, 10)).channels;
    assert.equal(status!.channel, 'discord');
    assert.equal(status!.target, `${discord.origin}/api/webhooks/1001/…`, 'the token is never shown');
    assert.equal(status!.dead_letters, 0);
  });

  it('reaches the webhook exactly once per signal, in order, across 5xx and 429 storms, never calling while held', async () => {
    // Two deployments share one webhook: its rate limit is one, whoever sends.
    const url = discord.webhook('1002', 'tok-b');
    const a = await toDiscord(url);
    const b = await toDiscord(url);
    discord.failNext('1002', 503, 2);
    discord.rateLimitNext('1002', 0.25, 2);
    discord.failNext('1002', 500);
    discord.rateLimitNext('1002', 0.1);
    discord.failNext('1002', 502);
    const events = [...Array.from({ length: 6 }, (_, i) => signal(a, i)), ...Array.from({ length: 6 }, (_, i) => signal(b, i))];
    for (const e of events) await publish(h.bus, e);
    await waitFor(() => postedIds('1002').length >= 12, 30_000, 'twelve Discord messages');
    // Settled: nothing more arrives once every worker has moved past its last signal.
    await waitFor(
      async () => {
        const [sa, sb] = await Promise.all([h.api.status(a.user_id, a.model_name, 10), h.api.status(b.user_id, b.model_name, 10)]);
        return (
          sa.channels[0]!.pending === 0 &&
          sb.channels[0]!.pending === 0 &&
          sa.channels[0]!.delivered === 6 &&
          sb.channels[0]!.delivered === 6
        );
      },
      10_000,
      'both deployments delivered',
    );

    const ids = postedIds('1002');
    assert.equal(ids.length, 12, 'each signal once');
    assert.deepEqual(new Set(ids), new Set(events.map((e) => e.id)));
    for (const d of [a, b]) {
      const mine = ids.filter((id) => id!.startsWith(`sig_${d.deployment_id}_`));
      assert.deepEqual(
        mine,
        events.filter((e) => e.deployment_id === d.deployment_id).map((e) => e.id),
        'in order per deployment',
      );
    }
    assert.equal(discord.violations, 0, 'no request while the webhook was held by a 429');
    const limited = discord.attempts.filter((x) => x.webhook === '1002' && x.status === 429).length;
    assert.equal(limited, 3, 'only the 429s the test forced: X-RateLimit-Remaining 0 held the webhook before its bucket ran over');
  });

  it('a deleted webhook (404 Unknown Webhook) dead-letters and disables the channel; a replay delivers once it exists again', async () => {
    const url = discord.webhook('1003', 'tok-c');
    const d = await toDiscord(url);
    discord.remove('1003');
    const e = signal(d, 0);
    await publish(h.bus, e);
    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 1, 10_000, 'a dead letter');
    const [status] = (await h.api.status(d.user_id, d.model_name, 10)).channels;
    assert.equal(status!.enabled, false);
    assert.equal(status!.dead[0]!.last_status, 404);
    assert.match(status!.dead[0]!.last_error, /Discord HTTP 404: .*Unknown Webhook/);

    discord.webhook('1003', 'tok-c');
    const replay = await h.api.replay(d.user_id, d.model_name, {});
    assert.deepEqual(replay.channels, [{ channel: 'discord', replayed: 1, re_enabled: true }]);
    await waitFor(() => postedIds('1003').length === 1, 10_000, 'the replayed message');
    assert.deepEqual(postedIds('1003'), [e.id]);
  });

  it('a delivery process restarted while a webhook is held: the signal is posted once, by the successor alone', async () => {
    const url = discord.webhook('1004', 'tok-d');
    const d = await toDiscord(url);
    discord.rateLimitNext('1004', 3);
    const e = signal(d, 0);
    await publish(h.bus, e);
    await waitFor(() => discord.attempts.some((a) => a.webhook === '1004' && a.status === 429), 10_000, 'the 429');
    // The stopping process is holding the webhook for 3 s; its successor takes the deployment over meanwhile.
    await h.restartActor();
    await waitFor(() => postedIds('1004').length === 1, 15_000, 'the message');
    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.delivered === 1, 5_000, 'the delivered count');
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(postedIds('1004'), [e.id], 'once: the stopped process did not post when its hold ended');
  });
});
