/**
 * A JSON KV bucket on a real nats-server: values checked by their schema both ways, keys listed by
 * a subject filter (a user's keys, not another's), compare-and-set that lets exactly one of two
 * racing writers win, listing that answers while other writers put and delete the same keys, and
 * a key's superseded revisions read in order as the bucket's history keeps them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { openBucket, StaleRevisionError, type JsonKv } from '../../src/bus/index.ts';
import type { BucketSpec } from '../../schemas/messages.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

const Counter = z.object({ n: z.number().int() }).strict();
const spec: BucketSpec<typeof Counter> = { name: 'sf_test_counters', schema: Counter, ttlSeconds: 0 };

describe('JSON KV bucket', () => {
  let nats: TestNats;
  let kv: JsonKv<typeof Counter>;

  before(async () => {
    nats = await startNats('json-kv');
    kv = await openBucket(nats.bus, spec);
  });
  after(() => nats.close());

  it('with one replica reads directly (that replica is the leader); a bucket opted out of direct reads asks the leader', async () => {
    const asked: string[] = [];
    const spy = nats.bus.nc.subscribe('$JS.API.>', { callback: (_e, msg) => void asked.push(msg.subject) });
    const leader = await openBucket(nats.bus, { ...spec, name: 'sf_test_leader_reads' }, 1, { directReads: false });
    await leader.put('1', { n: 1 });
    await nats.bus.nc.flush();
    asked.length = 0;
    assert.deepEqual((await leader.get('1'))?.value, { n: 1 });
    assert.equal(await kv.get('7.absent'), null);
    await nats.bus.nc.flush();
    spy.unsubscribe();
    assert.ok(asked.includes('$JS.API.STREAM.MSG.GET.KV_sf_test_leader_reads'), asked.join(' '));
    assert.ok(!asked.some((s) => s.startsWith('$JS.API.DIRECT.GET.KV_sf_test_leader_reads')), asked.join(' '));
    assert.ok(
      asked.some((s) => s.startsWith('$JS.API.DIRECT.GET.KV_sf_test_counters')),
      `one replica reads directly: ${asked.join(' ')}`,
    );
  });

  it('refuses to write a value its schema does not allow, and writes nothing', async () => {
    await assert.rejects(kv.put('7.bad', { n: 1.5 } as never));
    assert.equal(await kv.get('7.bad'), null);
  });

  it('update with parse: false writes the value as given (the caller built it from parsed values); a read still parses it', async () => {
    const revision = await kv.put('u.unparsed', { n: 0 });
    const next = await kv.update('u.unparsed', { n: 1 }, revision, { parse: false });
    assert.deepEqual(await kv.get('u.unparsed'), { value: { n: 1 }, revision: next });
    await assert.rejects(kv.update('u.unparsed', { n: 2 }, revision, { parse: false }), StaleRevisionError);
    await kv.update('u.unparsed', { n: 1.5 } as never, next, { parse: false });
    await assert.rejects(kv.get('u.unparsed'), /expected int/i);
    await kv.delete('u.unparsed');
  });

  it('lists the keys under a filter and none of another prefix; a deleted key reads as null', async () => {
    await Promise.all([kv.put('7.a', { n: 1 }), kv.put('7.b', { n: 2 }), kv.put('70.a', { n: 3 }), kv.put('8.a', { n: 4 })]);
    await kv.delete('7.b');
    const keys = (await kv.keys('7.>')).sort();
    assert.ok(keys.includes('7.a'));
    assert.ok(!keys.includes('70.a') && !keys.includes('8.a'), keys.join(', '));
    const live = (await Promise.all(keys.map((k) => kv.get(k)))).flatMap((r) => (r ? [r.value.n] : []));
    assert.deepEqual(live, [1]);
    assert.deepEqual(await kv.keys('9.>'), []);
  });

  it('lets one of two writers at the same revision win; the other is told its revision is stale', async () => {
    const revision = await kv.put('7.cas', { n: 0 });
    const results = await Promise.allSettled([kv.update('7.cas', { n: 1 }, revision), kv.update('7.cas', { n: 2 }, revision)]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    assert.ok(refused.reason instanceof StaleRevisionError);
  });

  it('mutate applies every one of many concurrent increments exactly once', async () => {
    await Promise.all(Array.from({ length: 20 }, () => kv.mutate('7.count', (c) => ({ n: (c?.n ?? 0) + 1 }))));
    assert.equal((await kv.get('7.count'))?.value.n, 20);
  });

  it('mutate on a known revision writes without reading; a stale one, or one the change refuses, is decided again on what is stored', async () => {
    const reads = () => {
      const asked: string[] = [];
      const spy = nats.bus.nc.subscribe('$JS.API.DIRECT.GET.>', { callback: (_e, msg) => void asked.push(msg.subject) });
      return {
        async count() {
          await nats.bus.nc.flush();
          spy.unsubscribe();
          return asked.length;
        },
      };
    };
    const revision = await kv.put('7.known', { n: 10 });
    await nats.bus.nc.flush();
    let r = reads();
    const first = await kv.mutate('7.known', (c) => ({ n: c!.n + 1 }), { value: { n: 10 }, revision });
    assert.equal(await r.count(), 0, 'the known revision was current: no read');
    assert.deepEqual(first.value, { n: 11 });

    // Another writer moved the key on: the known revision is stale, so the change is read and made again.
    await kv.put('7.known', { n: 100 });
    r = reads();
    const second = await kv.mutate('7.known', (c) => ({ n: c!.n + 1 }), first);
    assert.ok((await r.count()) >= 1);
    assert.deepEqual(second.value, { n: 101 }, 'made on what was stored, not on the stale value');

    // A change refused on the known value (it looks too small) is asked again on the stored one.
    await kv.put('7.known', { n: 5 });
    const third = await kv.mutate(
      '7.known',
      (c) => {
        if (c!.n < 3) throw new Error('too small');
        return { n: c!.n - 3 };
      },
      { value: { n: 1 }, revision: second.revision },
    );
    assert.deepEqual(third.value, { n: 2 });
    assert.deepEqual((await kv.get('7.known'))?.value, { n: 2 });
    await assert.rejects(
      kv.mutate(
        '7.known',
        () => {
          throw new Error('refused on what is stored');
        },
        third,
      ),
      /refused on what is stored/,
    );
  });

  it('change writes what the change returns, leaves the record as it is when the change declines (null), and says a missing record is gone', async () => {
    await kv.put('7.change', { n: 1 });
    assert.deepEqual(await kv.change('7.change', 'counter 7', (c) => ({ n: c.n + 1 })), { n: 2 });
    const before = await kv.get('7.change');
    assert.equal(await kv.change('7.change', 'counter 7', () => null), null);
    assert.equal((await kv.get('7.change'))!.revision, before!.revision, 'a declined change writes nothing');
    await assert.rejects(
      kv.change('7.absent', 'counter 7', (c) => c),
      /counter 7 is gone/,
    );
  });

  it('lists keys while other writers put and delete them: every listing ends and holds each key that stayed', async () => {
    const stable = Array.from({ length: 5 }, (_, i) => `11.stable${i}`);
    await Promise.all(stable.map((k) => kv.put(k, { n: 1 })));
    let churning = true;
    const churn = (async () => {
      for (let i = 0; churning; i++) {
        const key = `11.churn${i % 7}`;
        await kv.put(key, { n: i });
        if (i % 2) await kv.delete(key);
      }
    })();
    try {
      for (let round = 0; round < 40; round++) {
        const keys = await kv.keys('11.>');
        for (const k of stable) assert.ok(keys.includes(k), `round ${round}: ${k} missing from ${keys.join(', ')}`);
      }
    } finally {
      churning = false;
      await churn;
    }
  });
  it('raises the history of a bucket made before its spec kept more revisions, and reads every kept revision in order', async () => {
    const name = 'sf_test_history';
    await openBucket(nats.bus, { ...spec, name });
    const kept = await openBucket(nats.bus, { ...spec, name, history: 5 });
    assert.equal((await nats.bus.jsm.streams.info(`KV_${name}`)).config.max_msgs_per_subject, 5, 'raised on open');
    const first = await kept.put('a', { n: 1 });
    for (const n of [2, 3]) await kept.put('a', { n });
    await kept.put('b', { n: 10 });
    await kept.delete('b');
    assert.equal(await kept.lastRevision(), first + 4);
    const seen: Array<[string, number, number | null]> = [];
    const revisions = await kept.revisions(first + 1);
    for await (const r of revisions) {
      seen.push([r.key, r.revision, r.value?.n ?? null]);
      if (seen.length === 4) break;
    }
    await revisions.close();
    assert.deepEqual(seen, [
      ['a', first + 1, 2],
      ['a', first + 2, 3],
      ['b', first + 3, 10],
      ['b', first + 4, null],
    ]);
  });
});
