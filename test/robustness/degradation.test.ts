/** The least-squares degradation line of out-of-sample against in-sample performance. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { degradation } from '../../src/robustness/index.ts';

test('points on a line: its slope and intercept, R² 1', () => {
  const d = degradation([1, 2, 3, 4], [0.5, 0.25, 0, -0.25]);
  assert.deepEqual(d, { n: 4, slope: -0.25, intercept: 0.75, r2: 1 });
});

test('by hand: x 0, 1, 2; y 1, 3, 2 → slope 0.5, intercept 1.5, R² 0.25', () => {
  // x̄ 1, ȳ 2; Sxx 2, Sxy 1, Syy 2 → slope 1/2, R² = 1² / (2·2)
  const d = degradation([0, 1, 2], [1, 3, 2]);
  assert.equal(d.slope, 0.5);
  assert.equal(d.intercept, 1.5);
  assert.ok(Math.abs(d.r2! - 0.25) < 1e-15);
});

test('non-finite pairs are left out; too few points or no in-sample spread give nulls; constant OOS gives R² 0', () => {
  assert.deepEqual(degradation([1, NaN, 3, 5], [2, 7, Infinity, 4]), { n: 2, slope: 0.5, intercept: 1.5, r2: 1 });
  assert.deepEqual(degradation([1], [2]), { n: 1, slope: null, intercept: null, r2: null });
  assert.deepEqual(degradation([2, 2, 2], [1, 2, 3]), { n: 3, slope: null, intercept: null, r2: null });
  assert.deepEqual(degradation([1, 2, 3], [4, 4, 4]), { n: 3, slope: 0, intercept: 4, r2: 0 });
  assert.throws(() => degradation([1, 2], [1]), /2 in-sample values against 1/);
});
