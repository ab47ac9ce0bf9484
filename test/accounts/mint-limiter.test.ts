import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { clientBlock, MintLimiter } from '../../src/accounts/mint-limiter.ts';
import { connectBus, openBucket, startEmbeddedNats, type Bus, type EmbeddedNats, type JsonKv } from '../../src/bus/index.ts';
import { RateLimitedError } from '../../src/errors.ts';
import { createLogger } from '../../src/log.ts';
import { Buckets } from '../../schemas/messages.ts';
import { type WindowRecord } from '../../schemas/account-records.ts';

const log = createLogger('silent');
const HOUR = 3_600_000;
const MIN = 60_000;
let dir: string;
let nats: EmbeddedNats;
let bus: Bus;
let kv: JsonKv<typeof WindowRecord>;
let limiter: MintLimiter;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sf-mint-'));
  nats = await startEmbeddedNats({ bin: process.env.NATS_SERVER_BIN ?? 'nats-server', storeDir: join(dir, 'nats'), log });
  bus = await connectBus(nats.url, 'test-mint', log);
  kv = await openBucket(bus, Buckets.mintWindows);
  limiter = new MintLimiter(kv, 5);
});

after(async () => {
  await bus?.close();
  await nats?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.now();
let nextIp = 1;
/** A fresh IPv4 address per test, so tests do not share windows. */
const freshIp = (): string => `192.0.2.${nextIp++}`;

async function rejects429(promise: Promise<unknown>, retryAfter: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof RateLimitedError, `expected RateLimitedError, got ${String(err)}`);
    assert.equal(err.status, 429);
    assert.equal(err.headers['retry-after'], retryAfter);
    assert.match(err.message, /at most 5 per hour/);
    return true;
  });
}

