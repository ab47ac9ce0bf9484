/**
 * A key's concurrent streams over several edges, on a real nats-server: two ClusterStreamSlots
 * (two edges) on one KV bucket. A stream open on one edge makes the other refuse the key's next
 * one; closing it frees it there; an edge that stops without releasing (SIGKILL) stops counting
 * STREAM_EXPIRY_MS after its last renewal; with KV gone each edge counts alone. Times are passed
 * in and the renewal timer is left out (renewals are called by hand), so nothing depends on the
 * machine's speed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ClusterStreamSlots, STREAM_EXPIRY_MS } from '../../src/edge/index.ts';
import { connectBus, openBucket } from '../../src/bus/index.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

/** No renewal timer: the tests renew by hand, at the times they choose. */
const NO_TIMER = 2 ** 31 - 1;

describe('ClusterStreamSlots', () => {
  let nats: TestNats;
  const made: ClusterStreamSlots[] = [];
  let keys = 0;
  const edges = async (n: number) => {
    const kv = await openBucket(nats.bus, Buckets.streamSlots);
    const out = Array.from({ length: n }, () => new ClusterStreamSlots(kv, log, NO_TIMER));
    made.push(...out);
    return out;
  };
  /** A holder no other test uses. */
  const holder = () => `sse.${++keys}`;

  before(async () => {
    nats = await startNats('stream-slots');
  });
  after(async () => {
    await Promise.all(made.map((s) => s.stop()));
    await nats?.close();
  });

  it('a stream open on one edge makes the other refuse the key’s next one; closing it frees it there', async () => {
    const [a, b] = await edges(2);
    const key = holder();
    const t0 = Date.now();
    const release = await a!.acquire(key, 1, t0);
    assert.ok(release, 'the first stream opens');
    assert.equal(await b!.acquire(key, 1, t0 + 1), null, 'the other edge refuses the second');
    assert.equal(await a!.acquire(key, 1, t0 + 1), null, 'and so does the same edge');
    assert.ok(await b!.acquire(holder(), 1, t0 + 1), 'another key is counted apart');
    release();
    release(); // twice is once
    await a!.stop(); // lets the release's write land
    const again = await b!.acquire(key, 1, t0 + 2);
    assert.ok(again, 'closed on one edge, free on the other');
    assert.equal(await a!.acquire(key, 1, t0 + 3), null, 'now held by the other edge');
  });

  it('a limit above one is shared by the edges', async () => {
    const [a, b] = await edges(2);
    const key = holder();
    const t0 = Date.now();
    const opened = [await a!.acquire(key, 3, t0), await b!.acquire(key, 3, t0), await a!.acquire(key, 3, t0)];
    assert.ok(opened.every(Boolean));
    assert.equal(await b!.acquire(key, 3, t0), null);
    assert.equal(await a!.acquire(key, 3, t0), null);
    opened[1]!();
    await b!.stop();
    assert.ok(await a!.acquire(key, 3, t0 + 1), 'the one closed on the other edge is free again');
  });

  it('one key opening on two edges at once: exactly one stream opens', async () => {
    const [a, b] = await edges(2);
    const t0 = Date.now();
    for (let round = 0; round < 10; round++) {
      const key = holder();
      const got = await Promise.all([a!.acquire(key, 1, t0), b!.acquire(key, 1, t0), a!.acquire(key, 1, t0), b!.acquire(key, 1, t0)]);
      assert.equal(got.filter(Boolean).length, 1, `round ${round}`);
    }
  });

  it('an edge stopped without releasing (SIGKILL) stops counting STREAM_EXPIRY_MS after its last renewal', async () => {
    const [a, b] = await edges(2);
    const key = holder();
    const t0 = Date.now();
    assert.ok(await a!.acquire(key, 1, t0));
    await a!.renew(t0 + 10_000);
    // The edge dies: no release, no more renewals.
    await a!.stop();
    assert.equal(await b!.acquire(key, 1, t0 + 10_000 + STREAM_EXPIRY_MS - 1), null, 'renewed: still counted');
    assert.ok(await b!.acquire(key, 1, t0 + 10_000 + STREAM_EXPIRY_MS + 1), 'past the expiry of its last renewal: free');
  });

  it('counts on the edge alone, at once, when KV cannot be reached', async () => {
    const own = await connectBus(`nats://${nats.bus.nc.getServer()}`, 'stream-slots-degraded', log);
    const slots = new ClusterStreamSlots(await openBucket(own, Buckets.streamSlots), log, NO_TIMER);
    made.push(slots);
    await own.nc.close();
    const key = holder();
    const first = await slots.acquire(key, 1);
    assert.ok(first, 'the edge’s own count lets the first open');
    assert.equal(await slots.acquire(key, 1), null, 'and refuses the second on this edge');
    first();
    assert.ok(await slots.acquire(key, 1), 'a closed one frees its slot on this edge');
  });
});
