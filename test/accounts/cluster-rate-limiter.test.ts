/**
 * The per-key rate limit over several edges, on a real nats-server: two limiters (two edges) on
 * one KV bucket never let more than `max` requests of a key through in a window together, lose at
 * most the unspent part of one block per edge (the bound the README states), and a key's window
 * rolls on. Times are passed in (a fixed `now`), so nothing depends on the machine's speed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClusterRateLimiter } from '../../src/accounts/index.ts';
import { connectBus, openBucket } from '../../src/bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

const MINUTE = 60_000;
/** The README's bound: at most MAX_BLOCK − 1 requests lost per edge per window. */
const LOST_PER_EDGE = 15;

describe('ClusterRateLimiter', () => {
  let nats: TestNats;
  const made: ClusterRateLimiter[] = [];
  const edges = async (n: number, max: number) => {
    const windows = await openBucket(nats.bus, Buckets.rateWindows);
    const out = Array.from({ length: n }, () => new ClusterRateLimiter(windows, max, MINUTE, log));
    made.push(...out);
    return out;
  };

  before(async () => {
    nats = await startNats('cluster-rate');
  });
  after(async () => {
    for (const l of made) l.stop();
    await nats?.close();
  });

  it('lets exactly max through over two edges taking turns, and refuses the rest with a retry time', async () => {
    const [a, b] = await edges(2, 20);
    const now = Date.UTC(2024, 0, 1, 12);
    let ok = 0;
    const refusals: number[] = [];
    for (let i = 0; i < 100; i++) {
      const decision = await (i % 2 === 0 ? a! : b!).take('7', now);
      if (decision.ok) ok++;
      else refusals.push(decision.retryAfterMs);
    }
    assert.equal(ok, 20);
    assert.ok(refusals.every((ms) => ms > 0 && ms <= MINUTE + 1000), 'retry after the oldest claim leaves the window');
  });

  it('never lets more than max through in any window however the requests spread, and loses at most one block per edge', async () => {
    const [a, b, c] = await edges(3, 60);
    let now = Date.UTC(2024, 0, 1, 13);
    const admitted: number[] = [];
    // Bursty, uneven traffic over 3 minutes: each step a few requests on one edge or another.
    for (let step = 0; step < 900; step++) {
      now += 200;
      const edge = [a!, b!, c!][(step * 7) % 3 === 0 ? 0 : step % 5 === 0 ? 2 : 1]!;
      for (let k = 0; k < 1 + (step % 4); k++) if ((await edge.take('8', now)).ok) admitted.push(now);
    }
    for (let i = 0; i < admitted.length; i++) {
      const inWindow = admitted.filter((t) => t > admitted[i]! - MINUTE && t <= admitted[i]!).length;
      assert.ok(inWindow <= 60, `at ${admitted[i]}: ${inWindow} requests in the minute before`);
    }
    // Offered far above the limit all along: every full minute admits close to max.
    const minute = admitted.filter((t) => t > now - MINUTE).length;
    assert.ok(minute >= 60 - 3 * LOST_PER_EDGE, `the last minute admitted ${minute}`);
  });

  it('requests of one key arriving at once on two edges share the claims, and still no more than max pass', async () => {
    const [a, b] = await edges(2, 25);
    const now = Date.UTC(2024, 0, 1, 15);
    const decisions = await Promise.all(Array.from({ length: 80 }, (_, i) => (i % 2 === 0 ? a! : b!).take('11', now)));
    assert.equal(decisions.filter((d) => d.ok).length, 25);
  });

  it('a bursty key (a page load’s few calls, then quiet) gets its whole limit: what a block leaves unspent is given back', async () => {
    const [a] = await edges(1, 120);
    let now = Date.UTC(2024, 0, 1, 16);
    let ok = 0;
    // 5 calls at once every 1.5 s for 40 s: 135 offered, under a limit of 120 a minute.
    for (let burst = 0; burst < 27; burst++, now += 1500) {
      const decisions = await Promise.all(Array.from({ length: 5 }, () => a!.take('12', now)));
      ok += decisions.filter((d) => d.ok).length;
    }
    assert.ok(ok >= 120 - LOST_PER_EDGE, `admitted ${ok} of 135 offered under a limit of 120`);
    assert.ok(ok <= 120);
  });

  it('a key in steady demand never waits on KV: its next block is claimed while it spends this one', async () => {
    const windows = await openBucket(nats.bus, Buckets.rateWindows);
    const [a] = await edges(1, 1_000_000);
    let now = Date.UTC(2024, 0, 1, 17);
    // 100 requests a second (in the limiter's time and, so claims can land, in real time too).
    const step = async () => {
      now += 10;
      await new Promise((r) => setTimeout(r, 10));
    };
    for (let i = 0; i < 40; i++, await step()) assert.equal((await a!.take('13', now)).ok, true);
    let waited = 0;
    for (let i = 0; i < 200; i++, await step()) {
      const decision = a!.take('13', now);
      // Decided from a block in hand, the answer comes before any I/O could: a claim's round trip cannot.
      const first = await Promise.race([decision.then(() => 'decided'), new Promise((r) => setImmediate(() => r('waited')))]);
      if (first === 'waited') waited++;
      assert.equal((await decision).ok, true);
    }
    // Claiming when a block runs out would make every 16th request wait (12 of 200).
    assert.ok(waited <= 1, `${waited} of 200 requests waited for a claim`);
    // Claims close in time share a stamp: the record holds a few entries a second, not one per request.
    const record = (await windows.get('rate.13'))!.value;
    const claimed = record.claims.reduce((sum, [, n]) => sum + n, 0);
    assert.ok(claimed >= 240, `${claimed} requests claimed`);
    assert.ok(record.claims.length <= 12, `${record.claims.length} stamps for ${claimed} requests over 2.4 s`);
  });

  it('a key with a large limit is claimed in blocks of a 120th of it, not 16 at a time, and still never past its limit', async () => {
    const windows = await openBucket(nats.bus, Buckets.rateWindows);
    const a = new ClusterRateLimiter(windows, 24_000, MINUTE, log);
    made.push(a);
    let writes = 0;
    const update = windows.kv.update.bind(windows.kv);
    windows.kv.update = (...args: Parameters<typeof update>) => (writes++, update(...args));
    let now = Date.UTC(2024, 0, 1, 19);
    let ok = 0;
    try {
      // 500 requests a second for 8 s: 4,000, under the limit of 24,000 a minute.
      for (let i = 0; i < 4000; i++, now += 2) if ((await a.take('15', now)).ok) ok++;
    } finally {
      windows.kv.update = update;
    }
    assert.equal(ok, 4000);
    // Blocks grow to 200 (24,000 / 120): 4,000 requests take a few dozen claims; blocks of 16 would take 250 or more.
    assert.ok(writes <= 60, `${writes} claims for 4,000 requests`);
    const claimed = (await windows.get('rate.15'))!.value.claims.reduce((sum, [, n]) => sum + n, 0);
    assert.ok(claimed >= 4000 && claimed <= 4000 + 2 * 200, `${claimed} claimed for 4,000 spent`);
  });

  it('reads a window written one stamp per request (before stamps were shared), so a rolling upgrade keeps counting', async () => {
    const windows = await openBucket(nats.bus, Buckets.rateWindows);
    const now = Date.UTC(2024, 0, 1, 18);
    await windows.kv.put('rate.14', JSON.stringify({ stamps: Array.from({ length: 8 }, (_, i) => now - 1000 * i) }));
    const [a] = await edges(1, 10);
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await a!.take('14', now)).ok);
    assert.deepEqual(decisions, [true, true, false, false], '8 of 10 were already used');
  });

  it('counts on the edge alone, at once, when KV cannot be reached', async () => {
    const own = await connectBus(`nats://${nats.bus.nc.getServer()}`, 'rate-degraded', log);
    const limiter = new ClusterRateLimiter(await openBucket(own, Buckets.rateWindows), 4, MINUTE, log);
    made.push(limiter);
    await own.nc.close();
    const now = Date.UTC(2024, 0, 1, 16);
    const decisions = [];
    for (let i = 0; i < 6; i++) decisions.push(await limiter.take('12', now));
    assert.deepEqual(decisions.map((d) => d.ok), [true, true, true, true, false, false], 'the local window: max on this edge');
  });

  it('keys are counted apart, and a key’s window rolls on', async () => {
    const [a] = await edges(1, 3);
    const now = Date.UTC(2024, 0, 1, 14);
    for (let i = 0; i < 3; i++) assert.equal((await a!.take('9', now)).ok, true);
    assert.equal((await a!.take('9', now)).ok, false);
    assert.equal((await a!.take('10', now)).ok, true, 'another key has its own window');
    assert.equal((await a!.take('9', now + MINUTE + 1000)).ok, true, 'a minute after the claims, the key may go on');
  });
});
