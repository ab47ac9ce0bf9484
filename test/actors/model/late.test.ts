import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATE_AFTER_MS, lateness } from '../../../actors/model/late.ts';

const T = Date.UTC(2026, 10, 23, 14, 15);
const MIN = 60_000;

describe('lateness', () => {
  it('a bar that closed before the deploy is late (the issue: deployed 14:16:24, bar of 14:15)', () => {
    assert.deepEqual(lateness(T, '1min', T + MIN + 24_000, T + MIN + 25_000), { late: true, due_at: T + MIN });
  });

  it('the first bar closing after the deploy is on time', () => {
    assert.equal(lateness(T + MIN, '1min', T + MIN + 24_000, T + 2 * MIN + 2_000), null);
  });

  it('after an actor restart, a bar sent more than LATE_AFTER_MS after its close is late', () => {
    const deployedAt = T - 3_600_000;
    assert.equal(lateness(T, '15min', deployedAt, T + 15 * MIN + LATE_AFTER_MS), null);
    assert.deepEqual(lateness(T, '15min', deployedAt, T + 15 * MIN + LATE_AFTER_MS + 1), { late: true, due_at: T + 15 * MIN });
  });
});
