/** Does the model add anything over the trader's rule? The one reading of the uplift test, case by case. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelVsRule } from '../../schemas/robustness.ts';
import { SIGNIFICANCE_P, modelVsRule } from '../../src/robustness/index.ts';

test('adds only below the verdict’s significance: p < 0.05 of the permutation test', () => {
  const adds = modelVsRule({ rule_trades: 120, chosen_trades: 40, p_value: 0.0005 });
  assert.equal(adds.adds, true);
  assert.equal(adds.words, "the model adds to the trader's rule: the 40 of its 120 test trades it confirmed beat random picks of as many (p = 0.0005)");
  assert.deepEqual(ModelVsRule.parse(adds), adds);
  assert.equal(modelVsRule({ rule_trades: 120, chosen_trades: 40, p_value: SIGNIFICANCE_P }).adds, false, 'p = 0.05 is not below it');
  const nothing = modelVsRule({ rule_trades: 120, chosen_trades: 40, p_value: 0.31 });
  assert.equal(nothing.adds, false);
  assert.match(nothing.words, /^the model adds nothing over the trader's rule: the 40 of its 120 .* \(p = 0\.310 ≥ 0\.05\)$/);
});

test('no test to run: no rule trade, none confirmed, or all confirmed — each adds nothing, saying why', () => {
  assert.deepEqual(modelVsRule({ rule_trades: 0, chosen_trades: 0, p_value: null }), {
    adds: false,
    p_value: null,
    rule_trades: 0,
    chosen_trades: 0,
    words: "the trader's rule made no trade on the test span: nothing to judge the model on",
  });
  const none = modelVsRule({ rule_trades: 25, chosen_trades: 0, p_value: null });
  assert.equal(none.adds, false);
  assert.match(none.words, /confirmed none of the rule's 25 test trades: it adds nothing here \(lower the confidence threshold, or trade the rule alone\)/);
  const all = modelVsRule({ rule_trades: 25, chosen_trades: 25, p_value: null });
  assert.equal(all.adds, false);
  assert.match(all.words, /confirmed every one of the rule's 25 test trades: it adds nothing over the rule alone/);
});
