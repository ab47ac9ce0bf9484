/**
 * The time budget of a strategy's sandbox jobs: it grows with the bars and with the model the
 * strategy asks for, stays between its floor and ceiling, and its message says which budget ran
 * out (CPU time, or the wall-clock backstop of a job that sat idle), how it was reached and what to change.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeBudget, budgetExceeded, configBudget, featuresBudget, LIMITS, trainBudget } from '../../src/training/time-budget.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';

const config = (model_type: string, model_params: object = {}) => strategyConfig(model_type, model_params, 'budget');
const rf200 = config('RandomForestClassifier', { n_estimators: 200, max_depth: 8 });

describe('time budget', () => {
  it('gives the analysis of a year of 15-min bars seconds: 2 s + 5 passes of 0.08 ms per bar', () => {
    const budget = analyzeBudget(25_000);
    assert.equal(budget.timeoutMs, 12_000);
    assert.equal(
      budgetExceeded(budget),
      'the strategy used up its CPU time budget of 12 s for 25,000 bars (2 s + 5 feature passes of 0.08 ms per bar); ' +
        'an endless loop, or feature code far slower than vectorised pandas (a Python loop over rows, rolling().apply)? Vectorise it, or use fewer bars',
    );
  });

  it('scales with the bars between its floor and its ceiling, and says when one of them decided', () => {
    const sizes = [100, 2_000, 10_000, 50_000, 100_000, 400_000];
    for (const budget of [analyzeBudget, featuresBudget]) {
      const ms = sizes.map((n) => budget(n).timeoutMs);
      assert.deepEqual(
        [...ms].sort((a, b) => a - b),
        ms,
        'never less for more bars',
      );
      assert.ok(ms.at(-1)! > ms[0]!);
    }
    assert.equal(analyzeBudget(100).timeoutMs, LIMITS.analyze.floorMs);
    assert.match(budgetExceeded(analyzeBudget(100)), /\(the floor of 5 s: 2 s \+ 5 feature passes of 0\.08 ms per bar come to less\)/);
    assert.equal(analyzeBudget(400_000).timeoutMs, LIMITS.analyze.ceilingMs);
    assert.match(budgetExceeded(analyzeBudget(400_000)), /budget of 120 s for 400,000 bars \(the ceiling of 120 s/);
    assert.equal(featuresBudget(50_000).timeoutMs, 6_000, '/predict at its 50,000 bars: 2 s + one pass');
    assert.match(budgetExceeded(configBudget()), /^strategy_config\(\) used up its CPU time budget of 5 s \(/);
  });

  it('sizes the fit by the model: more trees, deeper trees, more features and more bars take longer', () => {
    const bars = 25_000;
    const base = trainBudget(rf200, bars, 8).timeoutMs;
    assert.ok(trainBudget(config('RandomForestClassifier', { n_estimators: 400, max_depth: 8 }), bars, 8).timeoutMs > base);
    assert.ok(trainBudget(config('RandomForestClassifier', { n_estimators: 200, max_depth: 12 }), bars, 8).timeoutMs > base);
    assert.ok(trainBudget(rf200, bars, 64).timeoutMs > base);
    assert.ok(trainBudget(rf200, 2 * bars, 8).timeoutMs > base);
    assert.ok(
      trainBudget(config('ExtraTreesClassifier', { n_estimators: 200, max_depth: 8 }), bars, 8).timeoutMs < base,
      'extra trees split at random: cheaper',
    );
    assert.ok(trainBudget(config('XGBClassifier', { n_estimators: 200, max_depth: 8 }), bars, 8).timeoutMs < base);
    // A depth beyond what the rows allow costs nothing more (2^10 > 1,000 bars).
    const small = (d: number) =>
      trainBudget(config('GradientBoostingClassifier', { n_estimators: 500, max_depth: d }), 1_000, 256).timeoutMs;
    assert.equal(small(16), small(10));
  });

  it('grows with the walk-forward folds by their share of the fit (rolling k/(k+1), anchored k/2), the ceiling with it', () => {
    const bars = 25_000;
    const fit = (b: ReturnType<typeof trainBudget>) =>
      b.timeoutMs - trainBudget(rf200, bars, 8, { k: 5, scheme: 'rolling', foldsOnly: true }).timeoutMs;
    const base = trainBudget(rf200, bars, 8);
    const rolling = trainBudget(rf200, bars, 8, { k: 5, scheme: 'rolling' });
    const anchored = trainBudget(rf200, bars, 8, { k: 5, scheme: 'anchored' });
    assert.ok(rolling.timeoutMs > base.timeoutMs && anchored.timeoutMs > rolling.timeoutMs);
    // The same job's fit with folds minus its folds alone is the main fit: what the budget had without folds.
    assert.ok(Math.abs(fit(rolling) - (base.timeoutMs - 2_000 - 2 * 0.08 * bars)) <= 2);
    assert.match(
      budgetExceeded(anchored),
      /RandomForestClassifier n_estimators=200 max_depth=8 on 8 features, the model and 5 anchored walk-forward folds \(3\.5 × one fit\)\); lower n_estimators or max_depth, use fewer features or fewer wf_folds/,
    );
    const huge = (folds?: Parameters<typeof trainBudget>[3]) =>
      trainBudget(config('GradientBoostingClassifier', { n_estimators: 500, max_depth: 16 }), 400_000, 256, folds).timeoutMs;
    assert.equal(huge({ k: 5, scheme: 'anchored' }), LIMITS.train.ceilingMs * 3.5);
    assert.equal(huge(), LIMITS.train.ceilingMs);
  });

  it('names the model, its size and what to lower when the fit runs out', () => {
    const message = budgetExceeded(trainBudget(rf200, 25_000, 8));
    assert.match(
      message,
      /^the fit used up its CPU time budget of 40 s for 25,000 bars \(2 s \+ 2 feature passes of 0\.08 ms per bar \+ 10 × the expected 3\.4 s of RandomForestClassifier n_estimators=200 max_depth=8 on 8 features\); lower n_estimators or max_depth/,
    );
    assert.match(
      budgetExceeded(trainBudget(config('LogisticRegression', { max_iter: 5000 }), 25_000, 8)),
      /LogisticRegression max_iter=5000 .*; lower max_iter/,
    );
    assert.match(
      budgetExceeded(trainBudget(config('AdaBoostClassifier'), 25_000, 8)),
      /AdaBoostClassifier n_estimators=50 \(depth-2 trees\)/,
    );
    // Defaults are the trainer's: forests get max_depth 16, not sklearn's unbounded depth.
    assert.match(budgetExceeded(trainBudget(config('RandomForestClassifier'), 25_000, 8)), /n_estimators=100 max_depth=16/);
  });

  it('says when a job sat idle past its wall-clock backstop rather than using up its CPU time', () => {
    assert.equal(
      budgetExceeded(analyzeBudget(25_000), 'idle'),
      'the strategy spent 58 s neither computing nor waiting for a CPU, the wall-clock backstop of 4 × its CPU time budget of 12 s ' +
        'for 25,000 bars (2 s + 5 feature passes of 0.08 ms per bar) + 10 s; strategy code must not sleep or wait for anything',
    );
  });

  it('keeps every fit between 10 s and today’s 300 s', () => {
    assert.equal(trainBudget(config('LogisticRegression'), 300, 1).timeoutMs, LIMITS.train.floorMs);
    const huge = trainBudget(config('GradientBoostingClassifier', { n_estimators: 500, max_depth: 16 }), 400_000, 256);
    assert.equal(huge.timeoutMs, LIMITS.train.ceilingMs);
    assert.match(budgetExceeded(huge), /the ceiling of 300 s: .* come to more/);
  });
});
