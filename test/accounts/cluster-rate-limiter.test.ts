/**
 * The per-key rate limit over several edges, on a real nats-server: limiters on one KV bucket
 * (each its own NATS connection, as edges are) never let more than `max` requests of a key
 * through in a window together — taking turns, all at once, over many keys, through an
 * event-loop stall, with clocks a little apart, with KV gone — lose at most the unspent part of
 * one block per edge (the bound the README states), never refuse a steady key under its limit,
 * and a key's window rolls on. Times are passed in where the test is about the window (a fixed
 * `now`), so nothing depends on the machine's speed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClusterRateLimiter, type LimitDecision } from '../../src/accounts/index.ts';
import { CLOCK_SKEW_MS } from '../../src/accounts/cluster-rate-limiter.ts';
import { connectBus, openBucket, type Bus } from '../../src/bus/index.ts';
import { createLogger } from '../../src/log.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

const MINUTE = 60_000;
/** The README's bound: at most MAX_BLOCK − 1 requests lost per edge per window. */
const LOST_PER_EDGE = 15;

/** Most requests with times in any one window of `windowMs` (times in any order). */
const busiestWindow = (times: number[], windowMs: number): number => {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while (sorted[j]! <= sorted[i]! - windowMs) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
};

describe('ClusterRateLimiter', () => {
  let nats: TestNats;
  const made: ClusterRateLimiter[] = [];
  const buses: Bus[] = [];
  const edges = async (n: number, max: number) => {
    const windows = await openBucket(nats.bus, Buckets.rateWindows);
    const out = Array.from({ length: n }, () => new ClusterRateLimiter(windows, max, MINUTE, log));
    made.push(...out);
    return out;
  };
  /** `n` edges as in production: each its own NATS connection to the shared bucket. */
  const connectedEdges = async (n: number, max: number, edgeLog = log) => {
    const out: ClusterRateLimiter[] = [];
    for (let i = 0; i < n; i++) {
      const bus = await connectBus(`nats://${nats.bus.nc.getServer()}`, `rate-edge-${buses.length}`, log);
      buses.push(bus);
      out.push(new ClusterRateLimiter(await openBucket(bus, Buckets.rateWindows), max, MINUTE, edgeLog));
    }
    made.push(...out);
    return out;
  };

  before(async () => {
    nats = await startNats('cluster-rate');
  });
  after(async () => {
    for (const l of made) l.stop();
    await Promise.all(buses.map((b) => b.close().catch(() => undefined)));
    await nats?.close();
  });

  for (const n of [2, 3]) {
    it(`over ${n} edges (own connections), 320 requests of each of 30 fresh keys at once, taking turns: no key passes 240, each gets close to it`, async (t) => {
      const limiters = await connectedEdges(n, 240);
      const admitted: number[] = [];
      await Promise.all(
        Array.from({ length: 30 }, async (_, k) => {
          const key = `turns-${n}-${k}`;
          const decisions: Promise<LimitDecision>[] = [];
          // In waves of 8 (a client's concurrent requests), the waves back to back: on the real clock.
          for (let i = 0; i < 320; i += 8) {
            for (let j = i; j < i + 8; j++) decisions.push(limiters[j % n]!.take(key));
            await new Promise((r) => setImmediate(r));
          }
          admitted.push((await Promise.all(decisions)).filter((d) => d.ok).length);
        }),
      );
      t.diagnostic(`admitted per key: ${admitted.join(' ')}`);
      assert.ok(Math.max(...admitted) <= 240, `admitted per key: ${admitted.join(' ')}`);
      assert.ok(Math.min(...admitted) >= 240 - n * LOST_PER_EDGE, `admitted per key: ${admitted.join(' ')}`);
    });
  }

  it('an event-loop stall with claims in flight neither lets more than max through nor refuses requests as if KV were away', async () => {
    const limiters = await connectedEdges(2, 100);
    const decisions: Promise<LimitDecision>[] = [];
    for (let i = 0; i < 200; i++) {
      decisions.push(limiters[i % 2]!.take('stalled'));
      // Answers arrive while this process is busy: its timers then run before it reads them.
      if (i === 40) for (const start = Date.now(); Date.now() - start < 1000;);
    }
    const all = await Promise.all(decisions);
    const ok = all.filter((d) => d.ok).length;
    assert.ok(ok <= 100 && ok >= 100 - 2 * LOST_PER_EDGE, `${ok} admitted of 200 under a limit of 100`);
    assert.equal(all.filter((d) => !d.ok && d.unavailable).length, 0, 'KV answered: no refusal says it did not');
  });

  for (const n of [2, 3]) {
    it(`a steady key under its limit is never refused over ${n} edges taking turns`, async () => {
      const limiters = await connectedEdges(n, 60);
      let now = Date.UTC(2024, 0, 2, 12);
      // 45 a minute (75 % of the limit) for 4 minutes.
      for (let i = 0; i < 180; i++, now += 1333) {
        const decision = await limiters[i % n]!.take(`steady-${n}`, now);
        assert.equal(decision.ok, true, `request ${i} refused: ${JSON.stringify(decision)}`);
      }
    });
  }

  it('edges whose clocks differ by up to the stated skew still never let more than max through in any window', async () => {
    const [a, b, c] = await connectedEdges(3, 60);
    const skews = [0, CLOCK_SKEW_MS, -CLOCK_SKEW_MS / 2];
    let now = Date.UTC(2024, 0, 2, 13);
    const admitted: number[] = [];
    for (let step = 0; step < 900; step++) {
      now += 200;
      const e = (step * 7) % 3 === 0 ? 0 : step % 5 === 0 ? 2 : 1;
      // Each edge decides on its own clock; the window is judged on true time.
      for (let k = 0; k < 1 + (step % 4); k++) if ((await [a!, b!, c!][e]!.take('skewed', now + skews[e]!)).ok) admitted.push(now);
    }
    assert.ok(busiestWindow(admitted, MINUTE) <= 60, `${busiestWindow(admitted, MINUTE)} in one minute`);
    assert.ok(admitted.filter((t) => t > now - MINUTE).length >= 60 - 3 * LOST_PER_EDGE - 2);
  });

  it('logs a key reaching its limit once a window on each edge, naming the key’s id and never more', async () => {
    const lines: { msg: string; limit_key?: string }[] = [];
    const sink = createLogger('info', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const [a] = await connectedEdges(1, 3, sink);
    const now = Date.UTC(2024, 0, 2, 14);
    for (let i = 0; i < 10; i++) await a!.take('77', now + i);
    await a!.take('77', now + MINUTE + 5_000);
    for (let i = 0; i < 5; i++) await a!.take('77', now + MINUTE + 5_000 + i);
    const hits = lines.filter((l) => /reached its limit/.test(l.msg));
    assert.equal(hits.length, 2, 'once in each window it was full');
    assert.ok(hits.every((l) => l.limit_key === '77'));
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
    assert.ok(
      refusals.every((ms) => ms > 0 && ms <= MINUTE + 1000),
      'retry after the oldest claim leaves the window',
    );
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

  it('when KV cannot be reached, spends only the block in hand and refuses the rest as not countable: no edge counts alone', async () => {
    const own = await connectBus(`nats://${nats.bus.nc.getServer()}`, 'rate-degraded', log);
    const limiter = new ClusterRateLimiter(await openBucket(own, Buckets.rateWindows), 1000, MINUTE, log);
    made.push(limiter);
    const now = Date.UTC(2024, 0, 1, 16);
    // A burst: blocks of 1, 2, 4, 8 as the key's pace shows; the last one is not spent yet.
    const before = [];
    for (let i = 0; i < 10; i++) before.push((await limiter.take('16', now)).ok);
    assert.ok(before.every(Boolean));
    await own.nc.close();
    const decisions = [];
    for (let i = 0; i < 20; i++) decisions.push(await limiter.take('16', now));
    const ok = decisions.filter((d) => d.ok).length;
    assert.equal(ok, 5, 'the rest of the block of 8 claimed before KV went away, no more');
    assert.ok(
      decisions.slice(ok).every((d) => !d.ok && d.unavailable && d.retryAfterMs > 0),
      'refused as not countable, with a retry time',
    );
    assert.equal((await limiter.take('17', now)).ok, false, 'a key with nothing in hand is refused at once');
  });

  it('keys are counted apart, and a key’s window rolls on', async () => {
    const [a] = await edges(1, 3);
    const now = Date.UTC(2024, 0, 1, 14);
    for (let i = 0; i < 3; i++) assert.equal((await a!.take('9', now)).ok, true);
    assert.equal((await a!.take('9', now)).ok, false);
    assert.equal((await a!.take('10', now)).ok, true, 'another key has its own window');
    assert.equal(
      (await a!.take('9', now + MINUTE + CLOCK_SKEW_MS + 1500)).ok,
      true,
      'a minute (and the skew allowed for) after the claims, the key may go on',
    );
  });
});
