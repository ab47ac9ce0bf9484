/**
 * ChannelWorker with a sender that throws (as the webhook sender did on `http://%E0@host/`):
 * the exception is a failed attempt — the retry schedule, then a dead letter the deliveries API
 * shows — never a hot loop.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChannelWorker, Semaphore, type ChannelSender } from '../../actors/delivery/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { SignalLog } from '../../src/delivery/index.ts';
import { DeliveryBuckets } from '../../schemas/messages.ts';
import { deploy, log, publish, signal, startHarness, waitFor, type Harness } from './harness.ts';

describe('ChannelWorker: a sender that throws', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness({});
    // This test's worker is the only one: no actor delivers the deployment beside it.
    await h.stopActor();
  });
  after(() => h?.close());

  it('follows the retry schedule and ends as a dead letter', async () => {
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
    const state = await openBucket(h.bus, DeliveryBuckets.state);
    const worker = await ChannelWorker.open({
      channel: 'webhook',
      deploymentId: d.deployment_id,
      userId: d.user_id,
      state,
      dead: await openBucket(h.bus, DeliveryBuckets.dead),
      signals: new SignalLog(h.bus),
      deployment: () => d,
      sender,
      limit: new Semaphore(1),
      policy: { baseMs: 100, maxMs: 200, windowMs: 800, jitter: 0 },
      log,
    });
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
      // 100, 200, 200… ms apart over an 800 ms window: a handful of attempts, not a loop.
      assert.ok(status.dead[0]!.attempts >= 3 && status.dead[0]!.attempts <= 8, `attempts ${status.dead[0]!.attempts}`);
      assert.equal(calls, status.dead[0]!.attempts);
    } finally {
      await worker.stop();
    }
  });
});
