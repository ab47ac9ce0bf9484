/** Does the model add anything over the trader's rule? The one reading of the uplift test, case by case. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelVsRule } from '../../schemas/robustness.ts';
import { SIGNIFICANCE_P, modelVsRule } from '../../src/robustness/index.ts';

test('adds only when its picks beat random picks (p < 0.05) and the strategy as traded beat the rule alone', () => {
  const adds = modelVsRule({ rule_trades: 120, chosen_trades: 40, p_value: 0.0005, pnl: 412.5 });
  assert.equal(adds.adds, true);
  assert.equal(
    adds.words,
    "the model adds to the trader's rule: the 40 of its 120 test trades it confirmed beat random picks of as many (p = 0.0005), and the strategy made $412.50 more than the rule alone",
  );
  assert.deepEqual(ModelVsRule.parse(adds), adds);
  assert.equal(
    modelVsRule({ rule_trades: 120, chosen_trades: 40, p_value: SIGNIFICANCE_P, pnl: 412.5 }).adds,
    false,
    'p = 0.05 is not below it',
  );
  const nothing = modelVsRule({ rule_trades: 120, chosen_trades: 40, p_value: 0.31, pnl: 90 });
  assert.equal(nothing.adds, false);
  assert.match(nothing.words, /^the model adds nothing over the trader's rule: the 40 of its 120 .* \(p = 0\.310 ≥ 0\.05\)$/);
});

test('good picks that trade worse add nothing: a skipped trade frees the position for a later signal the rule alone never took', () => {
  // What a browser test met: 5 of 22 confirmed trades beat random picks, yet rule + model made $53.33 less.
  const worse = modelVsRule({ rule_trades: 22, chosen_trades: 5, p_value: 0.0025, pnl: -53.33 });
  assert.equal(worse.adds, false);
  assert.equal(
    worse.words,
    "the model adds nothing as traded: the 5 of the rule's 22 test trades it confirmed beat random picks of as many (p = 0.0025), but the strategy made $53.33 less than the rule alone on the test span",
  );
  assert.equal(modelVsRule({ rule_trades: 22, chosen_trades: 5, p_value: 0.0025, pnl: 0 }).adds, false, 'no more money is no uplift');
});

test('no test to run: no rule trade, none confirmed, or all confirmed — each adds nothing, saying why', () => {
  assert.deepEqual(modelVsRule({ rule_trades: 0, chosen_trades: 0, p_value: null, pnl: 0 }), {
    adds: false,
    p_value: null,
    rule_trades: 0,
    chosen_trades: 0,
    words: "the trader's rule made no trade on the test span: nothing to judge the model on",
  });
  const none = modelVsRule({ rule_trades: 25, chosen_trades: 0, p_value: null, pnl: -310 });
  assert.equal(none.adds, false);
  assert.match(
    none.words,
    /confirmed none of the rule's 25 test trades: it adds nothing here \(lower the confidence threshold, or trade the rule alone\)/,
  );
  const all = modelVsRule({ rule_trades: 25, chosen_trades: 25, p_value: null, pnl: 0 });
  assert.equal(all.adds, false);
  assert.match(all.words, /confirmed every one of the rule's 25 test trades: it adds nothing over the rule alone/);
});
