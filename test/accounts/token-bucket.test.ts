import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBuckets } from '../../src/accounts/token-bucket.ts';

/** The anonymous per-address limiter: burst, steady refill, Retry-After, memory bound. Time is injected. */
describe('TokenBuckets', () => {
  it('lets a burst through, then paces at the rate, per key', () => {
    const buckets = new TokenBuckets(2, 5); // 5 at once, then 2 per second
    const t = 1_000_000;
    for (let i = 0; i < 5; i++) assert.deepEqual(buckets.take('a', t), { ok: true }, `burst ${i}`);
    const refused = buckets.take('a', t);
    assert.equal(refused.ok, false);
    assert.equal(!refused.ok && refused.retryAfterMs, 500, 'one token comes back in 1/rate seconds');
    assert.deepEqual(buckets.take('b', t), { ok: true }, 'another key has its own bucket');
    assert.deepEqual(buckets.take('a', t + 500), { ok: true }, 'refilled after half a second');
    assert.equal(buckets.take('a', t + 500).ok, false);
    // A long pause refills to the burst, never beyond.
    for (let i = 0; i < 5; i++) assert.equal(buckets.take('a', t + 3_600_000).ok, true);
    assert.equal(buckets.take('a', t + 3_600_000).ok, false);
  });

  it('sheds most of a flood: 300 requests at once pass only the burst', () => {
    const buckets = new TokenBuckets(10, 120);
    let passed = 0;
    for (let i = 0; i < 300; i++) if (buckets.take('flood', 5_000 + i).ok) passed++; // 300 within 0.3 s
    assert.ok(passed >= 120 && passed <= 124, `passed ${passed}`);
  });

  it('is off at a rate of 0', () => {
    const buckets = new TokenBuckets(0, 1);
    assert.equal(buckets.enabled, false);
    for (let i = 0; i < 100; i++) assert.equal(buckets.take('x', 0).ok, true);
    assert.equal(buckets.size, 0, 'keeps nothing');
  });

  it('bounds its memory by forgetting the least recently seen keys', () => {
    const buckets = new TokenBuckets(1, 1, 100);
    buckets.take('old', 0);
    for (let i = 0; i < 99; i++) buckets.take(`k${i}`, 1);
    buckets.take('old', 2); // seen again: now the most recent
    buckets.take('new', 3);
    assert.ok(buckets.size <= 100, `size ${buckets.size}`);
    assert.equal(buckets.take('old', 3).ok, false, '"old" was kept (its bucket is still empty)');
  });
});
