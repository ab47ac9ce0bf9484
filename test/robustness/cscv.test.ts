/**
 * CSCV's probability of backtest overfitting against a straightforward implementation written
 * here (concatenate the slices, compute each Sharpe from scratch, rank by sorting), and on
 * matrices whose answer is known: pure noise (about a coin flip) and one trial better in every
 * slice (0).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cscvPbo, cscvPboFitting, cscvPboOffThread, halfMasks } from '../../src/robustness/index.ts';
import { seededRandom } from '../../src/lib/seeded-random.ts';
import { gaussian } from './synthetic.ts';

function noiseMatrix(trials: number, steps: number, seed: number, drift: (trial: number) => number = () => 0): Float64Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: trials }, (_, n) => Float64Array.from({ length: steps }, () => drift(n) + gaussian(random)));
}

/** The paper's procedure, written the plain way. */
function referencePbo(matrix: Float64Array[], slices: number): { pbo: number; logits: number[] } {
  const size = Math.floor(Math.min(...matrix.map((r) => r.length)) / slices);
  const sharpe = (xs: number[]) => {
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, x) => s + (x - mean) ** 2, 0) / (xs.length - 1));
    return sd > 0 ? mean / sd : mean > 0 ? Infinity : mean < 0 ? -Infinity : 0;
  };
  const pick = (row: Float64Array, chosen: number[]) => chosen.flatMap((s) => Array.from(row.subarray(s * size, (s + 1) * size)));
  const logits: number[] = [];
  for (let mask = 0; mask < 2 ** slices; mask++) {
    const inSample = [...Array(slices).keys()].filter((s) => (mask >> s) & 1);
    if (inSample.length !== slices / 2) continue;
    const outOfSample = [...Array(slices).keys()].filter((s) => !((mask >> s) & 1));
    const is = matrix.map((row) => sharpe(pick(row, inSample)));
    const oos = matrix.map((row) => sharpe(pick(row, outOfSample)));
    const best = is.indexOf(Math.max(...is));
    // Rank 1 = worst out of sample; ties share their average rank.
    const order = oos.map((v, n) => ({ v, n })).sort((a, b) => a.v - b.v);
    const ranks = new Array<number>(matrix.length);
    for (let i = 0; i < order.length;) {
      let j = i;
      while (j + 1 < order.length && order[j + 1]!.v === order[i]!.v) j++;
      for (let k = i; k <= j; k++) ranks[order[k]!.n] = (i + j) / 2 + 1;
      i = j + 1;
    }
    const omega = ranks[best]! / (matrix.length + 1);
    logits.push(Math.log(omega / (1 - omega)));
  }
  return { pbo: logits.filter((l) => l <= 0).length / logits.length, logits };
}

function assertSameAsReference(matrix: Float64Array[], slices: number) {
  const got = cscvPbo(matrix, slices);
  const want = referencePbo(matrix, slices);
  assert.equal(got.combinations, want.logits.length);
  assert.equal(got.pbo, want.pbo);
  got.logits.forEach((l, i) => assert.ok(Math.abs(l - want.logits[i]!) < 1e-12, `combination ${i}: ${l} vs ${want.logits[i]}`));
  return got;
}

test('equals the straightforward implementation: 10 noisy trials × 160 steps, S = 16 (12,870 combinations)', () => {
  const matrix = noiseMatrix(10, 160, 1, (n) => 0.02 * n);
  const got = assertSameAsReference(matrix, 16);
  assert.equal(got.combinations, 12_870);
});

test('equals it with a remainder left out, ties (two identical trials, a constant trial) and S = 6', () => {
  const matrix = noiseMatrix(5, 37, 2);
  matrix.push(Float64Array.from(matrix[1]!)); // a copy of trial 1: equal Sharpes everywhere
  matrix.push(new Float64Array(37).fill(0)); // Sharpe 0 in every half
  const got = assertSameAsReference(matrix, 6);
  assert.equal(got.combinations, 20);
});

test('pure noise: the best in-sample trial is a coin flip out of sample (PBO near 0.5)', () => {
  const pbos = [1, 2, 3, 4, 5].map((seed) => cscvPbo(noiseMatrix(50, 800, 100 + seed), 16).pbo);
  const mean = pbos.reduce((s, p) => s + p, 0) / pbos.length;
  assert.ok(mean > 0.35 && mean < 0.8, `mean PBO ${mean.toFixed(3)} over pure noise (${pbos.map((p) => p.toFixed(2)).join(', ')})`);
});

test('one trial better in every slice: never overfit (PBO 0), its logit ln(N) in every combination', () => {
  const matrix = noiseMatrix(20, 800, 7, (n) => (n === 3 ? 0.6 : 0));
  const { pbo, logits } = cscvPbo(matrix, 16);
  assert.equal(pbo, 0);
  for (const l of logits) assert.ok(Math.abs(l - Math.log(20)) < 1e-12);
});

test('the combinations: C(S, S/2) masks with S/2 bits, ascending; bad shapes are refused', () => {
  const masks = halfMasks(6);
  assert.equal(masks.length, 20);
  assert.ok(masks.every((m, i) => m.toString(2).split('1').length - 1 === 3 && (i === 0 || m > masks[i - 1]!)));
  assert.throws(() => cscvPbo(noiseMatrix(1, 100, 1)), /at least 2 trials/);
  assert.throws(() => cscvPbo(noiseMatrix(3, 100, 1), 7), /even/);
  assert.throws(() => cscvPbo(noiseMatrix(3, 10, 1), 16), /too few/);
});

test('the most slices the steps allow (cscvPboFitting), and off the event loop the very same result', async () => {
  const matrix = noiseMatrix(30, 40, 9);
  // 40 steps: 16 slices of 2; 6 steps: only 4 slices of 1 leave halves of ≥ 2 steps; 3 steps: none.
  const fitted = cscvPboFitting(matrix, [16, 8, 4]);
  assert.equal(fitted!.slices, 16);
  assert.deepEqual(fitted, { ...cscvPbo(matrix, 16), slices: 16 });
  const short = noiseMatrix(30, 6, 9);
  assert.equal(cscvPboFitting(short, [16, 8, 4])!.slices, 4);
  assert.equal(cscvPboFitting(noiseMatrix(30, 3, 9), [16, 8, 4]), null);
  assert.deepEqual(await cscvPboOffThread(matrix, [16, 8, 4]), fitted);
  assert.deepEqual(await cscvPboOffThread(short, [16, 8, 4]), cscvPboFitting(short, [16, 8, 4]));
});
