/**
 * Which deployments someone watches, on a real nats-server: an edge's WebSocket subscription writes
 * its watch before it is confirmed, so the actor hosts (those running and those that start later)
 * see it; the edge renews it while any subscriber stays, and once the last one leaves (or the edge
 * dies) it runs out within WATCH_TTL_MS. Time moves on a replay clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket } from '../../src/bus/index.ts';
import { DeploymentWatches, WatchedDeployments, WATCH_RENEW_MS, WATCH_TTL_MS, type WatchedKv } from '../../src/deployments/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, until, type TestNats } from '../helpers/nats.ts';

const T0 = Date.UTC(2026, 0, 5, 12);

describe('deployment watches', () => {
  let nats: TestNats;
  let kv: WatchedKv;
  const stops: Array<() => void> = [];

  before(async () => {
    nats = await startNats('deployment-watches');
    kv = await openBucket(nats.bus, Buckets.watched);
  });
  after(async () => {
    for (const stop of stops) stop();
    await nats?.close();
  });

  const open = async (clock: ReplayClock) => {
    const hosts = await WatchedDeployments.open(kv, clock);
    stops.push(() => hosts.stop());
    return hosts;
  };
  const edge = (clock: ReplayClock) => {
    const watches = new DeploymentWatches(kv, log, clock);
    stops.push(() => watches.stop());
    return watches;
  };
  const storedUntil = async (id: string) => (await kv.get(id))?.value.until;

  it('is seen by a running host once the subscription is confirmed, and at once by a host that starts later', async () => {
    const clock = new ReplayClock(T0);
    const running = await open(clock);
    assert.equal(running.isWatched('dep_seen'), false);
    await edge(clock).watch('dep_seen');
    assert.equal(await storedUntil('dep_seen'), T0 + WATCH_TTL_MS, 'written before watch() resolves');
    await until('the running host sees it', () => running.isWatched('dep_seen'));
    const later = await open(clock);
    assert.equal(later.isWatched('dep_seen'), true);
    assert.equal(later.isWatched('dep_other'), false);
  });

  it('is renewed while a subscriber stays, past its TTL; runs out within the TTL once the last one leaves', async () => {
    const clock = new ReplayClock(T0);
    const host = await open(clock);
    const watches = edge(clock);
    const first = await watches.watch('dep_renewed');
    const second = await watches.watch('dep_renewed');
    first();
    // Three renewals: the watch written first has run out by the third, the renewed one has not.
    for (let n = 1; n <= 3; n++) {
      clock.advanceBy(WATCH_RENEW_MS);
      await until(`renewal ${n}`, async () => (await storedUntil('dep_renewed')) === T0 + n * WATCH_RENEW_MS + WATCH_TTL_MS);
    }
    assert.ok(clock.now() >= T0 + WATCH_TTL_MS);
    await until('still watched', () => host.isWatched('dep_renewed'));
    second();
    clock.advanceBy(WATCH_RENEW_MS);
    // Nothing renewed it: what is stored is the last renewal's.
    assert.equal(await storedUntil('dep_renewed'), T0 + 3 * WATCH_RENEW_MS + WATCH_TTL_MS);
    assert.equal(host.isWatched('dep_renewed'), true, 'until it runs out');
    clock.advanceTo(T0 + 3 * WATCH_RENEW_MS + WATCH_TTL_MS);
    assert.equal(host.isWatched('dep_renewed'), false);
  });

  it('of an edge that stops renewing (it died) runs out, while another edge watching the same deployment keeps it', async () => {
    const clock = new ReplayClock(T0);
    const host = await open(clock);
    const dead = new DeploymentWatches(kv, log, clock);
    await dead.watch('dep_two_edges');
    await dead.watch('dep_dead_only');
    dead.stop();
    await edge(clock).watch('dep_solo');
    const alive = edge(clock);
    clock.advanceBy(WATCH_RENEW_MS);
    await alive.watch('dep_two_edges');
    for (let t = 2 * WATCH_RENEW_MS; t <= WATCH_TTL_MS + WATCH_RENEW_MS; t += WATCH_RENEW_MS) {
      clock.advanceTo(T0 + t);
      await until('renewed by the live edge', async () => (await storedUntil('dep_two_edges')) === T0 + t + WATCH_TTL_MS);
    }
    await until('kept by the live edge', () => host.isWatched('dep_two_edges'));
    assert.equal(host.isWatched('dep_dead_only'), false, 'the dead edge’s own watch ran out');
    // dep_solo's edge is alive too: renewed; a deployment nobody watches is not.
    assert.equal(host.isWatched('dep_solo'), true);
    assert.equal(await storedUntil('dep_unwatched'), undefined);
  });
});
