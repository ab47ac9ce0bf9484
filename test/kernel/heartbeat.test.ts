/**
 * A host's heartbeat on a real nats-server: renewed from the revision it last wrote; a renewal
 * whose answer was given up but which landed all the same (NATS slow under load) is not an
 * expiry; a heartbeat that is gone is.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openBucket, type JsonKv } from '../../src/bus/index.ts';
import { Heartbeat } from '../../src/kernel/heartbeat.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { Buckets } from '../../schemas/messages.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

describe('heartbeat', () => {
  let nats: TestNats;
  let hosts: JsonKv<typeof Buckets.hosts.schema>;

  before(async () => {
    nats = await startNats('heartbeat');
    hosts = await openBucket(nats.bus, Buckets.hosts);
  });
  after(() => nats.close());

  const beat = (id: string) => new Heartbeat(hosts, 'test_host', id, new ReplayClock(1_000_000));

  it('is created, then renewed from the revision it wrote; it lives on while renewed', async () => {
    const b = beat('h1');
    assert.equal(b.leftMs(), 0, 'no heartbeat before the first write');
    assert.equal(await b.renew(), 'renewed');
    const first = (await hosts.get('test_host.h1'))!.revision;
    assert.ok(b.leftMs() > 0);
    assert.equal(await b.renew(), 'renewed');
    assert.ok((await hosts.get('test_host.h1'))!.revision > first);
    assert.deepEqual(await b.liveHosts(), ['h1']);
  });

  it('a renewal of its own that landed after its answer was given up is not an expiry', async () => {
    const b = beat('h2');
    assert.equal(await b.renew(), 'renewed');
    // The late renewal: the key moved on past the revision this heartbeat knows, written as it writes.
    const current = (await hosts.get('test_host.h2'))!;
    await hosts.update('test_host.h2', { host: 'h2', renewed_at: 1 }, current.revision);
    assert.equal(await b.renew(), 'renewed', 'renewed from where the key is');
    assert.ok(b.leftMs() > 0, 'its holders may act on');
  });

  it('a heartbeat that is gone has expired: no holder may act until a new one is written', async () => {
    const b = beat('h3');
    assert.equal(await b.renew(), 'renewed');
    await hosts.delete('test_host.h3');
    assert.equal(await b.renew(), 'expired');
    assert.equal(b.leftMs(), 0);
    assert.equal(await b.renew(), 'renewed', 'the next renewal writes a new one');
  });
});
