/**
 * The claims buckets on a real nats-server: heartbeats ride the bus's priority connection, so a
 * renewal never waits behind the bulk traffic of the connection the holders work on; the claims
 * ride that one. Rendezvous hashing prefers one host per group, the same on every host.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { connectBus, type Bus } from '../../src/bus/index.ts';
import { openClaims, preferredHost } from '../../src/kernel/claims.ts';
import { log, startNats, type TestNats } from '../helpers/nats.ts';

describe('claims', () => {
  let nats: TestNats;
  let url: string;

  before(async () => {
    nats = await startNats('claims');
    url = nats.bus.nc.getServer();
  });
  after(() => nats.close());

  it('heartbeats are written on the priority connection: renewals are answered while the main one is closed', async () => {
    const bus: Bus = await connectBus(`nats://${url}`, 'claims-test', log);
    const claims = await openClaims(bus, 1);
    assert.equal(await bus.priority(), await bus.priority(), 'one priority connection per bus');
    const first = await claims.hosts.create('model_actor.h1', { host: 'h1', renewed_at: 1 });
    assert.notEqual(first, false);
    await bus.nc.close();
    // The claims went with the main connection; the heartbeat lives on its own.
    await assert.rejects(claims.leases.get('lease.x'));
    const renewed = await claims.hosts.update('model_actor.h1', { host: 'h1', renewed_at: 2 }, first as number);
    assert.ok(renewed > (first as number));
    const beats = await bus.priority();
    await bus.close();
    assert.ok(beats.nc.isClosed(), 'closing the bus closes its priority connection');
  });

  it('a group prefers the same host on every host, and groups spread over the hosts', () => {
    const hosts = ['host-a', 'host-b', 'host-c'];
    const counts = new Map<string, number>();
    for (let g = 0; g < 300; g++) {
      const host = preferredHost(`user-${g}`, hosts)!;
      assert.equal(preferredHost(`user-${g}`, [...hosts].reverse()), host, 'the order the hosts are listed in does not matter');
      counts.set(host, (counts.get(host) ?? 0) + 1);
    }
    assert.equal(counts.size, 3);
    for (const n of counts.values()) assert.ok(n > 50, `each host prefers a fair part of the groups (${[...counts.values()]})`);
    assert.equal(preferredHost('user-1', []), null);
  });
});
