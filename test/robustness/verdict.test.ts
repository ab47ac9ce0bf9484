/** The verdict rule, branch by branch, with the reasons a trader reads. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { WalkForward } from '../../schemas/robustness.ts';
import { tradeStats } from '../../src/backtest/index.ts';
import {
  MIN_PROFITABLE_FOLDS,
  MIN_TRADES,
  PBO_OVERFIT,
  SIGNIFICANCE_P,
  modelVsRule,
  percent,
  verdictOf,
  type VerdictInput,
} from '../../src/robustness/index.ts';

const CAPITAL = 10_000;
const stats = (ret: number, n = 1) =>
  tradeStats(
    Array.from({ length: n }, () => ({ pnl: (ret * CAPITAL) / n })),
    CAPITAL,
  );
const span = { from: '2026-01-01T00:00:00.000Z', to: '2026-01-02T00:00:00.000Z', bars: 96 };

/** Walk-forward folds with these test returns and training returns. */
function walkForward(tests: number[], trains: number[] = tests.map(() => 0.1), efficiency: number | null = 0.5): WalkForward {
  return {
    scheme: 'rolling',
    k: tests.length,
    purge_bars: 4,
    embargo_bars: 2,
    folds: tests.map((ret, index) => ({ index, train: span, test: span, stats: stats(ret, 10), train_stats: stats(trains[index]!, 40) })),
    profitable: tests.filter((r) => r > 0).length,
    efficiency,
  };
}

/** A model that passes everything: the robust case each test below changes one thing of. */
const good = (over: Partial<VerdictInput> = {}): VerdictInput => ({
  train: { n: 120, ret: 0.4 },
  test: { n: 45, ret: 0.12 },
  sharpe: { p_value: 0.01, trials: 4 },
  randomBaseline: { return_p_value: 0.004 },
  walkForward: walkForward([0.03, 0.02, -0.01, 0.04, 0.01]),
  ...over,
});

test('robust: enough trades, DSR p < 0.05, random-entry p < 0.05, ≥ 60 % of folds profitable — each said', () => {
  const { verdict, reasons } = verdictOf(good());
  assert.equal(verdict, 'robust');
  assert.deepEqual(reasons, [
    '45 trades out of sample: enough to measure (at least 30)',
    'deflated Sharpe p-value 0.01 after 4 variants tried: unlikely to be luck',
    'random entries with the same trades did as well in only 0.4 % of their runs',
    '4 of 5 walk-forward folds profitable',
  ]);
});

test('robust at the thresholds: exactly 30 trades, exactly 3 of 5 folds', () => {
  assert.equal(MIN_TRADES, 30);
  assert.equal(MIN_PROFITABLE_FOLDS, 0.6);
  assert.equal(
    verdictOf(good({ test: { n: 30, ret: 0.1 }, walkForward: walkForward([0.03, 0.02, -0.01, 0.04, -0.01]) })).verdict,
    'robust',
  );
});

test('overfit (a): training won, the test lost, and random entries did as well half the time or more', () => {
  const result = verdictOf(good({ train: { n: 300, ret: 2.89 }, test: { n: 60, ret: -0.27 }, randomBaseline: { return_p_value: 0.62 } }));
  assert.equal(result.verdict, 'overfit');
  assert.deepEqual(result.reasons, [
    'test return −27 % against +289 % in training: the model learned the training period (random entries did at least as well in 62 % of their runs)',
  ]);
  // A losing test that random entries rarely matched is not this contradiction (it may be a bad period): inconclusive.
  const unlucky = verdictOf(good({ train: { n: 300, ret: 2.89 }, test: { n: 60, ret: -0.27 }, randomBaseline: { return_p_value: 0.3 } }));
  assert.equal(unlucky.verdict, 'inconclusive');
});

test('overfit (b): negative walk-forward efficiency', () => {
  const result = verdictOf(good({ walkForward: walkForward([0.03, 0.02, -0.01, 0.04, 0.01], undefined, -0.42) }));
  assert.equal(result.verdict, 'overfit');
  assert.deepEqual(result.reasons, [
    'walk-forward efficiency −0.42: the out-of-sample folds lost money while their training spans made it',
  ]);
});

test('overfit (c): most folds lost while their training spans won; not when the training spans lost too', () => {
  const result = verdictOf(good({ walkForward: walkForward([-0.03, 0.02, -0.01, 0.04, -0.05], [0.3, 0.2, 0.25, 0.1, 0.15], null) }));
  assert.equal(result.verdict, 'overfit');
  assert.deepEqual(result.reasons, [
    '3 of 5 walk-forward folds lost money out of sample while their training spans made +20 % on average: the edge does not carry forward',
  ]);
  const allBad = verdictOf(good({ walkForward: walkForward([-0.03, 0.02, -0.01, 0.04, -0.05], [-0.1, -0.2, 0.05, -0.1, -0.1], null) }));
  assert.equal(allBad.verdict, 'inconclusive');
  assert.deepEqual(allBad.reasons, ['2 of 5 walk-forward folds profitable (needs at least 60 %)']);
});

