/**
 * The meta-label report's arithmetic on hand-made trades: precision and recall on the labelled
 * rule bars of the test span, the permutation test of the chosen trades against random subsets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runBacktest, toBarColumns } from '../../src/backtest/index.ts';
import { metaLabelReport, subsetPValue } from '../../src/training/meta-label-report.ts';
import type { MetaLabels } from '../../src/sandbox/index.ts';
import { options } from '../backtest/fixtures.ts';

describe('subsetPValue (one-sided permutation test, seeded)', () => {
  const values = Array.from({ length: 40 }, (_, i) => (i < 20 ? 10 : -10));
  it('choosing exactly the winners is significant; choosing the losers is not', () => {
    const best = subsetPValue(values, values.map((v) => v > 0))!;
    const worst = subsetPValue(values, values.map((v) => v < 0))!;
    assert.ok(best < 0.01, `p = ${best}`);
    assert.ok(worst > 0.99, `p = ${worst}`);
  });
  it('a subset like the whole is not significant, and the same seed gives the same p', () => {
    const every2nd = values.map((_, i) => i % 2 === 0);
    const p = subsetPValue(values, every2nd)!;
    assert.ok(p > 0.05, `p = ${p}`);
    assert.equal(subsetPValue(values, every2nd), p);
  });
  it('no test when nothing or everything is chosen', () => {
    assert.equal(subsetPValue(values, values.map(() => false)), null);
    assert.equal(subsetPValue(values, values.map(() => true)), null);
  });
});

describe('metaLabelReport', () => {
  it('counts the labelled rule bars of the test span only: base rate, precision, recall', () => {
    const n = 20;
    const bars = toBarColumns(Array.from({ length: n }, (_, i) => ({ ts: i * 900_000, open: 1.1, high: 1.1, low: 1.1, close: 1.1 })));
    const pUp = new Float32Array(n).fill(0.2);
    for (const i of [11, 12, 15]) pUp[i] = 0.8;
    const labels: MetaLabels = {
      rowsTrain: 3, rowsTest: 5, purged: 1, bothSkipped: 0,
      bars: Int32Array.from([2, 5, 11, 12, 13, 15, 16]),
      sides: Int8Array.from([1, 1, 1, -1, 1, 1, -1]),
      labels: Uint8Array.from([1, 1, 1, 0, 1, 1, 0]),
      ends: Int32Array.from([4, 7, 12, 13, 15, 17, 18]),
    };
    const none = runBacktest(options(), bars, new Int8Array(n), { from: 10, to: 20 });
    const r = metaLabelReport({ bars, pUp, threshold: 0.6, labels, test: { from: 10, to: 20 }, ruleAlone: none, ruleAndModel: none, capital: 10_000 });
    // test rows 11, 12, 13, 15, 16: wins 11, 13, 15; chosen 11, 12, 15 → 2 of 3 chosen win, 2 of 3 wins chosen
    assert.deepEqual(r.labels, { positives: 3, chosen: 3, base_rate: 3 / 5, precision: 2 / 3, recall: 2 / 3 });
    assert.deepEqual(r.rows, { train: 3, test: 5, purged: 1, both_skipped: 0 });
    assert.equal(r.uplift.p_value, null);
    assert.match(r.verdict, /no trade/);
  });
});
