/** The recursive-average step and the true range shared by the ATR indicator and the engine's ATR trail. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ewmStep, givenAlpha, trueRange } from '../../src/lib/wilder.ts';

test('trueRange: high − low on the first bar, else the widest of the three ranges', () => {
  assert.equal(trueRange(1.2, 1.1, undefined), 1.2 - 1.1);
  assert.equal(trueRange(1.2, 1.1, 1.15), 1.2 - 1.1);
  assert.equal(trueRange(1.2, 1.1, 1.4), 1.4 - 1.1); // gap down
  assert.equal(trueRange(1.2, 1.1, 0.9), 1.2 - 0.9); // gap up
});

test('ewmStep: pandas adjust=False, y = ((1 − a)·y + a·v) / ((1 − a) + a), no update when v equals y', () => {
  const a = givenAlpha(1 / 14);
  assert.equal(a, 1 / (1 + (1 - 1 / 14) / (1 / 14)));
  assert.equal(ewmStep(2, 4, 0.5), 3);
  assert.equal(ewmStep(0.1, 0.1, a), 0.1);
  assert.equal(ewmStep(1, 2, a), ((1 - a) * 1 + a * 2) / (1 - a + a));
});
