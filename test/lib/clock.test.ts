/** The replay clock: time moves only when told, timers fire in time order at their due times. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { clockAt, ReplayClock } from '../../src/lib/clock.ts';

const settle = () => new Promise((r) => setImmediate(r));

test('timers fire in time order as the clock is advanced, each seeing its own due time', () => {
  const clock = new ReplayClock(1000);
  const seen: number[] = [];
  const stop = clock.every(100, () => seen.push(clock.now()));
  clock.advanceTo(1099);
  assert.deepEqual(seen, []);
  clock.advanceTo(1300);
  assert.deepEqual(seen, [1100, 1200, 1300]);
  stop();
  clock.advanceBy(1000);
  assert.deepEqual(seen, [1100, 1200, 1300], 'a stopped timer does not fire');
  assert.equal(clock.now(), 2300);
  clock.advanceTo(5);
  assert.equal(clock.now(), 2300, 'never back');
});

test('sleep resolves once the clock reaches its end, not before', async () => {
  const clock = new ReplayClock(0);
  let woke = false;
  void clock.sleep(250).then(() => (woke = true));
  clock.advanceTo(249);
  await settle();
  assert.equal(woke, false);
  clock.advanceTo(250);
  await settle();
  assert.equal(woke, true);
});

test('clockAt reads the time it is given, each time it is asked', () => {
  let t = 1000;
  const clock = clockAt(() => t);
  assert.equal(clock.now(), 1000);
  t = 5000;
  assert.equal(clock.now(), 5000);
});
