/**
 * The search space against its strategy: what traders tune is accepted and classed engine or
 * model; an empty space, a grid over the maximum (its size said, computed at once even for 10¹²),
 * a parameter the strategy does not have and values out of bounds are 422s that name the
 * parameter and say what to do; the grid is enumerated in one stable order.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnprocessableError } from '../../src/errors.ts';
import { INDICATOR_RULES } from '../../src/indicators/index.ts';
import { checkSearchSpace, enumerateGrid, gridSize, type SpaceContext } from '../../src/optimize/search-space.ts';
import { MAX_GRID_SIZE, OptimizeSearch, paramClass, type OptimizeSearchInput } from '../../schemas/optimize-space.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';

/** A strategy that reads every indicator parameter from strategy_config()["indicators"] (all tunable). */
const READS_ALL = Object.fromEntries(INDICATOR_RULES.flatMap((r) => r.params.map((p) => [p.key, p.default])));
const RF = StrategyConfig.parse({
  ...strategyConfig('RandomForestClassifier', { n_estimators: 100, max_depth: 6 }),
  indicators: READS_ALL,
});
const ctx = (config: StrategyConfig = RF, extra: Partial<SpaceContext> = {}): SpaceContext => ({
  config,
  indicators: INDICATOR_RULES,
  ...extra,
});
const check = (search: OptimizeSearchInput, context = ctx()) => checkSearchSpace(OptimizeSearch.parse(search), context);

/** The 422's message, or a failure when the space was accepted. */
function refusal(search: OptimizeSearchInput, context = ctx()): string {
  try {
    check(search, context);
  } catch (err) {
    assert.ok(err instanceof UnprocessableError, String(err));
    return err.message;
  }
  assert.fail(`accepted: ${JSON.stringify(search)}`);
}

const int = (low: number, high: number, step?: number) => ({ type: 'int' as const, low, high, ...(step ? { step } : {}) });
const float = (low: number, high: number, step?: number) => ({ type: 'float' as const, low, high, ...(step ? { step } : {}) });
const choice = (...values: unknown[]) => ({ type: 'choice' as const, values }) as OptimizeSearchInput['parameters'][string];

