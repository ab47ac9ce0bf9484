/**
 * The delivery process's catch-up reader on a real nats-server: workers starting with stored
 * signals after their cursor get exactly those, in order, from one ordered consumer (no read of
 * the stream per signal); live signals pushed meanwhile wait for the stored ones before them; a
 * reader that gives up leaves the workers to read the stream themselves; and the delivery actor
 * drains a backlog of many deployments, in order per deployment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChannelWorker, DeliveryActor, type ChannelSender } from '../../actors/delivery/index.ts';
import { CatchUpReader } from '../../actors/delivery/catch-up-reader.ts';
import { openBucket, type JsonKv } from '../../src/bus/index.ts';
import { SignalLog, stateKey } from '../../src/delivery/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { Buckets, DeliveryBuckets } from '../../schemas/messages.ts';
import { loadConfig } from '../../src/config.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { deploy, log, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';

/** A sender that records what it was asked to send, per deployment. */
function recordingSender() {
  const sent = new Map<string, string[]>();
  const sender: ChannelSender = {
    channel: 'webhook',
    send: async (event) => {
      sent.set(event.deployment_id, [...(sent.get(event.deployment_id) ?? []), event.id]);
      return { ok: true, status: 200 };
    },
  };
  return { sent, sender };
}

/** The real SignalLog, counting its reads by subject (the per-signal path the reader replaces). */
function countingSignals(h: Harness) {
  const log = new SignalLog(h.bus);
  const counter = { reads: 0 };
  return {
    counter,
    signals: {
      next: (deploymentId: string, fromSeq: number) => {
        counter.reads++;
        return log.next(deploymentId, fromSeq);
      },
    },
  };
}

