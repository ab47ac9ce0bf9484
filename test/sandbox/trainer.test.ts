/**
 * The `train` job on real EURUSD bars: Python's p(up) equals the exported ONNX scored in Node,
 * the purge gap holds, training is deterministic, and bad configs or features fail clearly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { loadModel } from '../../src/scoring/onnx-scorer.ts';
import { StrategyJobError, StrategyRuntime, type TrainResult } from '../../src/sandbox/runtime-pool.ts';
import { loadBars } from '../helpers/strategy-bars.ts';
import type { OhlcColumns } from '../../src/lib/bar-columns.ts';

const HORIZON = 4;

function slice(b: OhlcColumns, from: number, to: number): OhlcColumns {
  return {
    ts: b.ts.slice(from, to),
    open: b.open.slice(from, to),
    high: b.high.slice(from, to),
    low: b.low.slice(from, to),
    close: b.close.slice(from, to),
  };
}

const FEATURES = `
def feature_engineering(df, close, open_, high, low):
    ret = close.pct_change()
    df['ret_1'] = ret
    df['ret_4'] = close.pct_change(4)
    df['sma_gap'] = close / close.rolling(20).mean() - 1
    df['vol_20'] = ret.rolling(20).std()
    df['range'] = (high - low) / close
    df['body'] = (close - open_) / close
    df['hour'] = df.index.hour
    return df
`;

const strategy = (modelType: string, params: string, features = FEATURES) => `
import numpy as np
import pandas as pd
${features}
def strategy_config():
    return {
        'model_type': '${modelType}', 'model_params': ${params},
        'signal_threshold': 0.55, 'direction': 'both', 'stop_loss': 0.003, 'take_profit': 0.006,
        'cooldown': 2, 'max_positions': 1, 'on_opposite': 'close_only', 'session_filter': None,
        'min_atr': None, 'trend_filter': None, 'target_horizon': ${HORIZON},
        'objective': 'test', 'notes': 'test', 'title': '${modelType} test',
    }
`;

const MODELS: Array<[string, string]> = [
  ['RandomForestClassifier', "{'n_estimators': 100, 'max_depth': 6}"],
  ['XGBClassifier', "{'n_estimators': 100, 'max_depth': 4, 'learning_rate': 0.1}"],
  ['LogisticRegression', "{'C': 1.0, 'max_iter': 1000}"],
];

/** Share of bars in [from, to) whose direction p(up) > 0.5 called right (up = close[i + HORIZON] > close[i]); probaUp[0] is bar `warmup`. */
function accuracy(b: OhlcColumns, probaUp: Float64Array, warmup: number, from: number, to: number): number {
  let right = 0;
  for (let i = from; i < to; i++) if (probaUp[i - warmup]! > 0.5 === b.close[i + HORIZON]! > b.close[i]!) right++;
  return right / (to - from);
}

/**
 * The bars with every price from bar `from` on scaled by 1.5 or 0.5, whichever flips at least one
 * of the labels that read them from the rows just before (up = close[i + HORIZON] > close[i]).
 */
function moveFrom(b: OhlcColumns, from: number): OhlcColumns {
  const rows = Array.from({ length: HORIZON }, (_, k) => from - HORIZON + k);
  const factor = rows.every((i) => b.close[i + HORIZON]! > b.close[i]!) ? 0.5 : 1.5;
  const move = (xs: Float64Array) => xs.map((x, i) => (i >= from ? x * factor : x));
  return { ts: b.ts, open: move(b.open), high: move(b.high), low: move(b.low), close: move(b.close) };
}

/** The features Node computes itself, after the warm-up, row-major float32 as the ONNX input. */
async function featureMatrix(runtime: StrategyRuntime, code: string, bars: OhlcColumns, trained: TrainResult): Promise<Float32Array> {
  const f = await runtime.features(code, bars);
  assert.deepEqual(f.columns, trained.features);
  const rows = f.rows - trained.warmup;
  const X = new Float32Array(rows * f.columns.length);
  for (let r = 0; r < rows; r++) for (let j = 0; j < f.columns.length; j++) X[r * f.columns.length + j] = f.values[j]![trained.warmup + r]!;
  return X;
}

