/** The strategy_config() schema: the contract's keys, their bounds, per-model params. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { StrategyConfig, MODEL_TYPES } from '../../schemas/strategy.ts';
import { checkStrategyConfig, strategyConfigJsonSchema, STRATEGY_CONFIG_SCHEMA_FILE } from '../../src/sandbox/static-check.ts';

const VALID = {
  model_type: 'RandomForestClassifier',
  model_params: { n_estimators: 200, max_depth: 6, min_samples_leaf: 5, max_features: 'sqrt' },
  signal_threshold: 0.55,
  direction: 'both',
  stop_loss: 0.005,
  take_profit: null,
  cooldown: 2,
  max_positions: 1,
  on_opposite: 'reverse',
  session_filter: [22, 6],
  min_atr: null,
  trend_filter: 'sma_50',
  target_horizon: 4,
  objective: 'Fade RSI extremes',
  notes: 'One line',
  title: 'RSI reversion',
};

/** The key paths the config is refused on (empty = accepted). */
function refusedAt(patch: Record<string, unknown>): string[] {
  const { violations } = checkStrategyConfig({ ...VALID, ...patch });
  return violations.map((v) => v.message.split(':')[0]!);
}

test('a valid config passes', () => {
  assert.deepEqual(checkStrategyConfig(VALID), { ok: true, violations: [] });
});

test('one valid config per model class', () => {
  const params: Record<(typeof MODEL_TYPES)[number], Record<string, unknown>> = {
    XGBClassifier: { n_estimators: 300, max_depth: 4, learning_rate: 0.05, subsample: 0.8, colsample_bytree: 0.8 },
    RandomForestClassifier: { n_estimators: 500, max_depth: 16, class_weight: 'balanced' },
    GradientBoostingClassifier: { n_estimators: 100, learning_rate: 0.1, max_depth: 3, loss: 'log_loss' },
    ExtraTreesClassifier: { n_estimators: 100, bootstrap: false },
    LogisticRegression: { C: 0.5, penalty: 'l2', solver: 'lbfgs', max_iter: 1000 },
    AdaBoostClassifier: { n_estimators: 50, learning_rate: 0.5, algorithm: 'SAMME' },
  };
  for (const model_type of MODEL_TYPES) {
    assert.deepEqual(refusedAt({ model_type, model_params: params[model_type] }), [], model_type);
  }
  assert.deepEqual(refusedAt({ model_type: 'XGBClassifier', model_params: {} }), [], 'params may be empty');
});

test('model_type outside the list is refused', () => {
  assert.deepEqual(refusedAt({ model_type: 'SVC' }), ['model_type']);
  assert.deepEqual(refusedAt({ model_type: 'LGBMClassifier' }), ['model_type']);
});

test('model_params are whitelisted per model class', () => {
  assert.deepEqual(refusedAt({ model_params: { foo: 1 } }), ['model_params']);
  // learning_rate belongs to boosting, not forests; C to logistic regression only.
  assert.deepEqual(refusedAt({ model_params: { learning_rate: 0.1 } }), ['model_params']);
  assert.deepEqual(refusedAt({ model_type: 'XGBClassifier', model_params: { C: 1 } }), ['model_params']);
});

test('n_jobs, random_state, verbosity are set by us and refused with that reason', () => {
  for (const key of ['n_jobs', 'random_state', 'verbosity']) {
    const { violations } = checkStrategyConfig({ ...VALID, model_type: 'XGBClassifier', model_params: { [key]: 1 } });
    assert.equal(violations.length, 1, key);
    assert.match(violations[0]!.message, new RegExp(`^model_params\\.${key}: .*set by the trainer`));
  }
  assert.deepEqual(refusedAt({ model_type: 'XGBClassifier', model_params: { use_label_encoder: false, eval_metric: 'logloss' } }), [
    'model_params.use_label_encoder',
    'model_params.eval_metric',
  ]);
});

test('model_params bounds', () => {
  const bad: Array<[string, Record<string, unknown>]> = [
    ['RandomForestClassifier', { n_estimators: 501 }],
    ['RandomForestClassifier', { n_estimators: 0 }],
    ['RandomForestClassifier', { n_estimators: 10.5 }],
    ['RandomForestClassifier', { max_depth: 17 }],
    ['RandomForestClassifier', { max_depth: null }],
    ['ExtraTreesClassifier', { max_features: 1.5 }],
    ['XGBClassifier', { learning_rate: 0 }],
    ['XGBClassifier', { learning_rate: 2 }],
    ['XGBClassifier', { subsample: 0 }],
    ['GradientBoostingClassifier', { loss: 'exponential' }],
    ['LogisticRegression', { C: 0 }],
    ['LogisticRegression', { C: 1e5 }],
    ['LogisticRegression', { solver: 'evil' }],
    ['AdaBoostClassifier', { n_estimators: 1e9 }],
  ];
  for (const [model_type, model_params] of bad) {
    const paths = refusedAt({ model_type, model_params });
    assert.deepEqual(paths, [`model_params.${Object.keys(model_params)[0]}`], `${model_type} ${JSON.stringify(model_params)}`);
  }
});

