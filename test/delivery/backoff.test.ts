import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { nextAttemptAt, nominalSchedule, retryDelayMs, type RetryPolicy } from '../../src/delivery/index.ts';
import { loadConfig } from '../../src/config.ts';

const HOUR = 3_600_000;

describe('retry backoff', () => {
  const config = loadConfig({});
  const policy: RetryPolicy = {
    baseMs: config.WEBHOOK_RETRY_BASE_MS,
    maxMs: config.WEBHOOK_RETRY_MAX_MS,
    windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    jitter: 0.2,
  };

  it('doubles from the base up to the cap', () => {
    const mid = () => 0.5; // no jitter
    assert.deepEqual(
      [1, 2, 3, 4, 5].map((n) => retryDelayMs(policy, n, mid)),
      [5_000, 10_000, 20_000, 40_000, 80_000],
    );
    assert.equal(retryDelayMs(policy, 40, mid), policy.maxMs);
    assert.equal(retryDelayMs(policy, 10_000, mid), policy.maxMs, 'no overflow for huge attempt counts');
  });

  it('jitters each delay within ±20%', () => {
    assert.equal(
      retryDelayMs(policy, 3, () => 0),
      16_000,
    );
    assert.equal(
      retryDelayMs(policy, 3, () => 1),
      24_000,
    );
    for (let i = 0; i < 200; i++) {
      const d = retryDelayMs(policy, 4);
      assert.ok(d >= 32_000 && d <= 48_000, String(d));
    }
  });

  it('keeps retrying for at least 24 hours by default, the last retry at the end of the window', () => {
    assert.ok(policy.windowMs >= 24 * HOUR);
    const schedule = nominalSchedule(policy);
    assert.equal(schedule.at(-1), policy.windowMs);
    assert.ok(schedule.length >= 15 && schedule.length <= 40, `${schedule.length} retries`);
    for (let i = 1; i < schedule.length; i++) assert.ok(schedule[i]! > schedule[i - 1]!);
  });

  it('stops at the window: null once it is over', () => {
    const first = 1_000_000;
    assert.equal(
      nextAttemptAt(policy, first, 1, first, () => 0.5),
      first + 5_000,
    );
    // Close to the end, the next attempt is clamped to the deadline…
    const late = first + policy.windowMs - 1_000;
    assert.equal(
      nextAttemptAt(policy, first, 30, late, () => 0.5),
      first + policy.windowMs,
    );
    // …and a failure at (or after) the deadline ends it.
    assert.equal(
      nextAttemptAt(policy, first, 31, first + policy.windowMs, () => 0.5),
      null,
    );
  });

  it('a zero window makes the first failure final', () => {
    assert.equal(nextAttemptAt({ ...policy, windowMs: 0 }, 5, 1, 5), null);
  });
});
