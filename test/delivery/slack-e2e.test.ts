/**
 * Slack delivery end to end: real nats-server, the real delivery actor, real SignalEvents on
 * SIGNALS, and a local stand-in that answers as Slack's incoming webhooks do (429 with
 * Retry-After, 5xx, 410 channel_is_archived, Block Kit checks).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSlackStandIn, type SlackStandIn } from '../helpers/slack-stand-in.ts';
import { deploy, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';
import type { SignalEvent } from '../../schemas/live.ts';

const PUBLIC_URL = 'https://signals.example';

describe('slack delivery (NATS → delivery actor → Slack incoming webhook)', () => {
  let h: Harness;
  let slack: SlackStandIn;

  before(async () => {
    slack = await startSlackStandIn({ burst: 4, intervalMs: 1_500 });
    h = await startHarness({
      WEBHOOK_RETRY_BASE_MS: '100',
      WEBHOOK_RETRY_MAX_MS: '300',
      WEBHOOK_RETRY_WINDOW_MS: '60000',
      SLACK_WEBHOOK_HOSTS: slack.origin,
      PUBLIC_URL,
    });
  });
  after(async () => {
    await h?.close();
    await slack?.stop();
  });

  const toSlack = (url: string) => deploy(h, { channels: ['slack'], extra: { slack_webhook_url: url } });
  const postedIds = (webhook: string) => slack.posted.filter((m) => m.webhook === webhook).map((m) => m.signalId);

  it('posts each signal as a Block Kit message with the facts, the model and a link to its page', async () => {
    const url = slack.webhook('T001/B001/secret-a');
    const d = await toSlack(url);
    const open: SignalEvent = { ...signal(d, 0), side: 'short', model_name: '<!channel> & co' };
    await publish(h.bus, open);
    await waitFor(() => postedIds('T001/B001/secret-a').length === 1, 10_000, 'the Slack message');
    const [message] = slack.posted.filter((m) => m.webhook === 'T001/B001/secret-a');
    assert.equal(message!.signalId, open.id);
    assert.equal(message!.headers['content-type'], 'application/json');
    const [head, facts, context] = message!.body.blocks;
    assert.deepEqual(head, { type: 'section', text: { type: 'mrkdwn', text: '*🔴 OPEN SHORT · EURUSD 15min*' } });
    assert.deepEqual(
      facts.fields.map((f: { text: string }) => f.text),
      [
        `*Price*\n${open.price.toFixed(5)}`,
        '*Stop loss*\n1.07800',
        '*Take profit*\n1.08400',
        '*Confidence*\np↑ 0.60',
        '*Reason*\nmodel signal',
        '*Model*\n&lt;!channel&gt; &amp; co',
      ],
      'a model name cannot mention a channel',
    );
    assert.equal(
      context.elements[0].text,
      `<${PUBLIC_URL}/models/${encodeURIComponent(d.stem)}|Model page> · signal \`${open.id}\` · ${open.created_at}`,
    );
    assert.match(message!.body.text, /^🔴 OPEN SHORT · EURUSD 15min — Price /);

    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.delivered === 1, 5_000, 'the delivered count');
    const [status] = (await h.api.status(d.user_id, d.model_name, 10)).channels;
    assert.deepEqual([status!.channel, status!.target], ['slack', slack.origin], 'the secret path is never shown');
  });

  it('reaches the webhook exactly once per signal, in order, across 5xx, forced 429s and its own rate limit, never calling while held', async () => {
    const path = 'T001/B002/secret-b';
    const d = await toSlack(slack.webhook(path));
    slack.failNext(path, 503);
    slack.rateLimitNext(path, 1);
    slack.failNext(path, 500, 2);
    const events = Array.from({ length: 8 }, (_, i) => signal(d, i));
    for (const e of events) await publish(h.bus, e);
    await waitFor(() => postedIds(path).length >= 8, 30_000, 'eight Slack messages');
    await waitFor(
      async () => {
        const [s] = (await h.api.status(d.user_id, d.model_name, 10)).channels;
        return s!.pending === 0 && s!.delivered === 8;
      },
      10_000,
      'all delivered',
    );
    assert.deepEqual(
      postedIds(path),
      events.map((e) => e.id),
      'each once, in order',
    );
    assert.equal(slack.violations, 0, 'no request while the webhook was held by a 429');
    assert.ok(
      slack.attempts.filter((a) => a.webhook === path && a.status === 429).length >= 2,
      'the burst ran over: Slack’s own 429 was met too',
    );
  });

  it('an archived channel (410 channel_is_archived) dead-letters and disables the channel', async () => {
    const path = 'T001/B003/secret-c';
    const d = await toSlack(slack.webhook(path));
    slack.archive(path);
    await publish(h.bus, signal(d, 0));
    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 1, 10_000, 'a dead letter');
    const [status] = (await h.api.status(d.user_id, d.model_name, 10)).channels;
    assert.equal(status!.enabled, false);
    assert.match(status!.disabled_reason!, /slack webhook is gone \(Slack HTTP 410: channel_is_archived\)/);
    assert.equal(postedIds(path).length, 0);
  });
});
