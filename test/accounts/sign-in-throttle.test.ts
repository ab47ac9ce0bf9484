import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { JsonKv } from '../../src/bus/index.ts';
import { openBucket } from '../../src/bus/index.ts';
import { SignInThrottledError } from '../../src/errors.ts';
import { delayAfter, SIGN_IN_LIMITS, SignInThrottle } from '../../src/accounts/sign-in-throttle.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type AttemptsRecord } from '../../schemas/account-records.ts';
import { startNats, type TestNats } from '../helpers/nats.ts';

const T0 = 1_700_000_000_000;
let ip = 0;
const freshIp = () => `203.0.113.${++ip}`;

describe('sign-in throttle', () => {
  let nats: TestNats;
  let kv: JsonKv<typeof AttemptsRecord>;
  let throttle: SignInThrottle;
  before(async () => {
    nats = await startNats('sign-in-throttle');
    kv = await openBucket(nats.bus, Buckets.signInAttempts);
    throttle = new SignInThrottle(kv);
  });
  after(() => nats?.close());

  const refused = async (promise: Promise<unknown>): Promise<number> => {
    const err = await promise.then(
      () => assert.fail('expected a refusal'),
      (e: unknown) => e,
    );
    assert.ok(err instanceof SignInThrottledError, String(err));
    assert.equal(err.status, 429);
    return Number(err.headers['retry-after']);
  };

  it('doubles the wait after the free attempts, up to the cap', () => {
    const waits = [0, 4, 5, 6, 7, 30].map((n) => delayAfter(n, 5, SIGN_IN_LIMITS));
    assert.deepEqual(waits, [0, 0, 30_000, 60_000, 120_000, SIGN_IN_LIMITS.maxDelayMs]);
  });

  it('lets a free attempt through when a racing one was counted first with a later time', async () => {
    // Two attempts start at T0+1000 and T0+999; the later-started one lands its count first.
    const name = 'racing-name';
    await throttle.attempt(freshIp(), name, T0 + 1000);
    await throttle.attempt(freshIp(), name, T0 + 999);
    assert.equal((await kv.get(`name.${name}`))?.value.last_at, T0 + 1000, 'the latest attempt’s time is kept');
  });

  it('lets 5 attempts at a username through, then asks each to wait twice as long as the one before', async () => {
    const addr = () => freshIp();
    for (let i = 0; i < 5; i++) await throttle.attempt(addr(), 'alice-1', T0 + i);
    assert.equal(await refused(throttle.attempt(addr(), 'ALICE-1', T0 + 10)), 30);
    await throttle.attempt(addr(), 'alice-1', T0 + 4 + 30_000);
    assert.equal(await refused(throttle.attempt(addr(), 'alice-1', T0 + 4 + 30_001)), 60);
    await throttle.attempt(addr(), 'alice-1', T0 + 4 + 30_000 + 60_000);
  });

  it('forgets a username’s attempts at a success, and all after a quiet day', async () => {
    const at = freshIp();
    for (let i = 0; i < 5; i++) await throttle.attempt(at, 'bob-1', T0 + i);
    await throttle.succeeded(at, 'bob-1');
    for (let i = 0; i < 5; i++) await throttle.attempt(freshIp(), 'bob-1', T0 + 10 + i);
    await refused(throttle.attempt(freshIp(), 'bob-1', T0 + 20));
    await throttle.attempt(freshIp(), 'bob-1', T0 + 20 + SIGN_IN_LIMITS.quietMs);
  });

  it('holds an address back after 20 attempts, whatever the usernames, and gives back a successful one', async () => {
    const at = freshIp();
    for (let i = 0; i < 19; i++) await throttle.attempt(at, `user-a${i}`, T0 + i);
    await throttle.succeeded(at, 'user-a18');
    await throttle.attempt(at, 'user-x1', T0 + 30);
    await throttle.attempt(at, null, T0 + 31);
    assert.equal(await refused(throttle.attempt(at, 'user-x2', T0 + 32)), 30);
    await throttle.attempt(freshIp(), 'user-x2', T0 + 33);
  });
});
