/**
 * applyOverrides: the optimiser's model_type / model_params merged over strategy_config() as
 * trainer.py merges them, and refused (422) by the StrategyConfig schema before any fit.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnprocessableError } from '../../src/errors.ts';
import { applyOverrides } from '../../src/sandbox/model-overrides.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';

const forest = strategyConfig('RandomForestClassifier', { n_estimators: 200, max_depth: 8 });

describe('applyOverrides', () => {
  it('merges model_params over the code’s own while model_type stays; keeps everything else', () => {
    const tuned = applyOverrides(forest, { model_params: { n_estimators: 50, min_samples_leaf: 5 } });
    assert.deepEqual(tuned.model_params, { n_estimators: 50, max_depth: 8, min_samples_leaf: 5 });
    assert.deepEqual({ ...tuned, model_params: null }, { ...forest, model_params: null });
    assert.deepEqual(applyOverrides(forest, { model_type: 'RandomForestClassifier', model_params: { max_depth: 4 } }).model_params, {
      n_estimators: 200,
      max_depth: 4,
    });
  });

  it('takes only the overrides’ params for another model_type (the code’s belong to its own class)', () => {
    const other = applyOverrides(forest, { model_type: 'LogisticRegression', model_params: { C: 0.5 } });
    assert.equal(other.model_type, 'LogisticRegression');
    assert.deepEqual(other.model_params, { C: 0.5 });
  });

  it('merges indicator values over the code’s own indicators, keeping the others', () => {
    const reads = { ...forest, indicators: { rsi_period: 14, ema_period: 20 } };
    assert.deepEqual(applyOverrides(reads, { indicators: { rsi_period: 21 } }).indicators, { rsi_period: 21, ema_period: 20 });
    assert.deepEqual(applyOverrides(reads, { model_params: { max_depth: 4 } }).indicators, reads.indicators);
  });

  it('refuses what the schema refuses, naming the field', () => {
    const refused = (pattern: RegExp) => (err: unknown) => err instanceof UnprocessableError && pattern.test(err.message);
    assert.throws(() => applyOverrides(forest, { model_params: { n_estimators: 100_000 } }), refused(/model_params\.n_estimators/));
    assert.throws(() => applyOverrides(forest, { model_params: { min_samples_leaf: 20_000 } }), refused(/model_params\.min_samples_leaf/));
    assert.throws(
      () => applyOverrides(forest, { model_type: 'LogisticRegression', model_params: { n_estimators: 10 } }),
      refused(/model_params: Unrecognized key/i),
    );
    assert.throws(() => applyOverrides(forest, { model_type: 'SVC' as 'LogisticRegression' }), refused(/model_type/));
  });
});
