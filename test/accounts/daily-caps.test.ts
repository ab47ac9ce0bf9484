import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { DAILY_CAPS, DailyCaps } from '../../src/accounts/daily-caps.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import { RateLimitedError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { CAP_NAMES, type CapName } from '../../schemas/accounts.ts';
import { Buckets, type CounterRecord } from '../../schemas/messages.ts';

const log = createLogger('silent');
let dir: string;
let nats: EmbeddedNats;
let bus: Bus;
let kv: JsonKv<typeof CounterRecord>;
let caps: DailyCaps;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-caps-'));
  nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  bus = await connectBus(nats.url, 'test-caps', log);
  kv = await openBucket(bus, Buckets.caps);
  caps = new DailyCaps(kv);
});

after(async () => {
  await bus?.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

let nextUser = 1;
const newUser = (): number => nextUser++;

const DAY_MS = 86_400_000;
/** 2024-03-10 18:00:00.000 UTC: six hours before the next UTC midnight. */
const EVENING = Date.UTC(2024, 2, 10, 18, 0, 0);
const MIDNIGHT = Date.UTC(2024, 2, 11);

/** Asserts a RateLimitedError with status 429 and the given Retry-After; returns it. */
async function rejects429(promise: Promise<unknown>, retryAfter: string): Promise<RateLimitedError> {
  let caught: unknown;
  await assert.rejects(promise, (err: unknown) => {
    caught = err;
    return true;
  });
  assert.ok(caught instanceof RateLimitedError, `expected RateLimitedError, got ${String(caught)}`);
  assert.equal(caught.status, 429);
  assert.equal(caught.headers['retry-after'], retryAfter);
  return caught;
}

describe('DAILY_CAPS', () => {
  it('matches the contract Limits table, the same for free and pro', () => {
    for (const plan of ['free', 'pro'] as const) {
      assert.equal(DAILY_CAPS[plan].train_compute, 100);
      assert.equal(DAILY_CAPS[plan].generate_sonnet, 1);
      assert.equal(DAILY_CAPS[plan].generate_haiku, 3);
      assert.equal(DAILY_CAPS[plan].generate_opus, 1);
      assert.deepEqual(Object.keys(DAILY_CAPS[plan]).sort(), [...CAP_NAMES].sort());
    }
  });
});

describe('DailyCaps (real NATS KV)', () => {
  it('counts up to the limit, then throws 429 with Retry-After = seconds to next UTC midnight', async () => {
    const user = newUser();
    for (let i = 1; i <= 3; i++) {
      assert.deepEqual(await caps.use(user, 'free', 'generate_haiku', EVENING), { used: i, limit: 3 });
    }
    const err = await rejects429(caps.use(user, 'free', 'generate_haiku', EVENING), String(6 * 3600));
    assert.equal(err.retryAfterSeconds, 6 * 3600);
    assert.match(err.message, /daily cap reached: 3 Haiku generations/);
    assert.match(err.message, /2024-03-11T00:00:00\.000Z/);
    // A refused call leaves the count where it was.
    assert.equal((await caps.usedToday(user, EVENING)).generate_haiku, 3);
  });

  it('Retry-After is whole seconds, rounded up, never below 1', async () => {
    const user = newUser();
    await caps.use(user, 'free', 'generate_sonnet', MIDNIGHT - 500);
    // 0.5 s to midnight: Retry-After must be 1, not 0.
    await rejects429(caps.use(user, 'free', 'generate_sonnet', MIDNIGHT - 500), '1');
    // 1 h 0 min 0.25 s to midnight rounds up to 3601.
    await rejects429(caps.use(user, 'free', 'generate_sonnet', MIDNIGHT - 3_600_250), '3601');
    // At 00:00:00.000 exactly a full day remains (and it is a new day, so first use passes).
    const other = newUser();
    await caps.use(other, 'free', 'generate_opus', MIDNIGHT);
    await rejects429(caps.use(other, 'free', 'generate_opus', MIDNIGHT), String(24 * 3600));
  });

  it('every cap stops at its own limit, for both plans', async () => {
    for (const plan of ['free', 'pro'] as const) {
      const user = newUser();
      for (const cap of CAP_NAMES) {
        const limit = DAILY_CAPS[plan][cap];
        for (let i = 1; i <= limit; i++) {
          const { used } = await caps.use(user, plan, cap, EVENING);
          assert.equal(used, i);
        }
        await rejects429(caps.use(user, plan, cap, EVENING), String(6 * 3600));
      }
      assert.deepEqual(await caps.usedToday(user, EVENING), {
        train_compute: 100,
        generate_sonnet: 1,
        generate_haiku: 3,
        generate_opus: 1,
      });
    }
  });

  it('concurrent uses never overshoot the limit', async () => {
    const user = newUser();
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => caps.use(user, 'free', 'generate_haiku', EVENING)));
    const ok = results.filter((r) => r.status === 'fulfilled');
    const refused = results.filter((r) => r.status === 'rejected');
    assert.equal(ok.length, 3);
    assert.equal(refused.length, 17);
    for (const r of refused) assert.ok((r as PromiseRejectedResult).reason instanceof RateLimitedError);
    assert.deepEqual(ok.map((r) => (r as PromiseFulfilledResult<{ used: number }>).value.used).sort(), [1, 2, 3]);
    assert.equal((await caps.usedToday(user, EVENING)).generate_haiku, 3);
  });

  it('release gives one run back, and never goes below 0', async () => {
    const user = newUser();
    await caps.use(user, 'free', 'generate_sonnet', EVENING);
    await rejects429(caps.use(user, 'free', 'generate_sonnet', EVENING), String(6 * 3600));
    await caps.release(user, 'generate_sonnet', EVENING);
    assert.equal((await caps.usedToday(user, EVENING)).generate_sonnet, 0);
    assert.deepEqual(await caps.use(user, 'free', 'generate_sonnet', EVENING), { used: 1, limit: 1 });
    await rejects429(caps.use(user, 'free', 'generate_sonnet', EVENING), String(6 * 3600));
    // Releasing more than was used floors at 0 rather than granting extra runs.
    await caps.release(user, 'generate_sonnet', EVENING);
    await caps.release(user, 'generate_sonnet', EVENING);
    await caps.release(user, 'generate_sonnet', EVENING);
    assert.equal((await caps.usedToday(user, EVENING)).generate_sonnet, 0);
    await caps.use(user, 'free', 'generate_sonnet', EVENING);
    await rejects429(caps.use(user, 'free', 'generate_sonnet', EVENING), String(6 * 3600));
  });

  it('counts are per UTC day: the next day starts at 0', async () => {
    const user = newUser();
    await caps.use(user, 'free', 'generate_opus', EVENING);
    await rejects429(caps.use(user, 'free', 'generate_opus', MIDNIGHT - 1), '1');
    // One millisecond later it is a new UTC day.
    assert.deepEqual(await caps.use(user, 'free', 'generate_opus', MIDNIGHT), { used: 1, limit: 1 });
    await rejects429(caps.use(user, 'free', 'generate_opus', MIDNIGHT + 1), String(DAY_MS / 1000));
    // The earlier day keeps its own count, untouched by the new one.
    assert.equal((await caps.usedToday(user, EVENING)).generate_opus, 1);
    assert.equal((await caps.usedToday(user, MIDNIGHT + 12 * 3600_000)).generate_opus, 1);
    assert.equal((await caps.usedToday(user, MIDNIGHT + DAY_MS)).generate_opus, 0);
  });

  it('the day is the UTC day, whatever the local time zone would say', async () => {
    const user = newUser();
    // Run in UTC+14, where 23:30 UTC on the 10th is already the afternoon of the 11th locally.
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      const lateUtc = Date.UTC(2024, 2, 10, 23, 30);
      assert.equal(new Date(lateUtc).getDate(), 11, 'the local day differs from the UTC day here');
      await caps.use(user, 'free', 'generate_sonnet', lateUtc);
      await rejects429(caps.use(user, 'free', 'generate_sonnet', lateUtc), String(30 * 60));
      assert.equal((await caps.usedToday(user, Date.UTC(2024, 2, 10, 0, 0))).generate_sonnet, 1);
      assert.equal((await caps.usedToday(user, Date.UTC(2024, 2, 11, 0, 0))).generate_sonnet, 0);
      const entry = await kv.get(`${user}.generate_sonnet.20240310`);
      assert.equal(entry?.value.value, 1, 'stored under <user>.<cap>.<yyyymmdd> of the UTC day');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('counts are per user and per cap', async () => {
    const [alice, bob] = [newUser(), newUser()];
    await caps.use(alice, 'free', 'generate_sonnet', EVENING);
    await rejects429(caps.use(alice, 'free', 'generate_sonnet', EVENING), String(6 * 3600));
    // Bob has his own count; Alice's other caps are untouched.
    assert.deepEqual(await caps.use(bob, 'free', 'generate_sonnet', EVENING), { used: 1, limit: 1 });
    assert.deepEqual(await caps.use(alice, 'free', 'generate_opus', EVENING), { used: 1, limit: 1 });
    assert.deepEqual(await caps.use(alice, 'free', 'train_compute', EVENING), { used: 1, limit: 100 });
    assert.deepEqual(await caps.usedToday(alice, EVENING), {
      train_compute: 1,
      generate_sonnet: 1,
      generate_haiku: 0,
      generate_opus: 1,
    });
    assert.deepEqual(await caps.usedToday(bob, EVENING), {
      train_compute: 0,
      generate_sonnet: 1,
      generate_haiku: 0,
      generate_opus: 0,
    });
  });

  it('usedToday is all zeros for a user who has done nothing', async () => {
    const counts = await caps.usedToday(newUser(), EVENING);
    assert.deepEqual(counts, Object.fromEntries(CAP_NAMES.map((c: CapName) => [c, 0])));
  });

  it('another process sees the same counts', async () => {
    const user = newUser();
    const bus2 = await connectBus(nats.url, 'test-caps-2', log);
    try {
      const other = new DailyCaps(await openBucket(bus2, Buckets.caps));
      await caps.use(user, 'free', 'generate_haiku', EVENING);
      await other.use(user, 'free', 'generate_haiku', EVENING);
      await Promise.allSettled([
        caps.use(user, 'free', 'generate_haiku', EVENING),
        other.use(user, 'free', 'generate_haiku', EVENING),
        caps.use(user, 'free', 'generate_haiku', EVENING),
        other.use(user, 'free', 'generate_haiku', EVENING),
      ]);
      assert.equal((await other.usedToday(user, EVENING)).generate_haiku, 3);
      await rejects429(other.use(user, 'free', 'generate_haiku', EVENING), String(6 * 3600));
    } finally {
      await bus2.close();
    }
  });
});
