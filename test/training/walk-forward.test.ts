/**
 * The walk-forward folds through the main backtest's decisions and engine: each fold's test and
 * train stats come from its own model's p(up) (as scoreFolds scores them from the fold's ONNX) on
 * its own bars only, at the model's threshold and entry mask; profitable folds and the walk-forward
 * efficiency follow from them, and the report says how many trees the fold forests had.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runBacktest, tradeStats, BOTH_ALLOWED, type BarColumns } from '../../src/backtest/index.ts';
import { engineOptions, type ScoredFold } from '../../src/scoring/index.ts';
import { embargoBars, walkForward, walkForwardEfficiency, type WalkForwardInput } from '../../src/training/walk-forward.ts';
import { modelSettings } from '../../src/training/index.ts';
import { WalkForward } from '../../schemas/robustness.ts';
import { TrainRequest } from '../../schemas/training.ts';
import { strategyConfig } from '../helpers/strategy-config.ts';

const N = 2_000;
const HOUR = 3_600_000;

/** Hourly bars rising 2 pips a bar up to `turn`, then falling 2 pips a bar. */
function bars(turn: number): BarColumns {
  const close = Float64Array.from({ length: N }, (_, i) => 1.1 + (i <= turn ? i : 2 * turn - i) * 0.0002);
  const open = Float64Array.from(close, (c, i) => (i === 0 ? c : close[i - 1]!));
  return {
    ts: Float64Array.from({ length: N }, (_, i) => Date.UTC(2024, 0, 1) + i * HOUR),
    open,
    high: Float64Array.from(close, (c, i) => Math.max(c, open[i]!) + 0.00005),
    low: Float64Array.from(close, (c, i) => Math.min(c, open[i]!) - 0.00005),
    close,
    spread: new Float64Array(N),
  };
}

const config = { ...strategyConfig('LogisticRegression', {}, 'wf'), stop_loss: null, take_profit: null, cooldown: 0 };
const settings = modelSettings(TrainRequest.parse({ code: 'x', timeframe: '1h', capital: 10_000 }), config);
const options = engineOptions({ symbol: 'EURUSD', timeframe: '1h', config, settings }, null);

/** A fold whose model says p(up) = p on every bar it scores (train.from … test.to − 1; NaN elsewhere). */
const fold = (index: number, train: [number, number], test: [number, number], p: number): ScoredFold => ({
  index,
  train: { from: train[0], to: train[1] },
  test: { from: test[0], to: test[1] },
  pUp: new Float32Array(N).fill(Number.NaN).fill(p, train[0], test[1]),
});

const input = (b: BarColumns, folds: ScoredFold[], threshold = 0.55, foldTrees: number | null = null): WalkForwardInput => ({
  bars: b,
  folds,
  foldTrees,
  plan: { k: 3, scheme: 'rolling', embargo: 5 },
  purge: 4,
  threshold,
  mask: new Uint8Array(N).fill(BOTH_ALLOWED),
  options,
  capital: 10_000,
});

