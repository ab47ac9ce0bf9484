/**
 * A batch of trials in one sweep gives, per trial, what runBacktest of that trial over the folds
 * gives: its trades by the fold they entered in (in-sample = every fold but the last, out-of-sample
 * = the last), each fold's equity change, and the per-period returns at the marks.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runBacktest, tradeStats } from '../../src/backtest/index.ts';
import { engineTrial, type TrialBase } from '../../src/optimize/engine-trial.ts';
import { evaluateTrials, markLayout, sharpe } from '../../src/optimize/trial-runs.ts';
import { StrategyConfig } from '../../schemas/strategy.ts';
import { ModelSettings } from '../../schemas/training.ts';
import type { ParamSet } from '../../schemas/optimize.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const config = StrategyConfig.parse({
  model_type: 'RandomForestClassifier',
  model_params: {},
  signal_threshold: 0.55,
  direction: 'both',
  stop_loss: null,
  take_profit: null,
  cooldown: 0,
  max_positions: 1,
  on_opposite: 'reverse',
  session_filter: null,
  min_atr: null,
  trend_filter: null,
  target_horizon: 4,
  objective: 'x',
  notes: 'x',
  title: 'x',
});
const settings = ModelSettings.parse({
  capital: 10_000,
  lot_size: 1,
  commission: 3,
  swap_long: -1,
  swap_short: -1,
  risk_unit: 'pips',
  confidence_threshold: 0.55,
  train_split: 0.7,
});
const base: TrialBase = { symbol: 'EURUSD', timeframe: '15min', config, settings };
const ohlc = loadBars('EURUSD', '15min', 3000);
const bars = { ...ohlc, spread: new Float64Array(ohlc.ts.length).fill(0.00002) };
const n = bars.ts.length;
// A probability series with a little persistence; NaN before the first fold (no fold model scored those bars).
const pUp = new Float32Array(n).map((_, i) => (i < 600 ? Number.NaN : 0.5 + 0.12 * Math.sin(i / 11) * Math.cos(i / 37)));
const folds = [
  { from: 600, to: 1200 },
  { from: 1210, to: 1800 },
  { from: 1800, to: 2400 },
  { from: 2400, to: n },
];
const layout = markLayout(folds, '15min');
const paramSets: ParamSet[] = [
  { stop_loss: 10, take_profit: 20 },
  { stop_loss: 30, take_profit: 10, confidence_threshold: 0.6 },
  { cooldown: 5, direction: 'long' },
  { stop_loss: null, take_profit: 5, on_opposite: 'ignore' },
];
const trials = paramSets.map((p) =>
  engineTrial(base, p, { bars, pUp, features: { names: [], matrix: new Float64Array(0), rows: 0, offset: 0 }, resolver: null }),
);
const outcomes = evaluateTrials(bars, trials, layout, settings.capital);

describe('trials on the engine', () => {
  it('marks about once a day and at the end of every fold', () => {
    for (let j = 1; j < layout.marks.length; j++) assert.ok(layout.marks[j]! > layout.marks[j - 1]!);
    assert.deepEqual(
      layout.foldEnd.map((j) => layout.marks[j]),
      folds.map((f) => f.to - 1),
    );
    assert.ok(layout.marks.length >= (n - 600) / 96);
  });

  it('gives each trial the trades, fold returns and period returns of its own runBacktest', () => {
    trials.forEach((trial, t) => {
      const o = outcomes[t]!;
      const run = runBacktest(trial.options, bars, trial.signals, layout.range, trial.mask);
      const at = (i: number) => run.equity[i - layout.range.from]!;
      const lastStart = bars.ts[folds[3]!.from]!;
      assert.deepEqual(
        { ...o.outOfSample, sharpe: 0 },
        {
          ...tradeStats(
            run.trades.filter((x) => x.entryTs >= lastStart),
            settings.capital,
          ),
          sharpe: 0,
        },
        `trial ${t}: out-of-sample = the trades entered in the last fold`,
      );
      assert.deepEqual(
        { ...o.inSample, sharpe: 0 },
        {
          ...tradeStats(
            run.trades.filter((x) => x.entryTs < lastStart),
            settings.capital,
          ),
          sharpe: 0,
        },
        `trial ${t}: in-sample = the trades entered before it`,
      );
      folds.forEach((f, i) => {
        const start = i === 0 ? settings.capital : at(folds[i - 1]!.to - 1);
        assert.equal(o.foldReturns[i], (at(f.to - 1) - start) / settings.capital, `trial ${t} fold ${i} return`);
      });
      const total = o.periodReturns.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(total - (at(layout.range.to - 1) - settings.capital) / settings.capital) < 1e-9, 'the periods add up to the run');
      assert.equal(o.prefix.length, folds.length - 1);
      assert.deepEqual(o.prefix.at(-1), o.inSample);
      const isPeriods = layout.foldEnd[2]! + 1;
      assert.equal(o.inSample.sharpe, sharpe(o.periodReturns, 0, isPeriods));
      assert.equal(o.outOfSample.sharpe, sharpe(o.periodReturns, isPeriods, o.periodReturns.length));
    });
    assert.ok(
      outcomes.some((o) => o.inSample.n > 0 && o.outOfSample.n > 0),
      'the trials trade',
    );
  });
});
