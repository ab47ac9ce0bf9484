/**
 * ProgressJournal with real ChannelWorkers on a real nats-server: webhook deliveries are kept in
 * the process's pages instead of a state write each, and nothing a trader relies on moves — the
 * deliveries API shows them, a stop writes them to the state, a holder that dies without writing
 * them is followed by one that resumes after them (nothing delivered is sent twice), a replay
 * while they are held keeps both, and a journal holding them too long writes them by itself.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ProgressJournal, type ChannelSender, type ChannelWorkerDeps, type SendOutcome } from '../../actors/delivery/index.ts';
import type { DeploymentRecord, SignalEvent } from '../../schemas/live.ts';
import { openBucket } from '../../src/bus/index.ts';
import { progressPage, readProgressPage, storedProgress, type ProgressKv } from '../../src/delivery/progress.ts';
import { DeliveryBuckets } from '../../schemas/messages.ts';
import { deploy, log, openWebhookWorker, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';

describe('ProgressJournal', () => {
  let h: Harness;
  let progress: ProgressKv;
  before(async () => {
    h = await startHarness({});
    // The workers here are the only ones: no actor delivers beside them.
    await h.stopActor();
    progress = await openBucket(h.bus, DeliveryBuckets.progress);
  });
  after(() => h?.close());

  const journal = (hostId: string, options: { checkpointAfterMs?: number; entriesPerS?: number } = {}) =>
    new ProgressJournal({ kv: progress, hostId, log, flushMs: 50, ...options });

  /** A sender that records what it was given and answers `answer` (200 unless it says otherwise). */
  const recorder = (answer: (event: SignalEvent, n: number) => SendOutcome = () => ({ ok: true, status: 200 })) => {
    const sent: string[] = [];
    const sender: ChannelSender = {
      channel: 'webhook',
      send: async (event) => {
        sent.push(event.id);
        return answer(event, sent.length);
      },
    };
    return { sent, sender };
  };

  const openWorker = (d: DeploymentRecord, sender: ChannelSender, options: Partial<ChannelWorkerDeps>) =>
    openWebhookWorker(h, d, sender, { limit: concurrencyLimit(8), ...options });

  const stateOf = async (d: DeploymentRecord) =>
    (await (await openBucket(h.bus, DeliveryBuckets.state)).get(`webhook.${d.deployment_id}`))!;

  it('keeps deliveries in pages, not a state write each: the API shows them, a stop writes them, then the pages empty', async () => {
    const j = journal('host-pages');
    const state = await openBucket(h.bus, DeliveryBuckets.state);
    let stateWrites = 0;
    const update = state.update.bind(state);
    state.update = (...args) => {
      stateWrites++;
      return update(...args);
    };
    const deployments = await Promise.all(Array.from({ length: 12 }, (_, i) => deploy(h, { webhookUrl: `http://hooks.test/p${i}` })));
    const last = new Map<string, { seq: number; id: string }>();
    for (const d of deployments) {
      for (let n = 0; n < 4; n++) {
        const event = signal(d, n);
        last.set(d.deployment_id, { seq: await publish(h.bus, event), id: event.id });
      }
    }
    const { sent, sender } = recorder();
    const workers = await Promise.all(deployments.map((d) => openWorker(d, sender, { state, journal: j })));
    try {
      await waitFor(() => workers.every((w) => w.snapshot.delivered === 4), 10_000, 'every signal delivered');
      assert.equal(sent.length, 48);
      for (const d of deployments) {
        const key = `webhook.${d.deployment_id}`;
        await waitFor(async () => (await storedProgress(progress, key))?.cursor === last.get(d.deployment_id)!.seq, 5_000, 'the page');
        const status = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
        assert.equal(status.delivered, 4);
        assert.equal(status.pending, 0);
        assert.equal(status.last_delivered_id, last.get(d.deployment_id)!.id);
        // The state itself is as the worker created it.
        assert.equal((await stateOf(d)).value.delivered, 0);
      }
      assert.equal(stateWrites, 0, 'no state write per delivery');
      assert.ok(j.writes < sent.length, `${j.writes} page writes for ${sent.length} deliveries`);
    } finally {
      await Promise.all(workers.map((w) => w.stop()));
      await j.close();
    }
    for (const [i, d] of deployments.entries()) {
      const stored = (await stateOf(d)).value;
      assert.deepEqual(stored, workers[i]!.snapshot);
      assert.equal(stored.cursor, last.get(d.deployment_id)!.seq);
      assert.equal(stored.delivered, 4);
      assert.equal((await readProgressPage(progress, progressPage(`webhook.${d.deployment_id}`))).size, 0, 'its page is gone');
    }
  });

  it('a holder that dies before writing its state: the next one resumes after what its journal holds', async () => {
    const d = await deploy(h, { webhookUrl: 'http://hooks.test/takeover' });
    const events = [0, 1, 2, 3].map((n) => signal(d, n));
    const seqs: number[] = [];
    for (const event of events.slice(0, 3)) seqs.push(await publish(h.bus, event));
    const key = `webhook.${d.deployment_id}`;

    let alive = true;
    const fence = new AbortController().signal;
    const ja = journal('host-a');
    const a = recorder();
    const first = await openWorker(d, a.sender, { journal: ja, lease: { leaseLeftMs: () => (alive ? 60_000 : 0), fence: () => fence } });
    await waitFor(async () => (await storedProgress(progress, key))?.cursor === seqs[2], 10_000, 'the first holder’s page');
    // Its lease is gone (as for a process that died): it sends nothing more and never wrote its state.
    alive = false;
    assert.equal((await stateOf(d)).value.cursor, 0);

    seqs.push(await publish(h.bus, events[3]!));
    const jb = journal('host-b');
    const b = recorder();
    const second = await openWorker(d, b.sender, { journal: jb });
    try {
      await waitFor(() => second.snapshot.delivered === 4, 10_000, 'the fourth signal delivered');
      assert.deepEqual(
        a.sent,
        events.slice(0, 3).map((e) => e.id),
      );
      assert.deepEqual(b.sent, [events[3]!.id], 'only what the first holder had not delivered');
      // Taken over, the first holder's deliveries were written to the state at once.
      const stored = (await stateOf(d)).value;
      assert.ok(stored.cursor >= seqs[2]!, `cursor ${stored.cursor}`);
    } finally {
      await second.stop();
      await jb.close();
    }
    // The first holder's late stop writes its older progress: the state does not go back.
    await first.stop();
    await ja.close();
    const stored = (await stateOf(d)).value;
    assert.equal(stored.cursor, seqs[3]);
    assert.equal(stored.delivered, 4);
    assert.equal(stored.last_delivered_id, events[3]!.id);
  });

  it('a replay while deliveries are held: the dead letter goes again, the held deliveries are not sent twice', async () => {
    const d = await deploy(h, { webhookUrl: 'http://hooks.test/replay' });
    const events = [0, 1, 2].map((n) => signal(d, n));
    const seqs: number[] = [];
    for (const event of events) seqs.push(await publish(h.bus, event));
    const j = journal('host-replay');
    // The first signal is refused for good the first time, accepted when replayed.
    const { sent, sender } = recorder((event, n) =>
      event.id === events[0]!.id && n === 1 ? { ok: false, permanent: true, status: 422, error: 'HTTP 422' } : { ok: true, status: 200 },
    );
    const worker = await openWorker(d, sender, { journal: j });
    try {
      await waitFor(() => worker.snapshot.delivered === 2 && worker.snapshot.dead_lettered === 1, 10_000, 'one dead, two delivered');
      const replayed = await h.api.replay(d.user_id, d.model_name, {});
      assert.equal(replayed.replayed, 1);
      worker.kick();
      await waitFor(() => worker.snapshot.delivered === 3 && worker.snapshot.replay.length === 0, 10_000, 'the replay delivered');
      assert.deepEqual(sent, [events[0]!.id, events[1]!.id, events[2]!.id, events[0]!.id]);
    } finally {
      await worker.stop();
      await j.close();
    }
    const stored = (await stateOf(d)).value;
    assert.equal(stored.cursor, seqs[2]);
    assert.equal(stored.delivered, 3);
    assert.equal(stored.dead_lettered, 1);
    assert.deepEqual(stored.replay, []);
    const status = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
    assert.equal(status.dead_letters, 0);
  });

  it('deliveries held longer than checkpointAfterMs are written to the state without a stop', async () => {
    const d = await deploy(h, { webhookUrl: 'http://hooks.test/aged' });
    const event = signal(d, 0);
    const seq = await publish(h.bus, event);
    const j = journal('host-aged', { checkpointAfterMs: 300 });
    const worker = await openWorker(d, recorder().sender, { journal: j });
    try {
      await waitFor(async () => (await stateOf(d)).value.cursor === seq, 10_000, 'the state written');
      assert.equal((await stateOf(d)).value.last_delivered_id, event.id);
      await waitFor(async () => (await storedProgress(progress, `webhook.${d.deployment_id}`)) === null, 5_000, 'the entry gone');
    } finally {
      await worker.stop();
      await j.close();
    }
  });

  it('after a flush of many entries the next waits as long as rewriting them takes, so a burst does not rewrite big pages every flush', async () => {
    // 400 entries held at 1,000 a second: the next flush waits 400 ms, not the 50 ms of a few.
    const j = journal('host-rate', { entriesPerS: 1_000 });
    const progressAt = (cursor: number) => ({
      cursor,
      delivered: cursor,
      last_delivered_at: cursor,
      last_delivered_id: `sig_${cursor}`,
      updated_at: cursor,
    });
    const keys = Array.from({ length: 400 }, (_, i) => `webhook.dep_rate_${i}`);
    try {
      for (const key of keys) j.record(key, progressAt(1), () => undefined);
      const pages = new Set(keys.map(progressPage)).size;
      await waitFor(async () => j.writes === pages, 5_000, 'the first flush, every page');
      const first = j.writes;
      j.record(keys[0]!, progressAt(2), () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.equal(j.writes, first, 'no page written within 250 ms of the next delivery');
      assert.equal((await storedProgress(progress, keys[0]!))?.cursor, 1);
      await waitFor(async () => (await storedProgress(progress, keys[0]!))?.cursor === 2, 5_000, 'the next flush');
      assert.equal(j.writes, first + 1, 'one page: the one that changed');
    } finally {
      await j.close();
    }
  });
});
