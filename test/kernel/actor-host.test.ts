/**
 * The actor host on a real nats-server, without the service: one actor per desired deployment
 * across hosts (claims kept while the host's heartbeat lives), hand-over when a host stops or dies
 * or its heartbeat expires, sharing out over the hosts, faulting and restart after a
 * backoff measured on a replay clock, release when a deployment goes away. The hosted actors are
 * plain recorders of what the host does to them: the host is what is under test.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { openBucket, type JsonKv } from '../../src/bus/index.ts';
import { DeploymentsView } from '../../src/deployments/index.ts';
import { ActorHost, type Actor } from '../../src/kernel/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import type { DeploymentRecord } from '../../schemas/live.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, until, type TestNats } from '../helpers/nats.ts';

/** What a host did to one actor it created. */
class RecordingActor implements Actor<number> {
  readonly handled: number[] = [];
  started = false;
  stopped = false;
  constructor(
    readonly id: string,
    private readonly faults: { start?: boolean; handle?: boolean; stopUntil?: Promise<void> },
  ) {}
  async start() {
    if (this.faults.start) throw new Error('start failed');
    this.started = true;
  }
  async handle(barTs: number) {
    if (this.faults.handle) throw new Error('handle failed');
    this.handled.push(barTs);
  }
  async stop() {
    await this.faults.stopUntil;
    this.stopped = true;
  }
  stats() {
    return { handled: this.handled.length };
  }
}

let n = 0;
const deployment = (userId: number): DeploymentRecord => ({
  deployment_id: `dep_${++n}`,
  user_id: userId,
  username: `u${userId}`,
  model_name: `Model ${n}`,
  stem: `${userId}_EURUSD_15min_Model ${n}`,
  symbol: 'EURUSD',
  timeframe: '15min',
  channels: ['sse'],
  webhook_url: null,
  webhook_secret: null,
  messenger_chat_id: null,
  created_at: n,
});

