import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FairShare, PoolFullError, type Release } from '../../src/lib/fair-share.ts';

/** Acquires for each user in order, recording the order in which slots are granted. */
function recorder(pool: FairShare) {
  const started: string[] = [];
  const releases = new Map<string, Release[]>();
  const ask = (user: string, tag = user) =>
    pool.acquire(user).then((release) => {
      started.push(tag);
      releases.set(user, [...(releases.get(user) ?? []), release]);
    });
  const release = (user: string) => releases.get(user)!.shift()!();
  return { started, ask, release };
}

const tick = () => new Promise((r) => setImmediate(r));

test('a flooding user holds perUser slots; another user gets the next free slot, before the flood', async () => {
  const pool = new FairShare('pool', { slots: 2, perUser: 1 });
  const r = recorder(pool);
  for (let i = 0; i < 5; i++) void r.ask('a', `a${i}`);
  void r.ask('b', 'b0');
  await tick();
  assert.deepEqual(r.started, ['a0', 'b0'], 'a runs one, b takes the second slot at once');
  r.release('a');
  await tick();
  assert.deepEqual(r.started, ['a0', 'b0', 'a1']);
  void r.ask('c', 'c0');
  r.release('b');
  await tick();
  assert.deepEqual(r.started.at(-1), 'c0', 'a newcomer goes before the user served last');
});

test('users are served least recently served first, each in its own order', async () => {
  const pool = new FairShare('pool', { slots: 1, perUser: 1 });
  const r = recorder(pool);
  void r.ask('a', 'a0');
  await tick();
  void r.ask('a', 'a1');
  void r.ask('b', 'b0');
  void r.ask('b', 'b1');
  void r.ask('c', 'c0');
  for (let i = 0; i < 4; i++) {
    await tick();
    r.release(r.started.at(-1)![0]!);
  }
  await tick();
  assert.deepEqual(r.started, ['a0', 'b0', 'c0', 'a1', 'b1']);
});

test('with usage measured, a light user’s request goes ahead of a heavy user’s waiting ones', async () => {
  const used: Record<string, number> = { heavy: 30, light: 2 };
  const pool = new FairShare('pool', { slots: 1, perUser: 1, usage: (u) => used[String(u)] ?? 0 });
  const r = recorder(pool);
  void r.ask('other', 'o0');
  await tick();
  void r.ask('heavy', 'h0'); // asked first, and never served: least recently served would pick it
  void r.ask('heavy', 'h1');
  void r.ask('light', 'l0');
  const userOf: Record<string, string> = { o: 'other', h: 'heavy', l: 'light' };
  for (let i = 0; i < 3; i++) {
    r.release(userOf[r.started.at(-1)![0]!]!);
    await tick();
  }
  assert.deepEqual(r.started, ['o0', 'l0', 'h0', 'h1']);
});

test('users of equal usage are served least recently served first', async () => {
  const pool = new FairShare('pool', { slots: 1, perUser: 1, usage: () => 1 });
  const r = recorder(pool);
  void r.ask('a', 'a0');
  await tick();
  void r.ask('a', 'a1');
  void r.ask('b', 'b0');
  for (let i = 0; i < 2; i++) {
    await tick();
    r.release(r.started.at(-1)![0]!);
  }
  await tick();
  assert.deepEqual(r.started, ['a0', 'b0', 'a1']);
});

test('a penalized user runs only on an otherwise idle pool', async () => {
  const pool = new FairShare('pool', { slots: 2, perUser: 2, penalized: (u) => u === 'bad' });
  const r = recorder(pool);
  void r.ask('good', 'g0');
  void r.ask('bad', 'x0');
  await tick();
  assert.deepEqual(r.started, ['g0'], 'a free slot is left free rather than given to the penalized user');
  r.release('good');
  await tick();
  assert.deepEqual(r.started, ['g0', 'x0']);
});

test('a user with a full queue is refused at once; others are not', async () => {
  const pool = new FairShare('the pool', { slots: 1, perUser: 1, maxWaitingPerUser: 2 });
  const r = recorder(pool);
  void r.ask('a');
  void r.ask('a');
  void r.ask('a');
  await assert.rejects(pool.acquire('a'), (err: unknown) => err instanceof PoolFullError && /2 of your requests/.test(err.message));
  void r.ask('b');
  await tick();
  assert.equal(pool.queued, 3);
});

test('a release given twice frees one slot; counts return to zero', async () => {
  const pool = new FairShare('pool', { slots: 1 });
  const release = await pool.acquire(1);
  const second = pool.acquire(2);
  release();
  release();
  (await second)();
  assert.equal(pool.inFlight, 0);
  assert.equal(pool.runningFor(1), 0);
});

test('run() releases its slot when the work throws', async () => {
  const pool = new FairShare('pool', { slots: 1 });
  await assert.rejects(
    pool.run('a', async () => {
      throw new Error('boom');
    }),
    /boom/,
  );
  assert.equal(pool.inFlight, 0);
  assert.equal(await pool.run('a', async () => 7), 7);
});