describe('MintLimiter (real NATS KV)', () => {
  it('allows 5 per IP per hour; the 6th gets 429 with Retry-After until the oldest leaves', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await limiter.take(ip, T0 + i * MIN);
    // At +10 min the oldest (+0) leaves the hour at +60 min: 50 minutes to wait.
    await rejects429(limiter.take(ip, T0 + 10 * MIN), String(50 * 60));
    await rejects429(limiter.take(ip, T0 + HOUR - 1), '1');
  });

  it('is a rolling hour: each mint frees its slot exactly one hour later, one at a time', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await limiter.take(ip, T0 + i * MIN);
    await rejects429(limiter.take(ip, T0 + HOUR - 1), '1');
    // The +0 mint is now an hour old: exactly one more is allowed…
    await limiter.take(ip, T0 + HOUR);
    // …and the next slot opens when the +1 min mint is an hour old.
    await rejects429(limiter.take(ip, T0 + HOUR), '60');
    await rejects429(limiter.take(ip, T0 + HOUR + MIN - 1), '1');
    await limiter.take(ip, T0 + HOUR + MIN);
    await rejects429(limiter.take(ip, T0 + HOUR + MIN), '60');
    // At +100 min the burst (+0…+4 min) has left; the +60 and +61 min mints remain: three more fit.
    const later = T0 + 100 * MIN;
    for (let i = 0; i < 3; i++) await limiter.take(ip, later);
    // Full again until the +60 min mint is an hour old, at +120 min.
    await rejects429(limiter.take(ip, later), String(20 * 60));
  });

  it('refused attempts do not count and do not push the window out', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await limiter.take(ip, T0);
    for (let t = 1; t <= 20; t++) await assert.rejects(limiter.take(ip, T0 + t * MIN), RateLimitedError);
    const stored = await kv.get(`mint.${Buffer.from(ip).toString('base64url')}`);
    assert.equal(stored?.value.stamps.length, 5, 'only the successful mints are stored');
    await limiter.take(ip, T0 + HOUR);
  });

  it('a whole hour without mints resets the address', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await limiter.take(ip, T0);
    for (let i = 0; i < 5; i++) await limiter.take(ip, T0 + 2 * HOUR);
    await rejects429(limiter.take(ip, T0 + 2 * HOUR), '3600');
  });

  it('addresses are independent', async () => {
    const [a, b] = [freshIp(), freshIp()];
    for (let i = 0; i < 5; i++) await limiter.take(a, T0);
    await assert.rejects(limiter.take(a, T0), RateLimitedError);
    for (let i = 0; i < 5; i++) await limiter.take(b, T0);
    await assert.rejects(limiter.take(b, T0), RateLimitedError);
  });

  it('counts an IPv6 /64 as one client, and IPv4-mapped addresses as their IPv4 address', async () => {
    // Two addresses in one /64 share a window: a subscriber holds the whole /64.
    for (let i = 0; i < 5; i++) await limiter.take(`2001:db8:1:2::${i + 1}`, T0 + i);
    await rejects429(limiter.take('2001:db8:1:2:ffff::9', T0 + 5 * MIN), String(55 * 60));
    // The next /64 has its own.
    await limiter.take('2001:db8:1:3::1', T0 + 5 * MIN);
    // ::ffff:a.b.c.d is a.b.c.d.
    for (let i = 0; i < 5; i++) await limiter.take('192.0.2.201', T0 + i);
    await rejects429(limiter.take('::ffff:192.0.2.201', T0 + 5 * MIN), String(55 * 60));
    for (const ip of ['::1', 'fe80::1%eth0', '2001:0db8:85a3:0000:0000:8a2e:0370:7334']) {
      for (let i = 0; i < 5; i++) await limiter.take(ip, T0 + i);
      await rejects429(limiter.take(ip, T0 + 5 * MIN), String(55 * 60));
      await limiter.take(ip, T0 + HOUR);
    }
  });

  it('clientBlock normalises addresses to the unit the limit counts', () => {
    assert.equal(clientBlock('198.51.100.7'), '198.51.100.7');
    assert.equal(clientBlock('::ffff:198.51.100.7'), '198.51.100.7');
    assert.equal(clientBlock('2001:db8:0:1::5'), '2001:db8:0:1::/64');
    assert.equal(clientBlock('2001:0db8:0000:0001:aaaa:bbbb:cccc:dddd'), '2001:db8:0:1::/64');
    assert.equal(clientBlock('2001:db8::1'), '2001:db8:0:0::/64');
    assert.equal(clientBlock('FE80::1%eth0'), 'fe80:0:0:0::/64');
  });

  it('concurrent mints from one address: exactly 5 pass', async () => {
    const ip = freshIp();
    const results = await Promise.allSettled(Array.from({ length: 25 }, () => limiter.take(ip, T0)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
    for (const r of results) {
      if (r.status === 'rejected') assert.ok(r.reason instanceof RateLimitedError);
    }
  });

  it('holds across processes: a second limiter on its own connection shares the window', async () => {
    const ip = '2001:db8:feed::42';
    const bus2 = await connectBus(nats.url, 'test-mint-2', log);
    try {
      const other = new MintLimiter(await openBucket(bus2, Buckets.mintWindows), 5);
      const results = await Promise.allSettled(Array.from({ length: 12 }, (_, i) => (i % 2 ? limiter : other).take(ip, T0 + 1_000)));
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 5);
      await rejects429(other.take(ip, T0 + 2_000), String(3599));
      await rejects429(limiter.take(ip, T0 + 2_000), String(3599));
    } finally {
      await bus2.close();
    }
  });

  it('uses the configured per-hour limit', async () => {
    const strict = new MintLimiter(kv, 2);
    const ip = freshIp();
    await strict.take(ip, T0);
    await strict.take(ip, T0);
    await assert.rejects(strict.take(ip, T0), (err: unknown) => {
      assert.ok(err instanceof RateLimitedError);
      assert.match(err.message, /at most 2 per hour/);
      return true;
    });
  });

  it('defaults now to the real clock', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await limiter.take(ip);
    await assert.rejects(limiter.take(ip), (err: unknown) => {
      assert.ok(err instanceof RateLimitedError);
      const retry = Number(err.headers['retry-after']);
      assert.ok(retry > 3500 && retry <= 3600, `retry-after ${retry}`);
      return true;
    });
  });
});