describe('walkForward', () => {
  it('backtests each fold model on its test bars and its train bars only, with the main engine; schema-valid', () => {
    const b = bars(N);
    const folds = [fold(0, [0, 500], [509, 1000], 0.9), fold(1, [500, 1000], [1009, 1500], 0.9), fold(2, [1000, 1500], [1509, 2000], 0.9)];
    const { report, runs } = walkForward(input(b, folds));
    assert.ok(report);
    WalkForward.parse(report);
    assert.deepEqual([report.k, report.scheme, report.purge_bars, report.embargo_bars], [3, 'rolling', 4, 5]);
    report.folds.forEach((f, i) => {
      const r = runs[i]!;
      // Long on a rising market from the first bar to the last: one trade per span, held to its end.
      assert.equal(f.stats.n, 1);
      assert.equal(f.train_stats.n, 1);
      assert.equal(r.test.trades[0]!.entryTs, b.ts[folds[i]!.test.from + 1], 'entered at the open after the first test bar');
      assert.equal(r.train.trades[0]!.entryTs, b.ts[folds[i]!.train.from + 1]);
      assert.equal(f.test.bars, folds[i]!.test.to - folds[i]!.test.from);
      assert.equal(f.test.from, new Date(b.ts[folds[i]!.test.from]!).toISOString());
      // The same engine the main backtest runs: its own run over the fold's bars gives the same stats.
      const signals = new Int8Array(N);
      signals.fill(1, folds[i]!.train.from, folds[i]!.test.to);
      assert.deepEqual(f.stats, tradeStats(runBacktest(options, b, signals, folds[i]!.test, input(b, []).mask).trades, 10_000));
    });
    assert.equal(report.profitable, 3);
    assert.ok(report.efficiency !== null && report.efficiency > 0.8 && report.efficiency < 1.2, `${report.efficiency}`);
  });

  it('uses the model’s threshold: p(up) = 0.58 trades at 0.55 and not at 0.6; p(up) = 0.42 goes short', () => {
    const b = bars(N);
    const one = [fold(0, [0, 900], [1000, 2000], 0.58)];
    assert.equal(walkForward(input(b, one, 0.55)).report!.folds[0]!.stats.n, 1);
    assert.equal(walkForward(input(b, one, 0.6)).report!.folds[0]!.stats.n, 0);
    const short = walkForward(input(b, [fold(0, [0, 900], [1000, 2000], 0.42)], 0.55)).runs[0]!;
    assert.equal(short.test.trades[0]!.side, -1);
  });

  it('counts profitable folds and reports an efficiency below 1 when the edge fades out of sample, null when in-sample lost', () => {
    // Up to bar 1,200, then down: a long-only model wins its train bars and loses the tests after the turn.
    const b = bars(1_200);
    const folds = [fold(0, [0, 500], [509, 1000], 0.9), fold(1, [500, 1000], [1009, 1500], 0.9), fold(2, [1000, 1500], [1509, 2000], 0.9)];
    const { report } = walkForward(input(b, folds));
    assert.deepEqual(
      report!.folds.map((f) => f.stats.ret > 0),
      [true, false, false],
    );
    assert.equal(report!.profitable, 1);
    assert.ok(report!.efficiency !== null && report!.efficiency < 0.5, `${report!.efficiency}`);
    // Trained short on the way up: every in-sample run loses.
    const wrong = walkForward(input(bars(N), [fold(0, [0, 900], [1000, 2000], 0.1)])).report!;
    assert.ok(wrong.folds[0]!.train_stats.ret < 0);
    assert.equal(wrong.efficiency, null);
  });

  it('says how many trees the fold forests had (null: the fold models have the main model’s params)', () => {
    const folds = [fold(0, [0, 900], [1000, 2000], 0.9)];
    assert.equal(WalkForward.parse(walkForward(input(bars(N), folds, 0.55, 40)).report).fold_trees, 40);
    assert.equal(WalkForward.parse(walkForward(input(bars(N), folds)).report).fold_trees, null);
  });

  it('is null when no fold could be fitted', () => {
    assert.deepEqual(walkForward(input(bars(N), [])), { report: null, runs: [] });
  });
});

describe('walkForwardEfficiency', () => {
  it('annualised out-of-sample return over annualised in-sample return, summed over the folds', () => {
    // In-sample 20 % over 1 year (2 folds of half a year), out-of-sample 10 % over half a year: 20 %/year vs 20 %/year.
    const runs = [
      { train: { ret: 0.15, years: 0.5 }, test: { ret: 0.02, years: 0.25 } },
      { train: { ret: 0.05, years: 0.5 }, test: { ret: 0.08, years: 0.25 } },
    ];
    assert.equal(Math.round(walkForwardEfficiency(runs)! * 1e9) / 1e9, 1);
    assert.equal(walkForwardEfficiency([{ train: { ret: 0, years: 1 }, test: { ret: 0.1, years: 1 } }]), null);
    assert.equal(walkForwardEfficiency([{ train: { ret: -0.1, years: 1 }, test: { ret: -0.2, years: 1 } }]), null);
    assert.equal(walkForwardEfficiency([{ train: { ret: 0.1, years: 1 }, test: { ret: -0.05, years: 1 } }]), -0.5);
    assert.equal(walkForwardEfficiency([]), null);
  });

  it('the embargo is 1 % of the labelled bars, rounded up', () => {
    assert.deepEqual([embargoBars(0), embargoBars(99), embargoBars(100), embargoBars(25_000)], [0, 1, 1, 250]);
  });
});
