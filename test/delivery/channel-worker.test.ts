/**
 * ChannelWorker with a sender that throws (as the webhook sender did on `http://%E0@host/`):
 * the exception is a failed attempt — the retry schedule, then a dead letter the deliveries API
 * shows — never a hot loop. And its lease fence: a send in flight when the lease runs out is cut
 * off and not counted (the next holder sends it), while a lease renewed meanwhile keeps it going.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type ChannelSender, type ChannelWorkerDeps, type SendOutcome } from '../../actors/delivery/index.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { openBucket } from '../../src/bus/index.ts';
import { DeliveryBuckets } from '../../schemas/messages.ts';
import { deploy, openWebhookWorker, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';
import { concurrencyLimit } from '../../src/lib/concurrency-limit.ts';
import { LeaseFence } from '../../src/kernel/index.ts';

describe('ChannelWorker', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({});
    // This test's worker is the only one: no actor delivers the deployment beside it.
    await h.stopActor();
  });
  after(() => h?.close());

  const openWorker = (d: DeploymentRecord, sender: ChannelSender, options: Partial<ChannelWorkerDeps> = {}) =>
    openWebhookWorker(h, d, sender, options);

  it('a sender that throws: its attempts follow the retry schedule and end as a dead letter', async () => {
    const d = await deploy(h, { webhookUrl: 'http://hooks.test/x' });
    let calls = 0;
    const sender: ChannelSender = {
      channel: 'webhook',
      send: async () => {
        calls++;
        throw new URIError('URI malformed');
      },
    };
    await publish(h.bus, signal(d, 0));
    // A 2 s window: a few attempts even on a loaded machine, where each may take a while.
    const worker = await openWorker(d, sender, { policy: { baseMs: 100, maxMs: 200, windowMs: 2_000, jitter: 0 } });
    try {
      // While it retries, the attempt is on record (the deliveries API's `current`).
      await waitFor(() => worker.snapshot.current !== null, 5_000, 'a recorded failed attempt');
      assert.match(worker.snapshot.current!.last_error, /URI malformed/);
      await waitFor(
        async () => (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!.dead_letters === 1,
        10_000,
        'the dead letter',
      );
      const status = (await h.api.status(d.user_id, d.model_name, 10)).channels[0]!;
      assert.match(status.dead[0]!.last_error, /sending failed: URI malformed/);
      // 100, 200, 200… ms apart over a 2 s window: about 11 attempts, not a loop.
      assert.ok(status.dead[0]!.attempts >= 3 && status.dead[0]!.attempts <= 14, `attempts ${status.dead[0]!.attempts}`);
      assert.equal(calls, status.dead[0]!.attempts);
    } finally {
      await worker.stop();
    }
  });

  it('writes a delivery’s state without parsing it again, a failed attempt’s parsed; what is stored reads back', async () => {
    const d = await deploy(h, { webhookUrl: 'http://hooks.test/parsed' });
    const state = await openBucket(h.bus, DeliveryBuckets.state);
    const parsed: boolean[] = [];
    const update = state.update.bind(state);
    state.update = (key, value, revision, options) => {
      parsed.push(options?.parse ?? true);
      return update(key, value, revision, options);
    };
    let calls = 0;
    const sender: ChannelSender = {
      channel: 'webhook',
      send: async () => (++calls === 1 ? { ok: false, status: 500, error: 'HTTP 500' } : { ok: true, status: 200 }),
    };
    await publish(h.bus, signal(d, 0));
    await publish(h.bus, signal(d, 1));
    const worker = await openWorker(d, sender, { state });
    try {
      await waitFor(() => worker.snapshot.delivered === 2, 5_000, 'both delivered');
      await waitFor(async () => (await state.get(`webhook.${d.deployment_id}`))?.value.delivered === 2, 5_000, 'both written');
    } finally {
      await worker.stop();
    }
    assert.equal(parsed[0], true, 'the failed attempt');
    assert.ok(parsed.length >= 2 && parsed.slice(1).every((p) => !p), parsed.join(' '));
    const stored = (await state.get(`webhook.${d.deployment_id}`))!.value;
    assert.deepEqual(stored, worker.snapshot);
  });

  describe('the lease fence', () => {
    /** A worker whose lease ends at `lease.end` (ms), with a sender whose sends wait for `answer` or their abort. */
    async function fenced(webhookUrl: string) {
      const d = await deploy(h, { webhookUrl });
      // Stored before the worker opens (no live consumer pushes to this worker): it reads it from the stream.
      await publish(h.bus, signal(d, 0));
      const lease = { end: Date.now() + 400 };
      // As a lease host fences its holders: one signal, aborted once the lease may have run out.
      const fence = new LeaseFence(() => Math.max(0, lease.end - Date.now()));
      const sends: Array<{ id: string; abortedAt: number | null; answer(outcome: SendOutcome): void }> = [];
      const sender: ChannelSender = {
        channel: 'webhook',
        send: (event, _deployment, abort) =>
          new Promise<SendOutcome>((resolve) => {
            const send = { id: event.id, abortedAt: null as number | null, answer: resolve };
            sends.push(send);
            abort?.addEventListener('abort', () => {
              send.abortedAt = Date.now();
              resolve({ ok: false, status: null, error: 'aborted' });
            });
          }),
      };
      const worker = await openWorker(d, sender, {
        limit: concurrencyLimit(4),
        policy: { baseMs: 100, maxMs: 200, windowMs: 60_000, jitter: 0 },
        lease: { leaseLeftMs: () => lease.end - Date.now(), fence: () => fence.signal() },
      });
      return { lease, sends, worker, fence };
    }

    it('cuts a send off when the lease runs out, records nothing, and sends the signal again once the lease is held', async () => {
      const { lease, sends, worker, fence } = await fenced('http://hooks.test/fenced');
      try {
        await waitFor(() => sends[0]?.abortedAt != null, 5_000, 'the send cut off');
        assert.ok(sends[0]!.abortedAt! >= lease.end, 'not before the lease ended');
        assert.equal(worker.snapshot.current, null, 'no failed attempt on record');
        assert.equal(worker.snapshot.delivered, 0);
        // Held again: the same signal goes, and this time it is answered.
        lease.end = Date.now() + 60_000;
        await waitFor(() => sends.length === 2, 5_000, 'the signal sent again');
        sends[1]!.answer({ ok: true, status: 200 });
        await waitFor(() => worker.snapshot.delivered === 1, 5_000, 'delivered');
        assert.equal(sends[1]!.id, sends[0]!.id);
        assert.equal(sends[1]!.abortedAt, null);
      } finally {
        await worker.stop();
        fence.stop();
      }
    });

    it('keeps a send going when the lease is renewed during it', async () => {
      const { lease, sends, worker, fence } = await fenced('http://hooks.test/renewed');
      try {
        await waitFor(() => sends.length === 1, 5_000, 'the send');
        const firstEnd = lease.end;
        lease.end = Date.now() + 60_000;
        await waitFor(() => Date.now() > firstEnd + 300, 5_000, 'past the lease end seen first');
        assert.equal(sends[0]!.abortedAt, null, 'not cut off');
        sends[0]!.answer({ ok: true, status: 200 });
        await waitFor(() => worker.snapshot.delivered === 1, 5_000, 'delivered');
        assert.equal(sends.length, 1);
      } finally {
        await worker.stop();
        fence.stop();
      }
    });

    it('cuts a send still in flight when its stop’s grace ends (its lease is released after), recording nothing', async () => {
      const { lease, sends, worker, fence } = await fenced('http://hooks.test/stopped');
      try {
        lease.end = Date.now() + 60_000;
        await waitFor(() => sends.length === 1, 5_000, 'the send');
        await worker.stop(200);
        assert.ok(sends[0]!.abortedAt !== null, 'cut off by the stop');
        assert.equal(worker.snapshot.current, null, 'no failed attempt on record');
        assert.equal(worker.snapshot.delivered, 0);
      } finally {
        fence.stop();
      }
    });
  });
});
