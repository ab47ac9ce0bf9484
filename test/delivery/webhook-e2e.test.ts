/**
 * Webhook delivery end to end: real nats-server, the real delivery actor, real SignalEvents on
 * the SIGNALS stream, and a real local HTTP receiver verifying every signature with the
 * reference Standard Webhooks implementation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { deploy, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';
import type { HostLookup } from '../../src/delivery/index.ts';
import type { SignalEvent } from '../../schemas/live.ts';

/** Stand-in DNS: `hooks.test` is the receiver on loopback; `rebind.test` answers a private address. */
const lookup: HostLookup = async (host) => {
  if (host === 'hooks.test') return [{ address: '127.0.0.1', family: 4 }];
  if (host === 'rebind.test') return [{ address: '10.0.0.7', family: 4 }];
  throw Object.assign(new Error(`ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
};

const ids = (hooks: Array<{ headers: Record<string, unknown> }>) => hooks.map((h) => String(h.headers['webhook-id']));

describe('webhook delivery (NATS → delivery actor → HTTP receiver)', () => {
  let h: Harness;
  let receiver: WebhookReceiver;
  const down = new Set<string>();

  before(async () => {
    receiver = await startWebhookReceiver();
    receiver.respond(({ path }) => (down.has(path) ? 503 : 200));
    h = await startHarness({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '300', WEBHOOK_RETRY_WINDOW_MS: '60000' }, lookup);
  });
  after(async () => {
    await h?.close();
    await receiver?.stop();
  });

  it('POSTs each signal signed per Standard Webhooks, with the documented payload', async () => {
    const d = await deploy(h, { webhookUrl: `${receiver.url}/signed?token=abc` });
    receiver.secret('/signed?token=abc', d.webhook_secret!);
    const events = [signal(d, 0), signal(d, 1), signal(d, 2)];
    const sentFrom = Math.floor(Date.now() / 1000);
    for (const e of events) await publish(h.bus, e);
    await waitFor(() => receiver.accepted('/signed?token=abc').length === 3, 10_000, '3 webhooks');
    const receivedBy = Math.ceil(Date.now() / 1000);
    const got = receiver.accepted('/signed?token=abc');
    for (const [i, hook] of got.entries()) {
      assert.equal(hook.verified, true, hook.verifyError);
      assert.equal(hook.headers['content-type'], 'application/json');
      assert.equal(hook.headers['webhook-id'], events[i]!.id);
      const stamp = Number(hook.headers['webhook-timestamp']);
      assert.ok(stamp >= sentFrom && stamp <= receivedBy, `webhook-timestamp ${stamp}: seconds, when it was sent`);
      assert.deepEqual(hook.payload, { type: 'signal', timestamp: events[i]!.created_at, data: events[i] });
    }
    // The delivered count is written just after each delivery (not before the next one goes).
    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.delivered === 3, 5_000, 'the delivered count');
    const status = await h.api.status(d.user_id, d.model_name, 10);
    assert.equal(status.channels.length, 1);
    assert.deepEqual(
      { ...status.channels[0]!, last_delivered_at: null },
      {
        channel: 'webhook',
        enabled: true,
        disabled_reason: null,
        target: receiver.url,
        delivered: 3,
        pending: 0,
        last_delivered_at: null,
        last_delivered_id: events[2]!.id,
        current: null,
        dead_letters: 0,
        dead: [],
      },
    );
    // Found by stem too; another user's key gets 404.
    assert.equal((await h.api.status(d.user_id, d.stem, 10)).deployment_id, d.deployment_id);
    await assert.rejects(h.api.status(d.user_id + 1, d.model_name, 10), /not deployed by this key/);
  });

  it('connects to the address it checked (a name the system cannot resolve still reaches the checked IP)', async () => {
    const d = await deploy(h, { webhookUrl: `http://hooks.test:${receiver.port}/pinned` });
    receiver.secret('/pinned', d.webhook_secret!);
    await publish(h.bus, signal(d, 0));
    await waitFor(() => receiver.accepted('/pinned').length === 1, 10_000, 'the pinned webhook');
    const hook = receiver.accepted('/pinned')[0]!;
    assert.equal(hook.headers.host, `hooks.test:${receiver.port}`);
    assert.equal(hook.verified, true);
  });

  it('delivers a signal published before its deployment reached the actor, in order with the next ones', async () => {
    // Written to KV only after the first signal: the actor sees the signal of an unknown deployment first.
    const d = await deploy({ deployments: { put: async () => 0 } as never }, { webhookUrl: `${receiver.url}/late` });
    receiver.secret('/late', d.webhook_secret!);
    const sent = [signal(d, 0), signal(d, 1)];
    await publish(h.bus, sent[0]!);
    await new Promise((r) => setTimeout(r, 100));
    await h.deployments.put(`${d.user_id}.${Buffer.from(d.model_name, 'utf8').toString('hex')}`, d);
    await publish(h.bus, sent[1]!);
    await waitFor(() => receiver.accepted('/late').length === 2, 10_000, 'both signals');
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(
      ids(receiver.accepted('/late')),
      sent.map((e) => e.id),
    );
  });

  it('holds a failing deployment’s later signals, not other deployments’, and delivers all in order once the receiver is back', async () => {
    const failing = await deploy(h, { webhookUrl: `${receiver.url}/down` });
    const healthy = await deploy(h, { webhookUrl: `${receiver.url}/up` });
    receiver.secret('/down', failing.webhook_secret!);
    receiver.secret('/up', healthy.webhook_secret!);
    down.add('/down');
    const sent: SignalEvent[] = [];
    for (let i = 0; i < 5; i++) {
      const a = signal(failing, i);
      sent.push(a);
      await publish(h.bus, a);
      await publish(h.bus, signal(healthy, i));
    }
    await waitFor(() => receiver.accepted('/up').length === 5, 10_000, 'the healthy deployment’s 5 webhooks');
    await waitFor(() => receiver.requests.filter((r) => r.path === '/down').length >= 3, 10_000, '3 failed attempts');
    // Only the head signal was tried while the receiver was down.
    assert.deepEqual([...new Set(ids(receiver.requests.filter((r) => r.path === '/down')))], [sent[0]!.id]);
    const failingStatus = (await h.api.status(failing.user_id, failing.model_name, 10)).channels[0]!;
    assert.equal(failingStatus.delivered, 0);
    assert.equal(failingStatus.pending, 5);
    assert.equal(failingStatus.current?.signal_id, sent[0]!.id);
    assert.ok(failingStatus.current!.attempts >= 2);
    assert.equal(failingStatus.current?.last_error, 'HTTP 503: receiver says 503');
    assert.equal(failingStatus.current?.last_status, 503);
    assert.ok(Date.parse(failingStatus.current!.next_attempt_at) >= Date.parse(failingStatus.current!.last_attempt_at));

    down.delete('/down');
    await waitFor(() => receiver.accepted('/down').length === 5, 10_000, 'the 5 held signals');
    await waitFor(
      async () => (await h.api.status(failing.user_id, failing.model_name, 10)).channels[0]!.delivered === 5,
      5_000,
      'the delivered count',
    );
    const delivered = receiver.accepted('/down');
    assert.deepEqual(
      ids(delivered),
      sent.map((e) => e.id),
      'in order, each once',
    );
    assert.ok(delivered.every((d) => d.verified === true));
    const after = (await h.api.status(failing.user_id, failing.model_name, 10)).channels[0]!;
    assert.equal(after.delivered, 5);
    assert.equal(after.pending, 0);
    assert.equal(after.current, null);
  });

  it('survives a restart of the delivery actor mid-retry: the attempt count goes on and nothing is lost or doubled', async () => {
    const d = await deploy(h, { webhookUrl: `${receiver.url}/restart` });
    receiver.secret('/restart', d.webhook_secret!);
    down.add('/restart');
    const sent: SignalEvent[] = [];
    for (let i = 0; i < 3; i++) {
      sent.push(signal(d, i));
      await publish(h.bus, sent.at(-1)!);
    }
    // Two failed attempts on record (the receiver having seen them is not enough: the second
    // answer may still be on its way back when the actor stops, and is then not counted).
    await waitFor(
      async () => ((await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.current?.attempts ?? 0) >= 2,
      10_000,
      '2 failed attempts on record',
    );
    await h.stopActor();
    const before = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
    assert.ok(before.current!.attempts >= 2);
    // Signals published while no delivery actor runs are picked up by the next one.
    for (let i = 3; i < 6; i++) {
      sent.push(signal(d, i));
      await publish(h.bus, sent.at(-1)!);
    }
    await h.startActor();
    await waitFor(
      async () => ((await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.current?.attempts ?? 0) > before.current!.attempts,
      10_000,
      'a retry after the restart',
    );
    const resumed = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
    assert.equal(resumed.current?.first_attempt_at, before.current?.first_attempt_at, 'the same retry window goes on');
    assert.equal(resumed.pending, 6);
    down.delete('/restart');
    await waitFor(() => receiver.accepted('/restart').length === 6, 10_000, 'all 6 signals');
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(
      ids(receiver.accepted('/restart')),
      sent.map((e) => e.id),
    );
  });

  it('stops on 410 Gone: later signals go to the dead letters until a replay, which delivers them in order', async () => {
    const d = await deploy(h, { webhookUrl: `${receiver.url}/gone` });
    receiver.secret('/gone', d.webhook_secret!);
    receiver.respond(({ path }) => (path === '/gone' ? 410 : down.has(path) ? 503 : 200));
    const sent = [signal(d, 0), signal(d, 1), signal(d, 2)];
    for (const e of sent) await publish(h.bus, e);
    await waitFor(async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 3, 10_000, '3 dead letters');
    assert.equal(receiver.requests.filter((r) => r.path === '/gone').length, 1, 'one call, then no more');
    const status = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
    assert.equal(status.enabled, false);
    assert.match(status.disabled_reason!, /410 Gone/);
    assert.deepEqual(
      status.dead.map((x) => x.signal_id),
      sent.map((e) => e.id),
    );
    assert.equal(status.dead[0]!.last_status, 410);
    assert.equal(status.dead[0]!.attempts, 1);
    assert.match(status.dead[1]!.last_error, /disabled/);

    receiver.respond(({ path }) => (down.has(path) ? 503 : 200));
    const replay = await h.api.replay(d.user_id, d.model_name, {});
    assert.deepEqual(replay.channels, [{ channel: 'webhook', replayed: 3, re_enabled: true }]);
    await waitFor(() => receiver.accepted('/gone').length === 3, 10_000, 'the replayed signals');
    assert.deepEqual(
      ids(receiver.accepted('/gone')),
      sent.map((e) => e.id),
    );
    await waitFor(
      async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 0,
      5_000,
      'no dead letters left',
    );
    const after = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
    assert.equal(after.enabled, true);
    assert.equal(after.delivered, 3);
  });

  describe('with a short retry window', () => {
    before(async () => {
      await h.restartActor({ WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '200', WEBHOOK_RETRY_WINDOW_MS: '700' });
    });

    it('moves a signal to the dead letters after the window, then goes on; a replay delivers the dead ones', async () => {
      const d = await deploy(h, { webhookUrl: `${receiver.url}/dead` });
      receiver.secret('/dead', d.webhook_secret!);
      down.add('/dead');
      const dead = [signal(d, 0), signal(d, 1)];
      for (const e of dead) await publish(h.bus, e);
      await waitFor(
        async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 2,
        10_000,
        '2 dead letters',
      );
      const status = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
      assert.deepEqual(
        status.dead.map((x) => [x.signal_id, x.status, x.last_status]),
        dead.map((e) => [e.id, 'dead', 503]),
      );
      assert.ok(
        status.dead.every((x) => x.attempts >= 3),
        `attempts ${status.dead.map((x) => x.attempts)}`,
      );
      assert.ok(status.dead.every((x) => Date.parse(x.died_at) - Date.parse(x.first_attempt_at!) >= 690));
      assert.deepEqual(status.dead[0]!.signal, dead[0]);
      assert.equal(status.pending, 0);

      // The queue is not stuck: a new signal goes through once the receiver is back.
      down.delete('/dead');
      const fresh = signal(d, 2);
      await publish(h.bus, fresh);
      await waitFor(() => receiver.accepted('/dead').length === 1, 10_000, 'the fresh signal');
      assert.deepEqual(ids(receiver.accepted('/dead')), [fresh.id]);

      const replay = await h.api.replay(d.user_id, d.model_name, { channel: 'webhook', signal_ids: [dead[1]!.id] });
      assert.equal(replay.replayed, 1);
      await waitFor(() => receiver.accepted('/dead').length === 2, 10_000, 'the replayed signal');
      assert.deepEqual(ids(receiver.accepted('/dead')), [fresh.id, dead[1]!.id]);
      await h.api.replay(d.user_id, d.model_name, {});
      await waitFor(() => receiver.accepted('/dead').length === 3, 10_000, 'the last dead letter');
      assert.deepEqual(ids(receiver.accepted('/dead')), [fresh.id, dead[1]!.id, dead[0]!.id]);
      assert.ok(receiver.accepted('/dead').every((x) => x.verified === true));
      await waitFor(
        async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 0,
        5_000,
        'no dead letters left',
      );
      assert.equal((await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.delivered, 3);
    });

    it('checks the target again at send time (DNS rebinding): a name now resolving to a private address is not called', async () => {
      const d = await deploy(h, { webhookUrl: `http://rebind.test:${receiver.port}/rebind` });
      await publish(h.bus, signal(d, 0));
      await waitFor(
        async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 1,
        10_000,
        'the refused signal',
      );
      const letter = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead[0]!;
      assert.match(letter.last_error, /resolves to 10\.0\.0\.7, which is a private address/);
      assert.equal(letter.last_status, null);
      assert.equal(receiver.requests.filter((r) => r.path === '/rebind').length, 0);
    });

    it('times out a receiver that does not answer, and retries', async () => {
      await h.restartActor({
        WEBHOOK_RETRY_BASE_MS: '100',
        WEBHOOK_RETRY_MAX_MS: '200',
        WEBHOOK_RETRY_WINDOW_MS: '60000',
        WEBHOOK_TIMEOUT_MS: '300',
      });
      const { createServer } = await import('node:http');
      let calls = 0;
      const hung = createServer(() => void calls++);
      await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
      try {
        const port = (hung.address() as { port: number }).port;
        const d = await deploy(h, { webhookUrl: `http://127.0.0.1:${port}/hang` });
        await publish(h.bus, signal(d, 0));
        await waitFor(
          async () => ((await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.current?.attempts ?? 0) >= 2,
          10_000,
          '2 timed-out attempts',
        );
        const status = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
        assert.equal(status.current?.last_error, 'no answer within 300 ms');
        assert.ok(calls >= 2);
      } finally {
        hung.closeAllConnections();
        await new Promise<void>((r) => hung.close(() => r()));
      }
    });
  });
});
