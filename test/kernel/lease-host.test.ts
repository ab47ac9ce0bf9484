/**
 * The lease host on a real nats-server with holders that pull their own input (no `handle`): a
 * holder that reports a fault is stopped and started again after its backoff (on a replay clock)
 * with no message dispatched to it, a fault reported while it starts stops it once the start
 * returns, a stale report from a stopped holder changes nothing, and the holder is found by its
 * lease id from its creation. The holders are plain recorders: the host is what is under test.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { openBucket, type JsonKv } from '../../src/bus/index.ts';
import { LeaseHost, type LeaseContext, type LeaseHolder } from '../../src/kernel/index.ts';
import { ReplayClock } from '../../src/lib/clock.ts';
import { Buckets } from '../../schemas/messages.ts';
import { log, startNats, until, type TestNats } from '../helpers/nats.ts';

/** A holder that records its life and keeps the lease it was given, so the test can fault it. */
class Recorder implements LeaseHolder {
  started = false;
  stopped = false;
  constructor(
    readonly lease: LeaseContext,
    private readonly startUntil: Promise<void> = Promise.resolve(),
  ) {}
  async start() {
    await this.startUntil;
    this.started = true;
  }
  async stop() {
    this.stopped = true;
  }
}

describe('lease host', () => {
  let nats: TestNats;
  let leases: JsonKv<typeof Buckets.leases.schema>;
  let heartbeats: JsonKv<typeof Buckets.hosts.schema>;
  const hosts: LeaseHost<string, Recorder>[] = [];

  before(async () => {
    nats = await startNats('lease-host');
    leases = await openBucket(nats.bus, Buckets.leases);
    heartbeats = await openBucket(nats.bus, Buckets.hosts);
  });
  after(async () => {
    for (const h of hosts) await h.stop();
    await nats.close();
  });
  beforeEach(async () => {
    for (const h of hosts.splice(0)) await h.stop();
  });

  /** A host of the given lease ids whose renewals happen only when the test reconciles. */
  function host(
    ids: string[],
    startUntil?: (created: number) => Promise<void> | undefined,
    restless = false,
    starts: { startsAtOnce?: number; startSlotMs?: number; stopWaitMs?: number } = {},
  ) {
    const created: Recorder[] = [];
    const clock = new ReplayClock(1_000_000);
    const h = new LeaseHost<string, Recorder>({
      names: { actor: 'test holder', spec: 'lease', id: 'lease_id' },
      desired: {
        // Restless: every pass is told of a change while it runs, so passes follow each other without a gap (a host under load).
        follow: async (onChange) => ({ all: () => (restless && setImmediate(onChange), ids), stop: () => undefined }),
      },
      idOf: (id) => id,
      leases,
      hosts: heartbeats,
      log,
      clock,
      renewMs: 3_600_000,
      backoff: { baseMs: 1000, maxMs: 60_000 },
      ...starts,
      create: async (_id, lease) => {
        const holder = new Recorder(lease, startUntil?.(created.length));
        created.push(holder);
        return holder;
      },
    });
    hosts.push(h);
    return { h, created, clock };
  }

  it('a holder that reports a fault is stopped and started again after its backoff, nothing dispatched to it', async () => {
    const { h, created, clock } = host(['holder.a']);
    await h.start();
    await until('the holder to run', () => h.runningIds().includes('holder.a'));
    assert.equal(h.holder('holder.a'), created[0]);
    assert.ok(created[0]!.lease.leaseLeftMs() > 0, 'it may act on its lease');

    created[0]!.lease.fault(new Error('the store refused a write'));
    assert.ok(created[0]!.stopped, 'stopped at once');
    assert.equal(h.holder('holder.a'), null, 'no longer found by its lease id');
    assert.deepEqual(h.runningIds(), []);
    clock.advanceBy(999);
    await h.reconcile();
    assert.equal(created.length, 1, 'not restarted before the backoff (1 s)');
    clock.advanceBy(1);
    await h.reconcile();
    await until('the restart', () => h.runningIds().includes('holder.a'));
    assert.equal(created.length, 2);
    assert.equal(h.holder('holder.a'), created[1]);

    // The first holder's late report faults nothing: its successor runs on.
    created[0]!.lease.fault(new Error('a late report'));
    assert.equal(created[1]!.stopped, false);
    created[1]!.lease.fault(new Error('again'));
    clock.advanceBy(1999);
    await h.reconcile();
    assert.equal(created.length, 2, 'the second fault in a row backs off 2 s');
    clock.advanceBy(1);
    await h.reconcile();
    await until('the second restart', () => h.runningIds().includes('holder.a'));
    assert.equal((h.stats() as { faults: number }).faults, 2);
    // Held all along: the claim never left this host.
    assert.equal((await leases.get('holder.a'))?.value.host, h.hostId);
  });

  it('a fault reported while the holder starts stops it once its start returns; it is found by id while starting', async () => {
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    const { h, created, clock } = host(['holder.b'], (n) => (n === 0 ? gate : undefined));
    await h.start();
    await until('the holder to be created', () => created.length === 1);
    assert.equal(h.holder('holder.b'), created[0], 'found while it starts');
    assert.deepEqual(h.runningIds(), [], 'not running before its start returns');
    created[0]!.lease.fault(new Error('its stream broke while it opened'));
    open();
    await until('the faulted holder to stop', () => created[0]!.stopped);
    assert.deepEqual(h.runningIds(), []);
    clock.advanceBy(1000);
    await h.reconcile();
    await until('the restart', () => h.runningIds().includes('holder.b'));
    assert.ok(created[1]!.started);
  });

  it('two hosts, one lease: the other host takes it over only once the first has died and its heartbeat expired', async () => {
    const first = host(['holder.c']);
    const second = host(['holder.c']);
    await first.h.start();
    await until('the first to hold it', () => first.h.runningIds().includes('holder.c'));
    await second.h.start();
    await second.h.reconcile();
    assert.deepEqual(second.h.runningIds(), [], 'held: the second waits');
    assert.equal(second.created.length, 0);
    await first.h.stop(false);
    await until('the second to take it over', async () => {
      await second.h.reconcile();
      return second.h.runningIds().includes('holder.c');
    });
    assert.equal((await leases.get('holder.c'))?.value.host, second.h.hostId);
  });

  it('reconcile returns once a pass begun after the call is done, though passes run back to back', async () => {
    const { h } = host(['holder.a', 'holder.b'], undefined, true);
    await h.start();
    for (let i = 0; i < 3; i++) await h.reconcile();
    await until('both holders to run', () => h.runningIds().length === 2);
  });

  it('starts at most startsAtOnce holders together, the next as each returns; a start that hangs frees its place after the slot time', async () => {
    const ids = Array.from({ length: 12 }, (_, i) => `holder.s${String(i).padStart(2, '0')}`);
    const gates: Array<() => void> = [];
    let unhang!: () => void;
    const hung = new Promise<void>((resolve) => (unhang = resolve));
    let inStart = 0;
    let most = 0;
    const { h, created } = host(
      ids,
      (n) => {
        // The first holder does not finish starting until the test ends; the others wait for the test to let them go.
        if (n === 0) return hung;
        inStart++;
        most = Math.max(most, inStart);
        return new Promise<void>((resolve) => gates.push(() => (inStart--, resolve())));
      },
      false,
      { startsAtOnce: 3, startSlotMs: 400 },
    );
    await h.start();
    await until('three starts', () => created.length === 3);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(created.length, 3, 'no fourth start while three are starting');
    gates.shift()!();
    await until('the next start once one returned', () => created.length === 4);
    // The hung start gives its place up after 400 ms: the rest start though it never returns.
    while (h.runningIds().length < ids.length - 1) {
      await until('another start', () => gates.length > 0 || h.runningIds().length === ids.length - 1);
      gates.shift()?.();
    }
    assert.equal(created.length, ids.length);
    assert.ok(most <= 3, `at most three starting at once (saw ${most})`);
    assert.deepEqual(h.runningIds().sort(), ids.slice(1), 'every holder runs but the hung one');
    unhang();
    await until('the slow one to run too', () => h.runningIds().length === ids.length);
  });

  it(
    'stops though a holder’s start never returns: the release waits stopWaitMs, and the holder is stopped once its start returns',
    { timeout: 20_000 },
    async () => {
      let unhang!: () => void;
      const hung = new Promise<void>((resolve) => (unhang = resolve));
      const { h, created } = host(['holder.hung', 'holder.fine'], (n) => (n === 0 ? hung : undefined), false, { stopWaitMs: 200 });
      await h.start();
      await until('both created, the fine one running', () => created.length === 2 && h.runningIds().includes('holder.fine'));
      const hungHolder = created.find((c) => !c.started)!;
      await h.stop();
      assert.ok(
        created.every((c) => c.started || !c.stopped),
        'a holder still starting is not stopped under its start',
      );
      assert.equal(created.find((c) => c !== hungHolder)!.stopped, true, 'the others are stopped as ever');
      assert.equal(hungHolder.stopped, false);
      unhang();
      await until('the late start to stop its holder', () => hungHolder.stopped);
      assert.deepEqual(h.runningIds(), []);
    },
  );
});
