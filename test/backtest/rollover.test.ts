/** Swap rollovers at 17:00 New York: EST/EDT, weekdays, triple Wednesday, weekend instruments. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextRollover, nightsBetween } from '../../src/backtest/index.ts';

const H = 3_600_000;

test('17:00 New York is 22:00 UTC in winter, 21:00 UTC in summer', () => {
  assert.deepEqual(nextRollover(Date.UTC(2024, 0, 8, 12), false), { at: Date.UTC(2024, 0, 8, 22), nights: 1 }); // Monday
  assert.deepEqual(nextRollover(Date.UTC(2024, 6, 9, 12), false), { at: Date.UTC(2024, 6, 9, 21), nights: 1 }); // Tuesday
  // strictly after: at the rollover itself, the next one is a day later
  assert.equal(nextRollover(Date.UTC(2024, 0, 8, 22), false).at, Date.UTC(2024, 0, 9, 22));
  // the week of the DST change (2024-03-10): Friday 8th 22:00 UTC (EST), Monday 11th 21:00 UTC (EDT)
  assert.equal(nextRollover(Date.UTC(2024, 2, 8, 23), false).at, Date.UTC(2024, 2, 11, 21));
});

test('Wednesday counts 3 nights, Saturday and Sunday none: 7 a week', () => {
  assert.deepEqual(nextRollover(Date.UTC(2024, 0, 10, 0), false), { at: Date.UTC(2024, 0, 10, 22), nights: 3 });
  // Friday after its rollover → Monday's
  assert.deepEqual(nextRollover(Date.UTC(2024, 0, 12, 23), false), { at: Date.UTC(2024, 0, 15, 22), nights: 1 });
  const monday = Date.UTC(2024, 0, 8, 0);
  assert.equal(nightsBetween(monday, monday + 7 * 24 * H, false), 7);
});

test('weekend instruments (BTCUSD): every day, 1 night each', () => {
  assert.deepEqual(nextRollover(Date.UTC(2024, 0, 13, 0), true), { at: Date.UTC(2024, 0, 13, 22), nights: 1 }); // Saturday
  const monday = Date.UTC(2024, 0, 8, 0);
  assert.equal(nightsBetween(monday, monday + 7 * 24 * H, true), 7);
});

test('nightsBetween: entry < rollover ≤ exit', () => {
  const r = Date.UTC(2024, 0, 9, 22); // Tuesday
  assert.equal(nightsBetween(r - H, r, false), 1);
  assert.equal(nightsBetween(r, r + H, false), 0);
  assert.equal(nightsBetween(r - 2 * H, r - H, false), 0);
  // Tuesday 21:00 → Thursday 23:00: Tuesday 1 + Wednesday 3 + Thursday 1
  assert.equal(nightsBetween(r - H, Date.UTC(2024, 0, 11, 23), false), 5);
});