describe('CatchUpReader', () => {
  let h: Harness;
  let state: JsonKv<typeof DeliveryBuckets.state.schema>;
  let dead: JsonKv<typeof DeliveryBuckets.dead.schema>;
  before(async () => {
    h = await startHarness({});
    // The workers here are the only ones: no actor delivers beside them.
    await h.stopActor();
    state = await openBucket(h.bus, DeliveryBuckets.state);
    dead = await openBucket(h.bus, DeliveryBuckets.dead);
  });
  after(() => h?.close());

  /** A deployment with `count` stored signals whose delivery state says the first `delivered` went out. */
  async function withBacklog(count: number, delivered: number): Promise<{ d: DeploymentRecord; events: SignalEvent[]; seqs: number[] }> {
    const d = await deploy(h, { webhookUrl: 'http://hooks.test/x' });
    const events: SignalEvent[] = [];
    const seqs: number[] = [];
    for (let n = 0; n < count; n++) {
      events.push(signal(d, n));
      seqs.push(await publish(h.bus, events[n]!));
    }
    if (delivered > 0) {
      await state.put(stateKey('webhook', d.deployment_id), {
        deployment_id: d.deployment_id,
        channel: 'webhook',
        user_id: d.user_id,
        cursor: seqs[delivered - 1]!,
        delivered,
        dead_lettered: 0,
        last_delivered_at: Date.now(),
        last_delivered_id: events[delivered - 1]!.id,
        current: null,
        replay: [],
        disabled: null,
        updated_at: Date.now(),
      });
    }
    return { d, events, seqs };
  }

  /** `count` deployments with webhooks to `/<prefix><i>` of the receiver, and (empty) lists of the signal ids published to each path. */
  async function deployTo(receiver: WebhookReceiver, prefix: string, count: number) {
    const deployed: DeploymentRecord[] = [];
    for (let i = 0; i < count; i++) {
      const d = await deploy(h, { webhookUrl: `${receiver.url}/${prefix}${i}` });
      receiver.secret(`/${prefix}${i}`, d.webhook_secret!);
      deployed.push(d);
    }
    return { deployed, published: new Map<string, string[]>(deployed.map((_, i) => [`/${prefix}${i}`, []])) };
  }

  const open = (d: DeploymentRecord, sender: ChannelSender, signals: Pick<SignalLog, 'next'>, catchUp: CatchUpReader) =>
    ChannelWorker.open({
      channel: 'webhook',
      deploymentId: d.deployment_id,
      userId: d.user_id,
      state,
      dead,
      signals,
      catchUp,
      deployment: () => d,
      sender,
      limit: concurrencyLimit(8),
      policy: { baseMs: 100, maxMs: 200, windowMs: 60_000, jitter: 0 },
      log,
    });

  it('workers starting with stored signals after their cursor send exactly those, in order, with no read per signal', async () => {
    const a = await withBacklog(6, 2);
    const b = await withBacklog(4, 0);
    const c = await withBacklog(3, 3);
    const { sent, sender } = recordingSender();
    const { counter, signals } = countingSignals(h);
    const reader = new CatchUpReader({ bus: h.bus, signals, log });
    const workers = await Promise.all([a, b, c].map(({ d }) => open(d, sender, signals, reader)));
    try {
      // A live signal pushed (as the live consumer does) before the stored ones are through waits behind them.
      const late = signal(a.d, 6);
      const lateSeq = await publish(h.bus, late);
      workers[0]!.push(lateSeq, late);
      await waitFor(
        () => (sent.get(a.d.deployment_id)?.length ?? 0) >= 5 && (sent.get(b.d.deployment_id)?.length ?? 0) >= 4,
        10_000,
        'the backlogs sent',
      );
      assert.deepEqual(
        sent.get(a.d.deployment_id),
        [...a.events.slice(2), late].map((e) => e.id),
      );
      assert.deepEqual(
        sent.get(b.d.deployment_id),
        b.events.map((e) => e.id),
      );
      assert.equal(sent.get(c.d.deployment_id), undefined, 'a deployment delivered to its last stored signal sends nothing');
      assert.equal(counter.reads, 0, 'no stream read per deployment: the reader brought them');
      // Caught up: a later signal comes live alone.
      const next = signal(c.d, 3);
      workers[2]!.push(await publish(h.bus, next), next);
      await waitFor(() => sent.get(c.d.deployment_id)?.length === 1, 10_000, 'the live signal');
      assert.deepEqual(sent.get(c.d.deployment_id), [next.id]);
      assert.equal(workers[0]!.snapshot.cursor, lateSeq);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await reader.close();
    }
  });

  it('a deployment far behind the stream’s end has its next signal looked up by subject, then rides the reader', async () => {
    const a = await withBacklog(3, 1);
    // Others' signals after it: with farBehind 2 its cursor counts as far behind.
    await withBacklog(4, 0);
    const { sent, sender } = recordingSender();
    const { counter, signals } = countingSignals(h);
    const reader = new CatchUpReader({ bus: h.bus, signals, log, farBehind: 2 });
    const worker = await open(a.d, sender, signals, reader);
    try {
      await waitFor(() => sent.get(a.d.deployment_id)?.length === 2, 10_000, 'the backlog sent');
      assert.deepEqual(
        sent.get(a.d.deployment_id),
        a.events.slice(1).map((e) => e.id),
      );
      assert.equal(counter.reads, 1, 'one look-up, not one read per signal');
    } finally {
      await worker.stop();
      await reader.close();
    }
  });

  it('a reader that gives up leaves the workers to read the stream themselves: nothing skipped', async () => {
    const a = await withBacklog(4, 1);
    const { sent, sender } = recordingSender();
    const { counter, signals } = countingSignals(h);
    const reader = new CatchUpReader({ bus: h.bus, signals, log });
    await reader.close();
    const worker = await open(a.d, sender, signals, reader);
    try {
      await waitFor(() => sent.get(a.d.deployment_id)?.length === 3, 10_000, 'the backlog sent');
      assert.deepEqual(
        sent.get(a.d.deployment_id),
        a.events.slice(1).map((e) => e.id),
      );
      assert.ok(counter.reads >= 3, `read one at a time: ${counter.reads}`);
    } finally {
      await worker.stop();
    }
  });

  it('the delivery actor drains a backlog of 500 deployments, each in order, resuming at each cursor', async () => {
    const receiver = await startWebhookReceiver();
    try {
      const { deployed, published } = await deployTo(receiver, 'd', 500);
      const publishRound = async (n: number) => {
        for (let i = 0; i < deployed.length; i += 100) {
          const events = deployed.slice(i, i + 100).map((d) => signal(d, n));
          await Promise.all(events.map((e) => publish(h.bus, e)));
          events.forEach((e, k) => published.get(`/d${i + k}`)!.push(e.id));
        }
      };
      const firstSeen = (path: string) => [...new Set(receiver.accepted(path).map((r) => String(r.headers['webhook-id'])))];
      const allDelivered = () => [...published].every(([path, ids]) => firstSeen(path).length === ids.length);
      // One signal each, delivered live: every deployment has a cursor in KV.
      await h.startActor();
      await publishRound(0);
      await waitFor(allDelivered, 60_000, 'the first round delivered');
      // Stopped; two more each stored meanwhile; a new actor catches up on all of them.
      await h.stopActor();
      await publishRound(1);
      await publishRound(2);
      await h.startActor();
      await waitFor(allDelivered, 120_000, 'every backlog delivered');
      for (const [path, ids] of published) assert.deepEqual(firstSeen(path), ids, `${path}: every signal, in order`);
      assert.ok(
        receiver.requests.every((r) => r.verified === true),
        'every webhook signed',
      );
    } finally {
      await h.stopActor();
      await receiver.stop();
    }
  });

  it('take-overs mid-catch-up (a hand-over to a joining process, then a crash) go on at each cursor: nothing skipped, in order', async () => {
    const receiver = await startWebhookReceiver();
    const { deployed, published } = await deployTo(receiver, 't', 20);
    for (let n = 0; n < 10; n++) {
      for (const [i, d] of deployed.entries()) {
        const e = signal(d, n);
        await publish(h.bus, e);
        published.get(`/t${i}`)!.push(e.id);
      }
    }
    // Half the receivers fail until after the crash: those deployments are mid-catch-up (their
    // backlog stored, not sent) while the processes change.
    let blocked = true;
    const odd = (path: string) => Number(path.slice(2)) % 2 === 1;
    receiver.respond(({ path }) => (blocked && odd(path) ? 503 : 200));
    const firstSeen = (path: string) => [...new Set(receiver.accepted(path).map((r) => String(r.headers['webhook-id'])))];
    const config = loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'loopback', WEBHOOK_RETRY_BASE_MS: '100', WEBHOOK_RETRY_MAX_MS: '300' });
    const first = new DeliveryActor({ bus: h.bus, config, log, renewMs: 500 });
    const second = new DeliveryActor({ bus: h.bus, config, log, renewMs: 500 });
    try {
      await first.start();
      await waitFor(
        () => [...published.keys()].filter(odd).every((path) => receiver.requests.some((r) => r.path === path)),
        20_000,
        'every blocked deployment trying',
      );
      // A second process joins: the first hands half its deployments over, mid-catch-up.
      await second.start();
      await waitFor(() => second.stats().deployments > 0, 20_000, 'the hand-over');
      // The first dies without a goodbye: its deployments move once its heartbeat expires.
      await first.stop(false);
      blocked = false;
      await waitFor(() => [...published].every(([path, ids]) => firstSeen(path).length === ids.length), 60_000, 'every signal delivered');
      for (const [path, ids] of published) assert.deepEqual(firstSeen(path), ids, `${path}: every signal, in order`);
      const leases = await openBucket(h.bus, Buckets.leases);
      for (const d of deployed)
        assert.equal((await leases.get(`delivery.${d.deployment_id}`))?.value.host, second.hostId, 'the survivor holds every deployment');
    } finally {
      await first.stop(false);
      await second.stop();
      await receiver.stop();
    }
  });
});
