/**
 * Indicator values over the code's own (ops.py use_indicators): a request's indicators are merged
 * over strategy_config()["indicators"] for the whole job, so a strategy that reads its periods from
 * strategy_config() computes with them — in the features op, a feature session, the look-ahead
 * analysis, the train op (overrides.indicators) and the config op — and the config it answers
 * carries them. Real sandboxed Python on real EURUSD bars.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { checkStrategyCode } from '../../src/sandbox/index.ts';
import { StrategyRuntime, type FeaturesResult } from '../../src/sandbox/runtime-pool.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { rsiStrategy } from '../helpers/indicator-strategy.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const log = createLogger('silent');
const CODE = rsiStrategy(14);
const column = (r: FeaturesResult, name: string) => Array.from(r.values[r.columns.indexOf(name)]!);

describe('indicator values over strategy_config()["indicators"]', () => {
  let runtime: StrategyRuntime;
  const bars = loadBars('EURUSD', '15min', 800);

  before(async () => {
    runtime = await StrategyRuntime.start({ log, size: 1 });
  });
  after(() => runtime?.stop());

  it('the static check lets feature_engineering call strategy_config()', async () => {
    assert.deepEqual(await checkStrategyCode(CODE), { ok: true, violations: [] });
  });

  it('the features op computes with the values asked for; the code’s own without; other columns unchanged', async () => {
    const own = await runtime.features(CODE, bars);
    const same = await runtime.features(CODE, bars, {}, { rsi_period: 14 });
    const tuned = await runtime.features(CODE, bars, {}, { rsi_period: 21 });
    assert.deepEqual(column(same, 'rsi'), column(own, 'rsi'));
    assert.notDeepEqual(column(tuned, 'rsi'), column(own, 'rsi'));
    assert.deepEqual(column(tuned, 'ret_1'), column(own, 'ret_1'));
    // What RSI(21) is: a strategy with 21 written in its config computes the same column.
    assert.deepEqual(column(tuned, 'rsi'), column(await runtime.features(rsiStrategy(21), bars), 'rsi'));
  });

  it('a feature session computes with the values it was opened with, on every call', async () => {
    const session = await runtime.openSession(CODE, {}, { rsi_period: 21 });
    try {
      const expected = column(await runtime.features(CODE, bars, {}, { rsi_period: 21 }), 'rsi');
      assert.deepEqual(column(await session.features(bars), 'rsi'), expected);
      assert.deepEqual(column(await session.features(bars), 'rsi'), expected);
    } finally {
      await session.close();
    }
  });

  it('the config op and the train op answer the merged config; the fit sees the values’ features', async () => {
    const config = StrategyConfig.parse(await runtime.config(CODE, {}, { rsi_period: 21 }));
    assert.deepEqual(config.indicators, { rsi_period: 21 });
    assert.deepEqual(StrategyConfig.parse(await runtime.config(CODE)).indicators, { rsi_period: 14 });
    const trained = await runtime.train(CODE, bars, { warmup: 30, overrides: { indicators: { rsi_period: 21 } } }, { timeoutMs: 60_000 });
    assert.deepEqual(trained.config.indicators, { rsi_period: 21 });
    const at = trained.features.indexOf('rsi');
    const expected = column(await runtime.features(CODE, bars, {}, { rsi_period: 21 }), 'rsi').slice(30);
    const fitted = Array.from({ length: trained.probaUp.length }, (_, i) => trained.matrix[i * trained.features.length + at]!);
    assert.deepEqual(fitted, expected);
  });

  it('the look-ahead analysis runs the code with the values', async () => {
    const analysis = await runtime.analyze(CODE, bars, { timeoutMs: 60_000 }, { indicators: { rsi_period: 21 }, seed: 1 });
    assert.deepEqual(analysis.problems, []);
    assert.ok(analysis.featureColumns.includes('rsi'));
  });

  it('the code cannot change the values for later calls (each call of strategy_config() gets its own dict)', async () => {
    const mutating = CODE.replace(
      '    p = strategy_config()["indicators"]["rsi_period"]',
      '    strategy_config()["indicators"]["rsi_period"] = 2\n    p = strategy_config()["indicators"]["rsi_period"]',
    );
    const session = await runtime.openSession(mutating, {}, { rsi_period: 21 });
    try {
      const expected = column(await runtime.features(CODE, bars, {}, { rsi_period: 21 }), 'rsi');
      assert.deepEqual(column(await session.features(bars), 'rsi'), expected);
      assert.deepEqual(column(await session.features(bars), 'rsi'), expected);
    } finally {
      await session.close();
    }
  });
});