describe('StrategyRuntime.train (sandboxed trainer, real EURUSD bars)', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcColumns;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    // The first 6,000 15-min bars of HistData EURUSD 2017.
    bars = loadBars('EURUSD', '15min', 6000);
  });
  after(() => runtime.stop());

  for (const [modelType, params] of MODELS) {
    it(`${modelType}: ONNX scored in Node equals Python's p(up); the accuracies are those of the train and test rows`, async () => {
      const code = strategy(modelType, params);
      const t = await runtime.train(code, bars, {}, { timeoutMs: 60_000 });
      const afterWarmup = bars.ts.length - t.warmup;
      assert.equal(t.warmup, 20, 'rolling(20) of returns: the first 20 bars have a NaN feature');
      assert.equal(t.rowsTrain + HORIZON + t.rowsTest, afterWarmup - HORIZON);
      assert.equal(t.splitIndex, t.warmup + t.rowsTrain + HORIZON);
      assert.equal(t.testStartTs, bars.ts[t.splitIndex]);
      assert.equal(t.probaUp.length, afterWarmup);
      // Recomputed here from the bars and p(up): train = the first rowsTrain labelled bars after
      // the warm-up, test = from splitIndex to the last labelled bar; the gap between is in neither.
      assert.equal(t.accuracyTrain, accuracy(bars, t.probaUp, t.warmup, t.warmup, t.warmup + t.rowsTrain));
      assert.equal(t.accuracyTest, accuracy(bars, t.probaUp, t.warmup, t.splitIndex, bars.ts.length - HORIZON));
      assert.ok(t.accuracyTrain > 0.4 && t.accuracyTest > 0.4, `${t.accuracyTrain} ${t.accuracyTest}`);
      assert.deepEqual(Object.keys(t.featureImportance), t.features);

      const X = await featureMatrix(runtime, code, bars, t);
      assert.deepEqual(Float32Array.from(t.matrix), X, 'the answer carries the feature matrix the features job computes');
      const model = await loadModel(t.onnx);
      const p = await model.score(X, afterWarmup);
      await model.close();
      let worst = 0;
      for (let i = 0; i < afterWarmup; i++) worst = Math.max(worst, Math.abs(p[i]! - t.probaUp[i]!));
      assert.ok(worst <= 1e-5, `max |onnx - python| = ${worst}`);
    });
  }

  it('the purge gap holds: nothing from the split bar on reaches the fit, not even through a label', async () => {
    const code = strategy(...MODELS[2]!);
    const t = await runtime.train(code, bars);
    // The last train row's label reads bar warmup + rowsTrain - 1 + HORIZON = splitIndex - 1, so a
    // trainer that keeps the gap fits the same model whatever the bars from splitIndex on are; one
    // that fits a gap row (its label reads a bar from splitIndex on) or a test row does not.
    const moved = moveFrom(bars, t.splitIndex);
    const u = await runtime.train(code, moved);
    assert.deepEqual([u.rowsTrain, u.splitIndex, u.warmup], [t.rowsTrain, t.splitIndex, t.warmup]);
    assert.ok(u.onnx.equals(t.onnx), 'the model differs: bars from the split on reached the fit');
    // Moving the bars from the gap's first one on flips a label of the last train rows: that must
    // change the model, or the check above could not fail.
    assert.ok(
      !(await runtime.train(code, moveFrom(bars, t.splitIndex - HORIZON))).onnx.equals(t.onnx),
      'a train label changed, and the model with it',
    );
  });

  it('is deterministic: the same request gives the same model bytes', async () => {
    // The forests fit on several threads (trainer.THREADS): the trees must not depend on which builds them.
    for (const [modelType, params] of [
      MODELS[0]!,
      MODELS[1]!,
      ['ExtraTreesClassifier', "{'n_estimators': 100, 'max_depth': 8}"] as const,
    ]) {
      const code = strategy(modelType, params);
      const [a, b] = [await runtime.train(code, bars), await runtime.train(code, bars)];
      assert.ok(a.onnx.equals(b.onnx), `${modelType} ONNX differs between two runs`);
      assert.deepEqual(a.probaUp, b.probaUp);
    }
  });

  it('fitRows: bars after the trained span are scored but never fitted', async () => {
    const code = strategy(...MODELS[2]!);
    const fitRows = 4000;
    const [all, cut] = [await runtime.train(code, bars), await runtime.train(code, bars, { fitRows })];
    const labelled = fitRows - cut.warmup - HORIZON;
    assert.equal(cut.rowsTrain, Math.floor(labelled * 0.7));
    assert.equal(cut.rowsTrain + HORIZON + cut.rowsTest, labelled);
    assert.equal(cut.probaUp.length, bars.ts.length - cut.warmup, 'post-cutoff bars get p(up) too');
    assert.ok(!cut.onnx.equals(all.onnx), 'a shorter span fits a different model');
    const fromHead = await runtime.train(code, slice(bars, 0, fitRows));
    assert.ok(fromHead.onnx.equals(cut.onnx), 'bars after fitRows do not change the model');
  });

  it('honours trainSplit and warmup from the request', async () => {
    const t = await runtime.train(strategy(...MODELS[2]!), bars, { trainSplit: 0.5, warmup: 100 });
    assert.equal(t.warmup, 100);
    assert.equal(t.rowsTrain, Math.floor((bars.ts.length - 100 - HORIZON) * 0.5));
  });

  for (const [bad, key] of [
    ["{'n_jobs': 4}", 'n_jobs'],
    ["{'n_estimators': 10000}", 'n_estimators'],
  ] as const) {
    // The pipeline checks strategy_config() with the schema once per job; train() on its own still
    // refuses a bad config in the trainer, before any fit.
    it(`refuses model_params ${bad} before training, naming ${key}`, async () => {
      await assert.rejects(runtime.train(strategy('RandomForestClassifier', bad), bars), (err: unknown) => {
        assert.ok(err instanceof StrategyJobError);
        assert.equal(err.kind, 'error');
        assert.match(err.message, new RegExp(`model_params\\.${key}`));
        return true;
      });
    });
  }

  it('fails clearly when feature_engineering adds a string column', async () => {
    const features = `${FEATURES.replace('    return df', "    df['label'] = np.where(close > open_, 'up', 'down')\n    return df")}`;
    await assert.rejects(runtime.train(strategy(...MODELS[2]!, features), bars), (err: unknown) => {
      assert.ok(err instanceof StrategyJobError);
      assert.equal(err.kind, 'error');
      assert.match(err.message, /must be numeric; not numeric: label \(object\)/);
      return true;
    });
  });
});
