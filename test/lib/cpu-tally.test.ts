import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CpuTally } from '../../src/lib/cpu-tally.ts';

/** A tally on a clock the test moves (ms). */
function tally(halfLifeMs = 60_000) {
  let now = 0;
  return { t: new CpuTally(halfLifeMs, () => now), advance: (ms: number) => void (now += ms) };
}

test('a charge counts fully now, half after one half-life, a quarter after two', () => {
  const { t, advance } = tally();
  t.charge('a', 8);
  assert.equal(t.usage('a'), 8);
  advance(60_000);
  assert.equal(t.usage('a'), 4);
  t.charge('a', 1);
  advance(60_000);
  assert.equal(t.usage('a'), 2.5);
  assert.equal(t.usage('b'), 0, 'a user never charged used nothing');
});

test('running work counts at one core for its wall time so far; its end charges what it measured instead', () => {
  const { t, advance } = tally(Infinity);
  const end = t.begin('a');
  advance(3_000);
  assert.equal(t.usage('a'), 3);
  end(0.5);
  assert.equal(t.usage('a'), 0.5);
  end(9);
  assert.equal(t.usage('a'), 0.5, 'ending twice charges once');
});

test('work that could not be measured is charged its wall time', () => {
  const { t, advance } = tally(Infinity);
  const end = t.begin(7);
  advance(1_500);
  end(null);
  advance(10_000);
  assert.equal(t.usage(7), 1.5);
});