describe('search space', () => {
  it('accepts every parameter traders tune, classed engine or model, sorted by name', () => {
    const trailing = StrategyConfig.parse({ ...RF, trailing_stop: { atr: 2, period: 14 } });
    const space = check(
      {
        method: 'tpe',
        trials: 80,
        seed: 3,
        parameters: {
          stop_loss: float(10, 50),
          take_profit: choice(20, 40, null),
          trailing_stop: float(1, 3),
          confidence_threshold: float(0.5, 0.7, 0.05),
          cooldown: int(0, 10),
          direction: choice('both', 'long'),
          max_positions: int(1, 3),
          on_opposite: choice('reverse', 'close_only', 'ignore'),
          session_filter: choice([7, 17], [22, 6], null),
          skip_days: choice([], ['fri'], ['mon', 'fri']),
          model_type: choice('RandomForestClassifier', 'ExtraTreesClassifier'),
          'model_params.n_estimators': int(50, 300, 50),
          'model_params.max_depth': int(3, 12),
          'indicators.rsi_period': int(7, 21),
          'indicators.bb_std': float(1.5, 3),
        },
      },
      ctx(trailing),
    );
    assert.equal(space.trials, 80);
    assert.equal(space.seed, 3);
    assert.equal(space.gridSize, null);
    assert.equal(space.engineOnly, false);
    const names = space.params.map((p) => p.name);
    assert.deepEqual(names, [...names].sort());
    const classes = Object.fromEntries(space.params.map((p) => [p.name, p.class]));
    for (const engine of [
      'stop_loss',
      'take_profit',
      'trailing_stop',
      'confidence_threshold',
      'cooldown',
      'direction',
      'max_positions',
      'on_opposite',
      'session_filter',
      'skip_days',
    ]) {
      assert.equal(classes[engine], 'engine', engine);
    }
    for (const model of [
      'model_type',
      'model_params.n_estimators',
      'model_params.max_depth',
      'indicators.rsi_period',
      'indicators.bb_std',
    ]) {
      assert.equal(classes[model], 'model', model);
    }
    assert.equal(paramClass('foo'), undefined);
  });

  it('says a space of engine parameters alone needs no retrain, and defaults trials and method', () => {
    const space = check({ parameters: { confidence_threshold: float(0.5, 0.8) } });
    assert.equal(space.method, 'tpe');
    assert.equal(space.trials, 50);
    assert.equal(space.engineOnly, true);
  });

  it('refuses an empty space, saying what to give', () => {
    assert.match(refusal({ parameters: {} }), /search space is empty: name at least one parameter/);
  });

  it('refuses a grid over the maximum with its size and the maximum, at once even for 10¹² combinations', () => {
    const huge = {
      method: 'grid' as const,
      parameters: Object.fromEntries(
        Array.from({ length: 12 }, (_, i) => [`indicators.${['sma', 'ema', 'wma', 'rsi', 'atr', 'bb'][i % 6]}_period`, int(2, 11)]),
      ),
    };
    // 6 distinct names (object keys): 10^6 — and one 10^12 grid from 2 axes of 10^6 each.
    const trillion = { method: 'grid' as const, parameters: { stop_loss: float(1, 1_000_000, 1), take_profit: float(1, 1_000_000, 1) } };
    assert.equal(gridSize(Object.values(trillion.parameters) as never), 1e12);
    const message = refusal(trillion); // computed from the axes: listing 10¹² points would never answer
    assert.match(
      message,
      /the grid has 1,000,000,000,000 combinations \(stop_loss 1,000,000 × take_profit 1,000,000\); the maximum is 10,000/,
    );
    assert.match(message, /random" or "tpe"/);
    assert.match(refusal(huge), /the grid has 1,000,000 combinations/);
    try {
      check(trillion);
    } catch (err) {
      assert.deepEqual((err as UnprocessableError).details, { grid_size: 1e12, max_grid_size: MAX_GRID_SIZE });
    }
  });

  it('accepts a grid at the maximum and runs each point once', () => {
    const space = check({ method: 'grid', parameters: { cooldown: int(0, 99), 'indicators.rsi_period': int(2, 101) } });
    assert.equal(space.gridSize, MAX_GRID_SIZE);
    assert.equal(space.trials, MAX_GRID_SIZE);
    assert.equal(check({ method: 'grid', trials: 3, parameters: { cooldown: int(0, 9) } }).trials, 3);
    assert.equal(check({ method: 'grid', trials: 30, parameters: { cooldown: int(0, 9) } }).trials, 10, 'a grid stops at its size');
  });

  it('refuses, by name, parameters the strategy does not have', () => {
    assert.match(
      refusal({ parameters: { stop_los: float(1, 2) } }),
      /'stop_los' is not a parameter; the parameters are stop_loss, take_profit/,
    );
    assert.match(
      refusal({ parameters: { 'model_params.learning_rate': float(0.01, 0.3) } }),
      /model_params.learning_rate is not a hyperparameter of RandomForestClassifier \(the strategy's model_type\); RandomForestClassifier has n_estimators, max_depth/,
    );
    assert.match(
      refusal({
        parameters: { model_type: choice('XGBClassifier', 'RandomForestClassifier'), 'model_params.learning_rate': float(0.01, 0.3) },
      }),
      /model_params.learning_rate is not a hyperparameter of RandomForestClassifier \(a model_type choice\)/,
    );
    assert.match(
      refusal({ parameters: { 'model_params.n_jobs': int(1, 4) } }),
      /model_params.n_jobs is set by the trainer; it cannot be tuned/,
    );
    assert.match(
      refusal({ parameters: { 'indicators.rsi_length': int(5, 20) } }),
      /indicators.rsi_length is not an indicator parameter; the indicator parameters are sma_period, .*rsi_period/,
    );
    assert.match(
      refusal({ parameters: { trailing_stop: float(0.01, 0.02) } }),
      /the strategy has no trailing_stop .* set one in strategy_config\(\) to tune it, or drop trailing_stop/,
    );
  });

  it('refuses an indicator parameter the strategy does not read (not in its strategy_config()["indicators"]), saying how to make it tunable', () => {
    const none = StrategyConfig.parse({ ...RF, indicators: undefined });
    const message = refusal({ parameters: { 'indicators.rsi_period': int(7, 21) } }, ctx(none));
    assert.match(message, /indicators.rsi_period: the strategy does not read it \(its strategy_config\(\) returns no "indicators"\)/);
    assert.match(
      message,
      /return it from strategy_config\(\) as "indicators": \{"rsi_period": 14, …\} and compute the indicator in feature_engineering with strategy_config\(\)\["indicators"\]\["rsi_period"\]/,
    );
    const some = StrategyConfig.parse({ ...RF, indicators: { ema_period: 20 } });
    assert.match(
      refusal({ parameters: { 'indicators.rsi_period': int(7, 21), 'indicators.ema_period': int(10, 30) } }, ctx(some)),
      /returns indicators ema_period but not rsi_period/,
    );
    assert.equal(check({ parameters: { 'indicators.ema_period': int(10, 30) } }, ctx(some)).params[0]!.class, 'model');
  });

  it('refuses indicator ranges that break the registry’s rules between parameters (MACD fast < slow) in some combination', () => {
    assert.match(
      refusal({ parameters: { 'indicators.macd_fast': int(10, 30) } }),
      /macd_fast must stay below macd_slow in every trial, but macd_fast reaches 30 and macd_slow goes down to 26/,
    );
    assert.match(
      refusal({ parameters: { 'indicators.macd_fast': int(8, 16), 'indicators.macd_slow': choice(14, 30) } }),
      /macd_fast reaches 16 and macd_slow goes down to 14/,
    );
    assert.equal(check({ parameters: { 'indicators.macd_fast': int(8, 16), 'indicators.macd_slow': int(20, 40) } }).params.length, 2);
  });

  it('accepts a hyperparameter of the model types chosen, and of the strategy’s own', () => {
    const xgb = strategyConfig('XGBClassifier', { n_estimators: 100 });
    assert.equal(
      check({ parameters: { 'model_params.learning_rate': { type: 'float', low: 0.01, high: 0.3, log: true } } }, ctx(xgb)).params.length,
      1,
    );
    assert.equal(
      check({
        parameters: { model_type: choice('XGBClassifier', 'GradientBoostingClassifier'), 'model_params.learning_rate': float(0.01, 0.3) },
      }).params.length,
      2,
    );
    assert.equal(check({ parameters: { 'model_params.max_features': choice('sqrt', 'log2', 0.5, null) } }).params.length, 1);
  });

  it('refuses values out of bounds or of the wrong kind, naming the parameter and the fix', () => {
    const cases: Array<[OptimizeSearchInput['parameters'], RegExp, Partial<SpaceContext>?]> = [
      [{ confidence_threshold: float(0.3, 0.9) }, /confidence_threshold: low 0.3 is not a number from 0.5 to 0.95/],
      [{ cooldown: float(0, 5) }, /cooldown is a whole number: use \{"type":"int",…\}/],
      [{ cooldown: int(0, 600) }, /cooldown: high 600 is not a whole number from 0 to 500/],
      [{ max_positions: int(5, 2) }, /max_positions: low \(5\) is above high \(2\)/],
      [{ direction: float(0, 1) }, /direction takes no range: list its values/],
      [{ direction: choice('both', 'sideways') }, /direction: "sideways" is not one of both, long, short/],
      [{ on_opposite: choice('reverse', 'reverse') }, /on_opposite: a value is listed twice/],
      [{ session_filter: choice([9, 9]) }, /start and end hour must differ/],
      [{ session_filter: choice([9, 25]) }, /\[9,25\] is not \[start_hour, end_hour\]/],
      [{ skip_days: choice(['fri', 'funday']) }, /skip_days: \["fri","funday"\] is not a list of at most 6 days/],
      [{ model_type: choice('SVC') }, /model_type: "SVC" is not one of XGBClassifier/],
      [{ 'model_params.max_depth': int(2, 40) }, /model_params.max_depth: high 40 is not allowed for RandomForestClassifier/],
      [{ 'model_params.criterion': choice('gini', 'hinge') }, /model_params.criterion: "hinge" is not allowed/],
      [{ 'indicators.rsi_period': int(1, 20) }, /indicators.rsi_period: low 1 is not a whole number from 2/],
      [{ stop_loss: float(0, 2) }, /stop_loss: low 0 is not a number above 0/],
      [{ stop_loss: float(0.1, 2) }, /stop_loss: high 2 is not a number above 0 to 1/, { riskUnit: 'pct' }],
      [{ cooldown: int(0, 55, 10) }, /cooldown: high − low \(55\) is not a multiple of step \(10\): use high 50 or 60/],
      [{ confidence_threshold: { type: 'float', low: 0.5, high: 0.9, step: 0.1, log: true } }, /step and log cannot both be given/],
      [{ 'indicators.bb_std': { type: 'float', low: 0, high: 2, log: true } }, /a log range needs low > 0/],
    ];
    for (const [parameters, message, extra] of cases)
      assert.match(refusal({ parameters }, ctx(RF, extra ?? {})), message, JSON.stringify(parameters));
  });

  it('reports every problem at once, each with its parameter', () => {
    try {
      check({ parameters: { foo: int(1, 2), cooldown: int(0, 900), direction: choice('up') } });
      assert.fail('accepted');
    } catch (err) {
      assert.ok(err instanceof UnprocessableError);
      assert.match(err.message, /has 3 problems/);
      assert.deepEqual(
        (err.details.problems as Array<{ parameter: string }>).map((p) => p.parameter),
        ['cooldown', 'direction', 'foo'],
      );
    }
  });

  it('refuses more tpe trials than it can weigh, pointing to random', () => {
    assert.match(
      refusal({ method: 'tpe', trials: 1_001, parameters: { cooldown: int(0, 9) } }),
      /tpe runs at most 1,000 trials \(asked for 1,001\).*use method "random" for more/,
    );
    assert.equal(check({ method: 'random', trials: 10_000, parameters: { cooldown: int(0, 9) } }).trials, 10_000);
  });

  it('refuses a grid it cannot list: a float range without a step, or a log scale', () => {
    assert.match(
      refusal({ method: 'grid', parameters: { confidence_threshold: float(0.5, 0.8) } }),
      /confidence_threshold: a grid needs a step for a float range/,
    );
    assert.match(
      refusal({ method: 'grid', parameters: { 'indicators.rsi_period': { type: 'int', low: 2, high: 64, log: true } } }),
      /a grid has no log scale/,
    );
  });

  it('enumerates the grid in a stable order: names sorted, the last fastest, axes low to high', () => {
    const space = check({
      method: 'grid',
      parameters: { take_profit: choice(30, null), confidence_threshold: float(0.5, 0.6, 0.05), cooldown: int(0, 4, 2) },
    });
    assert.equal(space.gridSize, 18);
    const points = [...enumerateGrid(space)];
    assert.equal(points.length, 18);
    assert.deepEqual(points.slice(0, 3), [
      { confidence_threshold: 0.5, cooldown: 0, take_profit: 30 },
      { confidence_threshold: 0.5, cooldown: 0, take_profit: null },
      { confidence_threshold: 0.5, cooldown: 2, take_profit: 30 },
    ]);
    assert.deepEqual(points.at(-1), { confidence_threshold: 0.6, cooldown: 4, take_profit: null });
    assert.deepEqual([...new Set(points.map((p) => p.confidence_threshold))], [0.5, 0.55, 0.6], 'float steps without rounding noise');
    assert.equal(new Set(points.map((p) => JSON.stringify(p))).size, 18);
    assert.deepEqual([...enumerateGrid(space)], points, 'the same order every time');
  });
});
