/**
 * The `train` job's walk-forward folds, model overrides and folds_only (trainer.py), on real
 * EURUSD bars: the folds' bars are consecutive blocks, purged and embargoed; rolling and anchored
 * differ only in where training starts; a fold too small or of one class is skipped and said;
 * overrides reach the fit and a bad one is refused; folds_only fits the same folds and nothing else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { StrategyJobError, StrategyRuntime, type TrainedFold } from '../../src/sandbox/runtime-pool.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const HORIZON = 4;

const strategy = (modelType: string, params: string) => `
import numpy as np
import pandas as pd

def feature_engineering(df, close, open_, high, low):
    ret = close.pct_change()
    df['ret_1'] = ret
    df['ret_4'] = close.pct_change(4)
    df['sma_gap'] = close / close.rolling(20).mean() - 1
    df['vol_20'] = ret.rolling(20).std()
    df['range'] = (high - low) / close
    return df

def strategy_config():
    return {
        'model_type': '${modelType}', 'model_params': ${params},
        'signal_threshold': 0.55, 'direction': 'both', 'stop_loss': 0.003, 'take_profit': 0.006,
        'cooldown': 2, 'max_positions': 1, 'on_opposite': 'close_only', 'session_filter': None,
        'min_atr': None, 'trend_filter': None, 'target_horizon': ${HORIZON},
        'objective': 'test', 'notes': 'test', 'title': 'folds test',
    }
`;

const LOGISTIC = strategy('LogisticRegression', "{'C': 1.0, 'max_iter': 1000}");

/** The bars with every price from bar `from` on scaled by `factor`. */
function scaleFrom(b: OhlcColumns, from: number, factor: number): OhlcColumns {
  const move = (xs: Float64Array) => xs.map((x, i) => (i >= from ? x * factor : x));
  return { ts: b.ts, open: move(b.open), high: move(b.high), low: move(b.low), close: move(b.close) };
}

/** The first n bars, whose closes (and the rest of each bar with them) rise bar after bar up to `upTo`. */
function risingHead(b: OhlcColumns, n: number, upTo: number): OhlcColumns {
  const cut = (xs: Float64Array) => xs.slice(0, n);
  const out = { ts: cut(b.ts), open: cut(b.open), high: cut(b.high), low: cut(b.low), close: cut(b.close) };
  for (let i = 0; i < upTo; i++) {
    const c = 1.05 + i * 1e-5 + (i % 7) * 1e-6;
    out.open[i] = c - 2e-5;
    out.high[i] = c + 3e-5;
    out.low[i] = c - 4e-5;
    out.close[i] = c;
  }
  return out;
}

const span = (f: TrainedFold) => [f.train.from, f.train.to, f.test.from, f.test.to];

