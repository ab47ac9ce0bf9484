/**
 * The meta-label report's arithmetic on hand-made trades: precision and recall on the rule alone's
 * engine trades of the test span, the permutation test of the chosen trades against random subsets.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runBacktest } from '../../src/backtest/index.ts';
import { metaLabelReport, subsetPValue } from '../../src/training/meta-label-report.ts';
import { columns, flat, options } from '../backtest/fixtures.ts';

describe('subsetPValue (one-sided permutation test, seeded)', () => {
  const values = Array.from({ length: 40 }, (_, i) => (i < 20 ? 10 : -10));
  it('choosing exactly the winners is significant; choosing the losers is not', () => {
    const best = subsetPValue(
      values,
      values.map((v) => v > 0),
    )!;
    const worst = subsetPValue(
      values,
      values.map((v) => v < 0),
    )!;
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
    assert.equal(
      subsetPValue(
        values,
        values.map(() => false),
      ),
      null,
    );
    assert.equal(
      subsetPValue(
        values,
        values.map(() => true),
      ),
      null,
    );
  });
});

describe('metaLabelReport', () => {
  it("judges the model on the rule alone's engine trades of the test span: won = net P&L > 0, taken = P(win) at the signal bar ≥ threshold", () => {
    // Hourly bars at one price each; the rule alone reverses at bars 10, 12, 14, 16 (fills at the next open).
    const prices = [...Array(11).fill(1.1), 1.1, 1.1005, 1.101, 1.1015, 1.102, 1.1025, 1.103, 1.1025, 1.102];
    const bars = columns(prices.map(flat));
    const n = prices.length;
    const rule = new Int8Array(n);
    rule[10] = 1;
    rule[12] = -1;
    rule[14] = 1;
    rule[16] = -1;
    const pUp = new Float32Array(n).fill(0.2);
    for (const i of [10, 12, 16]) pUp[i] = 0.8;
    const test = { from: 10, to: n };
    const ruleAlone = runBacktest(options(), bars, rule, test);
    // long 11→13 wins, short 13→15 loses, long 15→17 wins, short 17→end wins
    assert.deepEqual(
      ruleAlone.trades.map((t) => [t.side, t.pnl > 0]),
      [
        [1, true],
        [-1, false],
        [1, true],
        [-1, true],
      ],
    );
    const confirmed = rule.map((s, i) => (pUp[i]! >= 0.6 ? s : 0));
    const ruleAndModel = runBacktest(options(), bars, confirmed, test);
    const r = metaLabelReport({
      bars,
      pUp,
      threshold: 0.6,
      rows: { rowsTrain: 3, rowsTest: 5, purged: 1, bothSkipped: 0 },
      ruleAlone,
      ruleAndModel,
      capital: 10_000,
    });
    // taken: the trades of bars 10, 12, 16 → won 2 of the 3 taken, took 2 of the 3 won
    assert.deepEqual(r.labels, { positives: 3, chosen: 3, base_rate: 3 / 4, precision: 2 / 3, recall: 2 / 3 });
    assert.equal(r.uplift.rule_trades, 4);
    assert.equal(r.uplift.chosen_trades, 3);
    assert.equal(r.uplift.chosen_pnl, ruleAlone.trades[0]!.pnl + ruleAlone.trades[1]!.pnl + ruleAlone.trades[3]!.pnl);
    // The sandbox's row counts are shown as they came (runtime-pool checks them), no figure rests on them.
    assert.deepEqual(r.rows, { train: 3, test: 5, purged: 1, both_skipped: 0 });
  });

  it('no rule trade: no precision, recall, base rate or test', () => {
    const bars = columns(Array.from({ length: 20 }, () => flat(1.1)));
    const none = runBacktest(options(), bars, new Int8Array(20), { from: 10, to: 20 });
    const r = metaLabelReport({
      bars,
      pUp: new Float32Array(20).fill(0.9),
      threshold: 0.6,
      rows: { rowsTrain: 3, rowsTest: 0, purged: 0, bothSkipped: 0 },
      ruleAlone: none,
      ruleAndModel: none,
      capital: 10_000,
    });
    assert.deepEqual(r.labels, { positives: 0, chosen: 0, base_rate: null, precision: null, recall: null });
    assert.equal(r.uplift.p_value, null);
    assert.match(r.verdict, /no trade/);
  });
});