test('each top-level bound', () => {
  const cases: Array<[string, unknown[], unknown[]]> = [
    // key, accepted values, refused values
    ['signal_threshold', [0.5, 0.95], [0.49, 0.96, '0.6']],
    ['direction', ['both', 'long', 'short'], ['up', null]],
    ['stop_loss', [null, 0.0001, 0.2], [0, -0.01, 0.21]],
    ['take_profit', [null, 0.2], [0, 0.5]],
    ['cooldown', [0, 500], [-1, 501, 1.5]],
    ['max_positions', [1, 10], [0, 11, 2.5]],
    ['on_opposite', ['reverse', 'close_only', 'ignore'], ['flip']],
    ['session_filter', [null, [0, 23], [22, 6]], [[5, 5], [0, 24], [-1, 3], [1, 2, 3], [1.5, 3], 'all']],
    ['min_atr', [null, 0, 0.0005], [-0.1]],
    ['trend_filter', [null, 'sma_200'], ['', 5]],
    [
      'trailing_stop',
      [null, 0.01, 0.2, { atr: 2 }, { atr: 0.1, period: 2 }, { atr: 20, period: 200 }, { pips: 30 }, { pips: 0.5 }],
      [
        0,
        0.21,
        { pips: 0 },
        { pips: 30, atr: 2 },
        -0.01,
        '1%',
        { atr: 0.05 },
        { atr: 21 },
        { atr: 2, period: 1 },
        { atr: 2, period: 201 },
        { atr: 2, period: 14.5 },
        { period: 14 },
        { atr: 2, pips: 30 },
      ],
    ],
    ['target_horizon', [1, 200], [0, 201, 4.5]],
    ['objective', ['', 'x'.repeat(200)], ['x'.repeat(201), 'two\nlines']],
    ['notes', ['ok'], ['x'.repeat(201)]],
    ['title', ['T', 'x'.repeat(60)], ['', 'x'.repeat(61)]],
  ];
  for (const [key, good, bad] of cases) {
    for (const v of good) assert.deepEqual(refusedAt({ [key]: v }), [], `${key}=${JSON.stringify(v)} accepted`);
    for (const v of bad) {
      const paths = refusedAt({ [key]: v });
      assert.ok(paths.length > 0 && paths.every((p) => p.startsWith(key)), `${key}=${JSON.stringify(v)} refused`);
    }
  }
});

test("trailing_stop is optional (code written before it stays valid); an ATR trail's period defaults to 14", () => {
  assert.equal(StrategyConfig.safeParse(VALID).success, true);
  const parsed = StrategyConfig.parse({ ...VALID, trailing_stop: { atr: 2 } });
  assert.deepEqual(parsed.trailing_stop, { atr: 2, period: 14 });
  assert.equal(StrategyConfig.parse({ ...VALID, trailing_stop: 0.01 }).trailing_stop, 0.01);
});

test('the JSON Schema describes what Python may return: an ATR trail without a period is accepted', () => {
  const text = JSON.stringify(strategyConfigJsonSchema());
  assert.match(text, /"trailing_stop"/);
  assert.doesNotMatch(text, /"required":\["atr","period"\]/);
  assert.match(text, /"required":\["atr"\]/);
});

test('every key is required and unknown keys are refused', () => {
  for (const key of Object.keys(VALID).filter((k) => k !== 'model_type')) {
    const partial: Record<string, unknown> = { ...VALID };
    delete partial[key];
    assert.equal(StrategyConfig.safeParse(partial).success, false, `${key} missing`);
  }
  assert.deepEqual(refusedAt({ stoploss: 0.01 }), ['(config)']);
  assert.equal(checkStrategyConfig(null).ok, false);
  assert.equal(checkStrategyConfig([]).ok, false);
});

test('the JSON Schema file for Python is generated from the zod schema and up to date', () => {
  const onDisk: unknown = JSON.parse(readFileSync(STRATEGY_CONFIG_SCHEMA_FILE, 'utf8'));
  assert.deepEqual(onDisk, strategyConfigJsonSchema(), 'regenerate: node --import tsx src/sandbox/static-check.ts --write-schema');
});