describe('actor host', () => {
  let nats: TestNats;
  let view: DeploymentsView;
  let leases: JsonKv<typeof Buckets.leases.schema>;
  let heartbeats: JsonKv<typeof Buckets.hosts.schema>;
  const hosts: ActorHost<DeploymentRecord, number>[] = [];

  before(async () => {
    nats = await startNats('actor-host');
    view = new DeploymentsView(await openBucket(nats.bus, Buckets.deployments));
    leases = await openBucket(nats.bus, Buckets.leases);
    heartbeats = await openBucket(nats.bus, Buckets.hosts);
  });
  after(async () => {
    for (const h of hosts) await h.stop();
    await nats.close();
  });
  beforeEach(async () => {
    for (const h of hosts.splice(0)) await h.stop();
    for (const d of await view.kv.keys()) await view.kv.delete(d);
  });

  /** A host whose renewals happen only when the test reconciles (its clock never moves by itself). */
  function host(
    options: {
      clock?: ReplayClock;
      faults?: (id: string, created: number) => { start?: boolean; handle?: boolean; stopUntil?: Promise<void> };
      forgot?: string[];
      balance?: boolean;
      grouped?: boolean;
    } = {},
  ) {
    const created: RecordingActor[] = [];
    const clock = options.clock ?? new ReplayClock(Date.now());
    const h = new ActorHost<DeploymentRecord, number>({
      names: { actor: 'test actor', spec: 'deployment', id: 'deployment_id' },
      desired: view,
      idOf: (d) => d.deployment_id,
      leases,
      hosts: heartbeats,
      log,
      clock,
      renewMs: 3_600_000,
      ...(options.balance ? { balance: true } : {}),
      ...(options.grouped ? { groupOf: (d: DeploymentRecord) => String(d.user_id) } : {}),
      backoff: { baseMs: 1000, maxMs: 60_000 },
      create: async (d) => {
        const actor = new RecordingActor(
          d.deployment_id,
          options.faults?.(d.deployment_id, created.filter((a) => a.id === d.deployment_id).length) ?? {},
        );
        created.push(actor);
        return actor;
      },
      forget: async (id) => void options.forgot?.push(id),
    });
    hosts.push(h);
    return { h, created, clock };
  }

  it('runs one actor per deployment across hosts: the lease holder runs it, the other waits, then takes over a graceful stop', async () => {
    const d = deployment(1);
    await view.put(d);
    const first = host();
    const second = host();
    await first.h.start();
    await second.h.start();
    await until('the first host to run it', () => first.h.runningIds().includes(d.deployment_id));
    await second.h.reconcile();
    assert.deepEqual(second.h.runningIds(), [], 'the lease is held: the second host waits');
    assert.equal((await leases.get(d.deployment_id))?.value.host, first.h.hostId);

    await first.h.stop(true);
    assert.ok(first.created[0]!.stopped);
    await second.h.reconcile();
    await until('the second host to take over', () => second.h.runningIds().includes(d.deployment_id));
    assert.equal((await leases.get(d.deployment_id))?.value.host, second.h.hostId);
  });

  it('a host that dies (no goodbye) loses its deployments when its lease expires', async () => {
    const d = deployment(2);
    await view.put(d);
    const dying = host();
    const other = host();
    await dying.h.start();
    await until('the first host to run it', () => dying.h.runningIds().includes(d.deployment_id));
    await other.h.start();
    await dying.h.stop(false);
    // The lease expires on the server after LEASE_TTL_SECONDS; the other host claims it then.
    await until('the other host to claim it', async () => {
      await other.h.reconcile();
      return other.h.runningIds().includes(d.deployment_id);
    });
  });

  it('hands bars to the actors of matching deployments, including one that arrived while it started', async () => {
    const eur = deployment(3);
    const gbp = { ...deployment(3), symbol: 'GBPUSD' as const };
    await view.put(eur);
    await view.put(gbp);
    const { h, created } = host();
    await h.start();
    await until('both to run', () => h.runningIds().length === 2);
    h.dispatch(111, (d) => d.symbol === 'EURUSD');
    await until('the bar to be handled', () => created.find((a) => a.id === eur.deployment_id)!.handled.length === 1);
    assert.deepEqual(created.find((a) => a.id === gbp.deployment_id)!.handled, []);
  });

  it('a faulting actor is stopped and started again only after its backoff, which doubles per fault in a row', async () => {
    const d = deployment(4);
    await view.put(d);
    const clock = new ReplayClock(1_000_000);
    // The first two actors fault on their first bar; the third runs.
    const { h, created } = host({ clock, faults: (_id, before) => ({ handle: before < 2 }) });
    await h.start();
    await until('the actor to run', () => h.runningIds().includes(d.deployment_id));

    h.dispatch(1, () => true);
    await until('the fault', () => created[0]!.stopped);
    assert.deepEqual(h.runningIds(), []);
    clock.advanceBy(999);
    await h.reconcile();
    assert.equal(created.length, 1, 'not restarted before the backoff (1 s)');
    clock.advanceBy(1);
    await h.reconcile();
    await until('the restart', () => h.runningIds().includes(d.deployment_id));
    assert.equal(created.length, 2);

    h.dispatch(2, () => true);
    await until('the second fault', () => created[1]!.stopped);
    clock.advanceBy(1999);
    await h.reconcile();
    assert.equal(created.length, 2, 'the second backoff is 2 s');
    clock.advanceBy(1);
    await h.reconcile();
    await until('the second restart', () => h.runningIds().includes(d.deployment_id));
    h.dispatch(3, () => true);
    await until('the bar handled', () => created[2]!.handled.includes(3));
    assert.equal((h.stats() as { faults: number }).faults, 2);
  });

  it('an actor whose start throws faults the same way', async () => {
    const d = deployment(5);
    await view.put(d);
    const clock = new ReplayClock(2_000_000);
    const { h, created } = host({ clock, faults: (_id, before) => ({ start: before === 0 }) });
    await h.start();
    await until('the failed start', () => created.length === 1 && created[0]!.stopped);
    assert.deepEqual(h.runningIds(), []);
    clock.advanceBy(1000);
    await h.reconcile();
    await until('the restart', () => h.runningIds().includes(d.deployment_id));
    assert.ok(created[1]!.started);
  });

  it('an undeployed deployment is released: actor stopped, lease deleted, its state forgotten', async () => {
    const d = deployment(6);
    await view.put(d);
    const forgot: string[] = [];
    const { h, created } = host({ forgot });
    await h.start();
    await until('the actor to run', () => h.runningIds().includes(d.deployment_id));
    assert.equal(await view.remove(d.user_id, d.model_name), true);
    await until('the release', () => forgot.includes(d.deployment_id));
    assert.ok(created[0]!.stopped);
    assert.equal(await leases.get(d.deployment_id), null);
  });

  it('an actor slow to stop does not hold up the renewal of the heartbeat the other actors run on', async () => {
    const slow = deployment(7);
    const other = deployment(8);
    await view.put(slow);
    await view.put(other);
    let finishStop!: () => void;
    const stopUntil = new Promise<void>((resolve) => (finishStop = resolve));
    const { h, created, clock } = host({ faults: (id) => (id === slow.deployment_id ? { stopUntil } : {}) });
    await h.start();
    await until('both actors to run', () => h.runningIds().length === 2);
    // Undeployed: its actor takes its time to stop. The next renewal still renews the other lease.
    await view.remove(slow.user_id, slow.model_name);
    await until('the release to begin', () => !h.runningIds().includes(slow.deployment_id));
    const before = (await heartbeats.get(`test_actor.${h.hostId}`))!.revision;
    clock.advanceBy(3_600_000);
    await until('the heartbeat renewed', async () => (await heartbeats.get(`test_actor.${h.hostId}`))!.revision > before);
    assert.equal((await leases.get(other.deployment_id))?.value.host, h.hostId, 'the other actor still held here');
    assert.equal(created.find((a) => a.id === slow.deployment_id)!.stopped, false, 'still stopping');
    finishStop();
    await until('the slow actor stopped', () => created.find((a) => a.id === slow.deployment_id)!.stopped);
  });

  it('a host whose heartbeat expired stops its actors; another takes them over by compare-and-set, never both', async () => {
    const d = deployment(9);
    await view.put(d);
    const late = host();
    const other = host();
    await late.h.start();
    await until('the first host to run it', () => late.h.runningIds().includes(d.deployment_id));
    await other.h.start();
    await other.h.reconcile();
    assert.deepEqual(other.h.runningIds(), [], 'held by a live host');
    // The heartbeat expires (the host could not renew in time): the other host takes the claim over.
    await heartbeats.delete(`test_actor.${late.h.hostId}`);
    await other.h.reconcile();
    await until('the take-over', () => other.h.runningIds().includes(d.deployment_id));
    assert.equal((await leases.get(d.deployment_id))?.value.host, other.h.hostId);
    // The late host finds out at its next pass: it stops the actor and does not claim it back.
    await late.h.reconcile();
    assert.deepEqual(late.h.runningIds(), []);
    assert.ok(late.created[0]!.stopped);
    await late.h.reconcile();
    assert.deepEqual(late.h.runningIds(), [], 'its new heartbeat does not win back a claim another host holds');
    assert.equal(late.created.length, 1);
  });

  it('a host whose heartbeat expired unseen by others confirms its own claims and runs them again', async () => {
    const d = deployment(10);
    await view.put(d);
    const { h, created } = host();
    await h.start();
    await until('the actor to run', () => h.runningIds().includes(d.deployment_id));
    const claim = (await leases.get(d.deployment_id))!;
    await heartbeats.delete(`test_actor.${h.hostId}`);
    await h.reconcile();
    assert.ok(created[0]!.stopped, 'stopped while the heartbeat was gone');
    await h.reconcile();
    await until('the actor to run again', () => h.runningIds().includes(d.deployment_id));
    assert.equal(created.length, 2);
    assert.ok((await leases.get(d.deployment_id))!.revision > claim.revision, 'the claim confirmed by compare-and-set');
  });

  it('balanced hosts share the actors out: a host that joins gets its share, handed over by the other', async () => {
    const deployments = [11, 12, 13, 14].map((u) => deployment(u));
    for (const d of deployments) await view.put(d);
    const first = host({ balance: true });
    await first.h.start();
    await until('the first host to run them all', () => first.h.runningIds().length === 4);
    const second = host({ balance: true });
    await second.h.start();
    await first.h.reconcile();
    await second.h.reconcile();
    await until('each to run its half', async () => {
      await second.h.reconcile();
      return first.h.runningIds().length === 2 && second.h.runningIds().length === 2;
    });
    const holders = await Promise.all(deployments.map(async (d) => (await leases.get(d.deployment_id))?.value.host));
    assert.equal(holders.filter((x) => x === first.h.hostId).length, 2);
    assert.equal(holders.filter((x) => x === second.h.hostId).length, 2);
    assert.equal(new Set([...first.h.runningIds(), ...second.h.runningIds()]).size, 4, 'each actor on one host');
  });

  it('grouped, a user’s actors stay together on one host when the hosts share them out', async () => {
    const deployments = [21, 21, 22, 22].map((u) => deployment(u));
    for (const d of deployments) await view.put(d);
    const first = host({ balance: true, grouped: true });
    await first.h.start();
    await until('the first host to run them all', () => first.h.runningIds().length === 4);
    const second = host({ balance: true, grouped: true });
    await second.h.start();
    await until('each to run its half', async () => {
      await first.h.reconcile();
      await second.h.reconcile();
      return first.h.runningIds().length === 2 && second.h.runningIds().length === 2;
    });
    const holder = async (d: DeploymentRecord) => (await leases.get(d.deployment_id))?.value.host;
    assert.equal(await holder(deployments[0]!), await holder(deployments[1]!), 'user 21 on one host');
    assert.equal(await holder(deployments[2]!), await holder(deployments[3]!), 'user 22 on one host');
  });

  it('grouped, hosts starting together on many users’ actors split at most one user between them', async () => {
    // Ten users' four deployments each, made in turns (as deploys arrive), then two hosts started at
    // once (a fleet brought up, the actor-fleet bench): each claims whole groups, its own first, and
    // stops within one group when it reaches its share. (Deployments arriving while hosts run can
    // leave a user split; that is not what this pins.)
    const users = Array.from({ length: 10 }, (_, k) => 31 + k);
    const made: DeploymentRecord[] = [];
    for (let round = 0; round < 4; round++) for (const u of users) made.push(deployment(u));
    for (const d of made) await view.put(d);
    const first = host({ balance: true, grouped: true });
    const second = host({ balance: true, grouped: true });
    await Promise.all([first.h.start(), second.h.start()]);
    await until('all forty run, twenty on each host', async () => {
      await first.h.reconcile();
      await second.h.reconcile();
      return first.h.runningIds().length === 20 && second.h.runningIds().length === 20;
    });
    const hostsOf = new Map<number, Set<string>>();
    for (const d of made) {
      const holder = (await leases.get(d.deployment_id))!.value.host;
      hostsOf.set(d.user_id, (hostsOf.get(d.user_id) ?? new Set()).add(holder));
    }
    const split = [...hostsOf.values()].filter((h) => h.size > 1).length;
    assert.ok(split <= 1, `${split} users on both hosts`);
  });
});
