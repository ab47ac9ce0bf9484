/**
 * The delivery API on the real service (edge + embedded NATS + delivery actor): status, dead
 * letters and replay over HTTP, and delivery across a restart of the whole service.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { DeliveriesResponse, ReplayResponse } from '../../schemas/delivery.ts';
import { Buckets } from '../../schemas/messages.ts';
import { startTestService, type TestService } from '../helpers/service.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { deploy, publish, signal, waitFor } from './harness.ts';

describe('delivery API', () => {
  let s: TestService;
  let receiver: WebhookReceiver;
  let key: string;
  let userId: number;
  let up = false;
  const logs: string[] = [];
  const secrets: string[] = [];

  before(async () => {
    receiver = await startWebhookReceiver();
    receiver.respond(() => (up ? 200 : 503));
    s = await startTestService(
      {
        MARKET_FEED: 'none',
        RATE_LIMIT_PER_MIN: '100000',
        WEBHOOK_ALLOW_PRIVATE: 'loopback',
        WEBHOOK_RETRY_BASE_MS: '50',
        WEBHOOK_RETRY_MAX_MS: '100',
        WEBHOOK_RETRY_WINDOW_MS: '500',
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
    await receiver?.stop();
  });

  const deliveries = async (model: string) => {
    const res = await s.api('GET', `/api/v1/deploy/${encodeURIComponent(model)}/deliveries`, { key });
    assert.equal(res.status, 200, res.text);
    return DeliveriesResponse.parse(res.body);
  };

  /** A webhook deployment of `modelName` (written as the deploy API writes it) to the receiver at `path`. */
  const deployTo = async (modelName: string, path: string) => {
    const deployments = await openBucket(s.service.bus, Buckets.deployments);
    const d = await deploy({ deployments }, { userId, modelName, webhookUrl: `${receiver.url}${path}` });
    receiver.secret(path, d.webhook_secret!);
    secrets.push(d.webhook_secret!);
    return d;
  };

  it('shows dead letters after the retry window and replays them over HTTP', async () => {
    const d = await deployTo('Api Model', '/api');
    const sent = [signal(d, 0), signal(d, 1)];
    for (const e of sent) await publish(s.service.bus, e);
    await waitFor(async () => (await deliveries('Api Model')).channels[0]!.dead_letters === 2, 15_000, '2 dead letters');

    const status = await deliveries(d.stem);
    assert.equal(status.model, d.stem);
    assert.equal(status.deployment_id, d.deployment_id);
    assert.equal(status.retry_window_s, 0.5);
    const webhook = status.channels[0]!;
    assert.equal(webhook.channel, 'webhook');
    assert.equal(webhook.delivered, 0);
    assert.equal(webhook.pending, 0);
    assert.deepEqual(
      webhook.dead.map((x) => [x.signal_id, x.status, x.last_status, x.last_error]),
      sent.map((e) => [e.id, 'dead', 503, 'HTTP 503: receiver says 503']),
    );

    up = true;
    const replay = await s.api('POST', `/api/v1/deploy/${encodeURIComponent('Api Model')}/deliveries/replay`, { key });
    assert.equal(replay.status, 200, replay.text);
    assert.deepEqual(ReplayResponse.parse(replay.body), {
      model: d.stem,
      deployment_id: d.deployment_id,
      replayed: 2,
      channels: [{ channel: 'webhook', replayed: 2, re_enabled: false }],
    });
    await waitFor(() => receiver.accepted('/api').length === 2, 10_000, 'the replayed signals');
    assert.deepEqual(
      receiver.accepted('/api').map((r) => r.headers['webhook-id']),
      sent.map((e) => e.id),
    );
    assert.ok(receiver.accepted('/api').every((r) => r.verified === true));
    await waitFor(async () => (await deliveries('Api Model')).channels[0]!.dead_letters === 0, 5_000, 'no dead letters left');
    assert.equal((await deliveries('Api Model')).channels[0]!.delivered, 2);

    // A replay with nothing dead is a no-op; a bad body is a 400.
    const again = await s.api('POST', '/api/v1/deploy/Api%20Model/deliveries/replay', { key, body: { channel: 'webhook' } });
    assert.equal(again.body.replayed, 0);
    const bad = await s.api('POST', '/api/v1/deploy/Api%20Model/deliveries/replay', { key, body: { channel: 'pigeon' } });
    assert.equal(bad.status, 400);
  });

  it('answers 404 for a model the caller has not deployed and 401 without a key', async () => {
    const missing = await s.api('GET', '/api/v1/deploy/nope/deliveries', { key });
    assert.equal(missing.status, 404);
    assert.match(missing.body.error, /not deployed by this key/);
    assert.equal((await s.api('POST', '/api/v1/deploy/nope/deliveries/replay', { key })).status, 404);
    assert.equal((await s.api('GET', '/api/v1/deploy/nope/deliveries')).status, 401);
    assert.equal((await s.api('GET', '/api/v1/messenger/code')).status, 401);
  });

  it('says clearly that the messenger is off without a bot token', async () => {
    const res = await s.api('GET', '/api/v1/messenger/code', { key });
    assert.equal(res.status, 200);
    assert.equal(res.body.enabled, false);
    assert.equal(res.body.status, 'disabled');
    assert.match(res.body.message, /TELEGRAM_BOT_TOKEN/);
    const hook = await s.api('POST', '/api/v1/messenger/telegram-webhook', { body: { update_id: 1 } });
    assert.equal(hook.status, 404);
  });

  it('documents the routes in /openapi.json', async () => {
    const doc = (await s.api('GET', '/openapi.json')).body;
    const get = doc.paths['/api/v1/deploy/{model}/deliveries'].get;
    assert.match(get.description, /strictly in order/);
    assert.ok(get.responses['200'] && get.responses['404'] && get.responses['401']);
    assert.ok(doc.paths['/api/v1/deploy/{model}/deliveries/replay'].post);
    assert.match(doc.paths['/api/v1/messenger/code'].get.description, /deep link/);
  });

  it('a signal whose retry window ran out before a restart stays a dead letter; the next signal is delivered after the restart', async () => {
    up = false;
    const d = await deployTo('Restart Model', '/svc-restart');
    const first = signal(d, 0);
    await publish(s.service.bus, first);
    await waitFor(
      async () => (await deliveries('Restart Model')).channels[0]!.dead_letters === 1,
      10_000,
      'the first signal dead (0.5 s window)',
    );
    await s.restart({ WEBHOOK_RETRY_WINDOW_MS: '600000' });
    up = true;
    const second = signal(d, 1);
    await publish(s.service.bus, second);
    await waitFor(() => receiver.accepted('/svc-restart').length >= 1, 10_000, 'delivery after the restart');
    await waitFor(async () => (await deliveries('Restart Model')).channels[0]!.delivered === 1, 5_000, 'the delivered count');
    assert.deepEqual(
      receiver.accepted('/svc-restart').map((r) => r.headers['webhook-id']),
      [second.id],
    );
    const status = (await deliveries('Restart Model')).channels[0]!;
    assert.deepEqual(
      status.dead.map((x) => x.signal_id),
      [first.id],
      'the dead letter survived the restart',
    );
  });

  it('a signal still inside its retry window at a restart is delivered after it, once and before the next', async () => {
    // A retry window (10 min) that outlasts any restart, whatever ran before this test.
    await s.restart({ WEBHOOK_RETRY_WINDOW_MS: '600000' });
    up = false;
    const d = await deployTo('Window Model', '/svc-window');
    const first = signal(d, 0);
    await publish(s.service.bus, first);
    await waitFor(() => receiver.requests.some((r) => r.path === '/svc-window'), 10_000, 'a first, refused attempt');
    await s.restart();
    up = true;
    const second = signal(d, 1);
    await publish(s.service.bus, second);
    await waitFor(async () => (await deliveries('Window Model')).channels[0]!.delivered === 2, 10_000, 'both delivered after the restart');
    assert.deepEqual(
      receiver.accepted('/svc-window').map((r) => r.headers['webhook-id']),
      [first.id, second.id],
    );
    assert.equal((await deliveries('Window Model')).channels[0]!.dead_letters, 0);
  });

  it('never logs a webhook secret', () => {
    assert.ok(
      logs.some((l) => l.includes('delivery failed; will retry')),
      'failures were logged',
    );
    for (const secret of secrets) {
      const key = secret.slice('whsec_'.length);
      assert.equal(logs.filter((l) => l.includes(key)).length, 0);
    }
    assert.equal(logs.filter((l) => l.includes('whsec_')).length, 0);
  });
});