describe('StrategyRuntime.train: walk-forward folds (sandboxed trainer, real EURUSD bars)', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcColumns;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    bars = loadBars('EURUSD', '15min', 4000);
  });
  after(() => runtime.stop());

  it('rolling: k consecutive test blocks, each after its train block, the purge gap and the embargo; p(up) over train to test end', async () => {
    const embargo = 10;
    const t = await runtime.train(LOGISTIC, bars, { folds: { k: 4, scheme: 'rolling', embargo } });
    const m = bars.ts.length - t.warmup - HORIZON;
    const edges = Array.from({ length: 6 }, (_, j) => t.warmup + Math.floor((m * j) / 5));
    assert.equal(t.folds.length, 4);
    t.folds.forEach((f, i) => {
      assert.equal(f.index, i);
      assert.deepEqual(span(f), [edges[i], edges[i + 1], edges[i + 1]! + HORIZON + embargo, edges[i + 2]]);
      assert.equal(f.probaUp.length, f.test.to - f.train.from);
      assert.ok(f.probaUp.every((p) => p >= 0 && p <= 1));
    });
    // Rolling: the next fold trains on exactly the block this one tested on (its purged head included).
    for (let i = 1; i < 4; i++) assert.equal(t.folds[i]!.train.from, t.folds[i - 1]!.train.to);
    assert.equal(t.folds[3]!.test.to, bars.ts.length - HORIZON, 'the last test ends at the last labelled bar');
  });

  it('the purge gap holds per fold: bars from train end + horizon on never reach a fold model', async () => {
    const folds = { k: 3, scheme: 'rolling' as const, embargo: 0 };
    const t = await runtime.train(LOGISTIC, bars, { folds });
    const f0 = t.folds[0]!;
    const trainRows = (f: TrainedFold) => f.probaUp.subarray(0, f.train.to - f.train.from);
    // The last train row's label reads bar train.to − 1 + horizon: moving every bar after it changes nothing the fold learnt from.
    const moved = await runtime.train(LOGISTIC, scaleFrom(bars, f0.train.to + HORIZON, 1.5), { folds });
    assert.deepEqual(span(moved.folds[0]!), span(f0));
    assert.deepEqual(trainRows(moved.folds[0]!), trainRows(f0), 'fold 0 saw a bar of its purge gap or test');
    // One bar earlier is read by a train label: the fold model must change (or the check above could not fail).
    const last = f0.train.to - 1;
    const flip = bars.close[last + HORIZON]! > bars.close[last]! ? 0.5 : 1.5;
    const touched = await runtime.train(LOGISTIC, scaleFrom(bars, last + HORIZON, flip), { folds });
    assert.notDeepEqual(trainRows(touched.folds[0]!), trainRows(f0));
  });

  it('anchored: the same tests, every fold trained from the first bar after the warm-up; deterministic', async () => {
    const [rolling, anchored, again] = await Promise.all([
      runtime.train(LOGISTIC, bars, { folds: { k: 4, scheme: 'rolling', embargo: 5 } }),
      runtime.train(LOGISTIC, bars, { folds: { k: 4, scheme: 'anchored', embargo: 5 } }),
      runtime.train(LOGISTIC, bars, { folds: { k: 4, scheme: 'anchored', embargo: 5 } }),
    ]);
    assert.equal(anchored.folds.length, 4);
    anchored.folds.forEach((f, i) => {
      const r = rolling.folds[i]!;
      assert.equal(f.train.from, anchored.warmup);
      assert.deepEqual([f.train.to, f.test.from, f.test.to], [r.train.to, r.test.from, r.test.to]);
      assert.deepEqual(f.probaUp, again.folds[i]!.probaUp, 'the same request gives the same fold models');
    });
    // Fold 0 trains on block 0 either way; later folds see more in anchored, so their models differ.
    assert.deepEqual(anchored.folds[0]!.probaUp, rolling.folds[0]!.probaUp);
    const tail = (f: TrainedFold) => f.probaUp.subarray(f.test.from - f.train.from);
    assert.notDeepEqual(tail(anchored.folds[3]!), tail(rolling.folds[3]!));
  });

  it('skips a fold with too few train rows, or one target class, and says so in warnings; the job still succeeds', async () => {
    // 400 bars, 10 folds: blocks of ~34 labelled rows, under the 50 a fit needs. Rolling fits none; anchored all but fold 0.
    const small = bars.ts.length > 400 ? { ts: bars.ts.slice(0, 400), open: bars.open.slice(0, 400), high: bars.high.slice(0, 400), low: bars.low.slice(0, 400), close: bars.close.slice(0, 400) } : bars;
    const rolling = await runtime.train(LOGISTIC, small, { folds: { k: 10, scheme: 'rolling', embargo: 0 } });
    assert.equal(rolling.folds.length, 0);
    assert.equal(rolling.warnings.filter((w) => /^walk-forward fold \d skipped: \d+ train and \d+ test rows/.test(w)).length, 10);
    const anchored = await runtime.train(LOGISTIC, small, { folds: { k: 10, scheme: 'anchored', embargo: 0 } });
    assert.deepEqual(anchored.folds.map((f) => f.index), [1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert.ok(anchored.warnings.some((w) => w.startsWith('walk-forward fold 0 skipped')), anchored.warnings.join(' | '));

    // Closes rising bar after bar over the first third: every label of block 0 is up.
    const rising = risingHead(bars, 3000, 1100);
    const t = await runtime.train(LOGISTIC, rising, { folds: { k: 3, scheme: 'rolling', embargo: 0 } });
    assert.deepEqual(t.folds.map((f) => f.index), [1, 2]);
    assert.ok(t.warnings.includes('walk-forward fold 0 skipped: its train rows hold only one target class'), t.warnings.join(' | '));
  });

  it('folds_only: the same fold models, no main fit and no ONNX; refused without folds', async () => {
    const folds = { k: 3, scheme: 'anchored' as const, embargo: 2 };
    const [full, only] = await Promise.all([runtime.train(LOGISTIC, bars, { folds }), runtime.train(LOGISTIC, bars, { folds, foldsOnly: true })]);
    assert.equal(only.onnx.length, 0);
    assert.ok(only.probaUp.every((p) => Number.isNaN(p)));
    assert.ok(Number.isNaN(only.accuracyTrain) && Number.isNaN(only.accuracyTest));
    assert.deepEqual(only.featureImportance, {});
    assert.deepEqual(Float64Array.from(only.matrix), Float64Array.from(full.matrix), 'the feature matrix still comes back (filters read it)');
    assert.deepEqual(only.folds.map(span), full.folds.map(span));
    only.folds.forEach((f, i) => assert.deepEqual(f.probaUp, full.folds[i]!.probaUp));
    await assert.rejects(runtime.train(LOGISTIC, bars, { foldsOnly: true }), (err: unknown) => err instanceof StrategyJobError && /folds_only needs folds/.test(err.message));
  });

  it('refuses fold options out of range before any fit', async () => {
    await assert.rejects(runtime.train(LOGISTIC, bars, { folds: { k: 11, scheme: 'rolling', embargo: 0 } }), (err: unknown) => err instanceof StrategyJobError && /folds\.k must be an integer between 2 and 10/.test(err.message));
    await assert.rejects(
      runtime.train(LOGISTIC, bars, { folds: { k: 3, scheme: 'sideways' as 'rolling', embargo: 0 } }),
      (err: unknown) => err instanceof StrategyJobError && /folds\.scheme must be rolling or anchored/.test(err.message),
    );
  });

  it('overrides: merged over the code’s model_params, or alone for another model_type; the answer’s config is what was fitted', async () => {
    const folds = { k: 2, scheme: 'rolling' as const, embargo: 0 };
    const [plain, tuned, forest] = await Promise.all([
      runtime.train(LOGISTIC, bars, { folds }),
      runtime.train(LOGISTIC, bars, { folds, overrides: { model_params: { C: 0.01 } } }),
      runtime.train(LOGISTIC, bars, { folds, foldsOnly: true, overrides: { model_type: 'RandomForestClassifier', model_params: { n_estimators: 20, max_depth: 4 } } }),
    ]);
    assert.deepEqual(tuned.config.model_params, { C: 0.01, max_iter: 1000 });
    assert.notDeepEqual(tuned.probaUp, plain.probaUp, 'the override reached the fit');
    assert.notDeepEqual(tuned.folds[0]!.probaUp, plain.folds[0]!.probaUp, 'and the fold fits');
    assert.equal(forest.config.model_type, 'RandomForestClassifier');
    assert.deepEqual(forest.config.model_params, { n_estimators: 20, max_depth: 4 });
  });

  it('refuses invalid overrides: the trainer’s guards before the fit, the StrategyConfig schema on the answer', async () => {
    const refused = (pattern: RegExp) => (err: unknown) => {
      assert.ok(err instanceof StrategyJobError, String(err));
      assert.equal(err.kind, 'error');
      assert.match(err.message, pattern);
      return true;
    };
    const forest = strategy('RandomForestClassifier', "{'n_estimators': 20, 'max_depth': 4}");
    await assert.rejects(runtime.train(forest, bars, { overrides: { model_params: { n_estimators: 100_000 } } }), refused(/model_params\.n_estimators must be between 1 and 500/));
    await assert.rejects(runtime.train(forest, bars, { overrides: { model_params: { n_jobs: 8 } } }), refused(/model_params\.n_jobs is set by the trainer/));
    await assert.rejects(runtime.train(forest, bars, { overrides: { model_type: 'SVC' as 'RandomForestClassifier' } }), refused(/model_type 'SVC' is not one the trainer supports/));
    // sklearn fits it, the schema does not allow it: Node refuses the trained config.
    await assert.rejects(
      runtime.train(forest, bars, { overrides: { model_params: { min_samples_leaf: 20_000 } } }),
      refused(/strategy_config\(\) with the overrides is invalid: model_params\.min_samples_leaf/),
    );
  });
});
