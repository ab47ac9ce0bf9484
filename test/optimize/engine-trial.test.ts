/**
 * A trial's parameter set becomes the engine's inputs through the scoring chain's own functions:
 * the same options, signals and mask as engineOptions / toSignals / entryMask give a config and
 * settings with those values written in by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UnprocessableError } from '../../src/errors.ts';
import { applyEngineParams, engineTrial, type TrialBase } from '../../src/optimize/engine-trial.ts';
import { engineOptions, entryMask, toSignals, type FeatureRows } from '../../src/scoring/index.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { ModelSettings } from '../../schemas/training.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const config = StrategyConfig.parse({
  model_type: 'RandomForestClassifier',
  model_params: {},
  signal_threshold: 0.55,
  direction: 'both',
  stop_loss: 0.002,
  take_profit: 0.003,
  cooldown: 0,
  max_positions: 1,
  on_opposite: 'reverse',
  session_filter: null,
  min_atr: null,
  trend_filter: 'sma_20',
  trailing_stop: { pips: 10 },
  target_horizon: 4,
  objective: 'x',
  notes: 'x',
  title: 'x',
});
const settings = ModelSettings.parse({
  capital: 10_000,
  lot_size: 1,
  commission: 0,
  swap_long: 0,
  swap_short: 0,
  risk_unit: 'pips',
  confidence_threshold: 0.55,
  train_split: 0.7,
});
const base: TrialBase = { symbol: 'EURUSD', timeframe: '15min', config, settings };

const ohlc = loadBars('EURUSD', '15min', 2000);
const bars = { ...ohlc, spread: new Float64Array(ohlc.ts.length).fill(0.00002) };
const n = bars.ts.length;
const sma = new Float64Array(n).map((_, i) => (i >= 20 ? bars.close.slice(i - 19, i + 1).reduce((a, b) => a + b, 0) / 20 : bars.close[i]!));
const features: FeatureRows = { names: ['sma_20'], matrix: sma, rows: n, offset: 0 };
const pUp = new Float32Array(n).map((_, i) => 0.5 + 0.1 * Math.sin(i / 7));

describe('engine trials', () => {
  it('writes each engine parameter where train reads it: levels and threshold into the settings, pos_rules and filters into the config', () => {
    const t = applyEngineParams(base, {
      stop_loss: 12,
      take_profit: null,
      confidence_threshold: 0.6,
      cooldown: 3,
      direction: 'long',
      max_positions: 2,
      on_opposite: 'close_only',
      session_filter: [22, 6],
      skip_days: ['fri'],
      trailing_stop: 25,
    });
    assert.equal(t.settings.stop_loss, 12);
    assert.equal(t.settings.take_profit, null);
    assert.equal(t.settings.confidence_threshold, 0.6);
    assert.deepEqual(
      [t.config.cooldown, t.config.direction, t.config.max_positions, t.config.on_opposite, t.config.session_filter, t.config.skip_days],
      [3, 'long', 2, 'close_only', [22, 6], ['fri']],
    );
    assert.deepEqual(t.config.trailing_stop, { pips: 25 }, 'trailing_stop in the strategy’s own unit (pips here)');
    assert.equal(base.config.cooldown, 0, 'the base is left as it was');
  });

  it('gives the options, signals and mask the scoring chain gives the same config and settings', () => {
    const params = { stop_loss: 15, confidence_threshold: 0.58, cooldown: 2, session_filter: [7, 17], skip_days: ['mon'] };
    const trial = engineTrial(base, params, { bars, pUp, features, resolver: null });
    const cfg = { ...config, cooldown: 2, session_filter: [7, 17] as [number, number], skip_days: ['mon' as const] };
    const set = { ...settings, stop_loss: 15, confidence_threshold: 0.58 };
    assert.deepEqual(trial.options, engineOptions({ symbol: 'EURUSD', timeframe: '15min', config: cfg, settings: set }, null));
    assert.deepEqual(trial.signals, toSignals(pUp, 0.58));
    // session and days travel in the options (judged on the fill bar), not in the mask
    assert.deepEqual(trial.options.entryTimes, { session: [7, 17], skipDays: ['mon'] });
    assert.deepEqual(trial.mask, entryMask(bars, { minAtr: null, trendColumn: sma, entryFilter: null, exitLong: null, exitShort: null }));
  });

  it('refuses out-of-bounds values with a 422 naming the parameter', () => {
    for (const [name, value] of [
      ['cooldown', 501],
      ['direction', 'sideways'],
      ['confidence_threshold', 0.3],
      ['session_filter', [5, 5]],
      ['skip_days', ['someday']],
    ] as const) {
      assert.throws(
        () => applyEngineParams(base, { [name]: value as never }),
        (err: unknown) => err instanceof UnprocessableError && err.message.startsWith(name),
      );
    }
  });

  it('leaves model parameters to the fit', () => {
    const t = applyEngineParams(base, { model_type: 'XGBClassifier', 'model_params.max_depth': 3 });
    assert.deepEqual(t.config, config);
    assert.deepEqual(t.settings, settings);
  });
});