test('overfit (d): PBO above 0.5 when an optimisation measured it; 0.5 itself is not', () => {
  assert.equal(PBO_OVERFIT, 0.5);
  const result = verdictOf(good({ pbo: 0.62 }));
  assert.equal(result.verdict, 'overfit');
  assert.deepEqual(result.reasons, [
    'probability of backtest overfitting 62 %: the best variant in training usually ends in the bottom half out of sample',
  ]);
  assert.equal(verdictOf(good({ pbo: 0.5 })).verdict, 'robust');
  assert.equal(verdictOf(good({ pbo: null })).verdict, 'robust');
});

test('overfit reasons come together, the train/test contradiction first', () => {
  const result = verdictOf(
    good({
      train: { n: 300, ret: 1.2 },
      test: { n: 60, ret: -0.05 },
      randomBaseline: { return_p_value: 0.7 },
      pbo: 0.8,
      walkForward: walkForward([0.01, 0.01, 0.01], undefined, -1),
    }),
  );
  assert.equal(result.verdict, 'overfit');
  assert.equal(result.reasons.length, 3);
  assert.match(result.reasons[0]!, /^test return −5\.0 % against \+120 % in training/);
  assert.match(result.reasons[1]!, /^walk-forward efficiency −1\.00/);
  assert.match(result.reasons[2]!, /^probability of backtest overfitting 80 %/);
});

test('inconclusive: too few trades, said with the count', () => {
  const result = verdictOf(good({ test: { n: 23, ret: 0.08 } }));
  assert.deepEqual(result, { verdict: 'inconclusive', reasons: ['23 trades: too few to tell (needs at least 30)'] });
  assert.deepEqual(verdictOf(good({ test: { n: 1, ret: 0.01 } })).reasons, ['1 trade: too few to tell (needs at least 30)']);
});

test('inconclusive: a deflated-Sharpe p-value of 0.05 or more', () => {
  assert.equal(SIGNIFICANCE_P, 0.05);
  assert.deepEqual(verdictOf(good({ sharpe: { p_value: 0.31, trials: 12 } })).reasons, [
    'deflated Sharpe p-value 0.31 after 12 variants tried: a Sharpe this high could be luck (needs below 0.05)',
  ]);
  assert.equal(verdictOf(good({ sharpe: { p_value: 0.05, trials: 1 } })).verdict, 'inconclusive');
});

test('inconclusive: random entries did as well too often', () => {
  assert.deepEqual(verdictOf(good({ randomBaseline: { return_p_value: 0.18 } })).reasons, [
    'random entries with the same trades did as well in 18 % of their runs (needs below 5.0 %)',
  ]);
});

test('inconclusive: too few profitable folds, or no folds at all', () => {
  assert.deepEqual(verdictOf(good({ walkForward: walkForward([0.03, 0.02, 0, 0, -0.01]) })).reasons, [
    '2 of 5 walk-forward folds profitable (needs at least 60 %)',
  ]);
  assert.deepEqual(verdictOf(good({ walkForward: null })).reasons, [
    'no walk-forward folds (too few bars): one test span is all the out-of-sample evidence',
  ]);
});

test('inconclusive reasons list every shortfall, most important first', () => {
  const result = verdictOf(
    good({ test: { n: 12, ret: 0.02 }, sharpe: { p_value: 0.4, trials: 1 }, randomBaseline: { return_p_value: 0.2 }, walkForward: null }),
  );
  assert.equal(result.verdict, 'inconclusive');
  assert.equal(result.reasons.length, 4);
  assert.match(result.reasons[0]!, /^12 trades: too few to tell/);
  assert.match(result.reasons[1]!, /after 1 variant tried/);
});

test('percentages as a trader reads them', () => {
  assert.deepEqual(
    [percent(2.89), percent(-0.27), percent(0.045), percent(0), percent(0.0012), percent(-0.00001)],
    ['+289 %', '−27 %', '+4.5 %', '0 %', '+0.12 %', '0 %'],
  );
});

test('with entry rules the last reason says whether the model adds over the rule, and the verdict is the strategy’s', () => {
  for (const uplift of [
    { rule_trades: 80, chosen_trades: 30, p_value: 0.004, pnl: 250 },
    { rule_trades: 80, chosen_trades: 30, p_value: 0.4, pnl: -20 },
  ]) {
    const words = modelVsRule(uplift).words;
    const judged = verdictOf(good({ modelVsRule: { words } }));
    assert.equal(judged.verdict, 'robust');
    assert.deepEqual(judged.reasons, [...verdictOf(good()).reasons, words]);
    const overfit = verdictOf(good({ pbo: 0.8, modelVsRule: { words } }));
    assert.equal(overfit.verdict, 'overfit');
    assert.equal(overfit.reasons.at(-1), words);
  }
});
