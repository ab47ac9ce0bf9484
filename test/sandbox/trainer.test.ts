/**
 * The `train` job on real EURUSD bars: Python's p(up) equals the exported ONNX scored in Node,
 * the purge gap holds, training is deterministic, and bad configs or features fail clearly.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { loadModel } from '../../src/scoring/onnx-scorer.ts';
import { StrategyJobError, StrategyRuntime, type OhlcInput, type TrainResult } from '../../src/sandbox/runtime-pool.ts';
import { loadBars } from '../helpers/strategy-bars.ts';

const HORIZON = 4;

function slice(b: OhlcInput, from: number, to: number): OhlcInput {
  return { ts: b.ts.slice(from, to), open: b.open.slice(from, to), high: b.high.slice(from, to), low: b.low.slice(from, to), close: b.close.slice(from, to) };
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

/** The features Node computes itself, after the warm-up, row-major float32 as the ONNX input. */
async function featureMatrix(runtime: StrategyRuntime, code: string, bars: OhlcInput, trained: TrainResult): Promise<Float32Array> {
  const f = await runtime.features(code, bars);
  assert.deepEqual(f.columns, trained.features);
  const rows = f.rows - trained.warmup;
  const X = new Float32Array(rows * f.columns.length);
  for (let r = 0; r < rows; r++) for (let j = 0; j < f.columns.length; j++) X[r * f.columns.length + j] = f.values[j]![trained.warmup + r]!;
  return X;
}

describe('StrategyRuntime.train (sandboxed trainer, real EURUSD bars)', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcInput;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    // The first 6,000 15-min bars of HistData EURUSD 2017.
    bars = loadBars('EURUSD', '15min', 6000);
  });
  after(() => runtime.stop());

  for (const [modelType, params] of MODELS) {
    it(`${modelType}: ONNX scored in Node equals Python's p(up); the purge gap holds`, async () => {
      const code = strategy(modelType, params);
      const t = await runtime.train(code, bars, {}, { timeoutMs: 60_000 });
      const afterWarmup = bars.ts.length - t.warmup;
      assert.equal(t.warmup, 20, 'rolling(20) of returns: the first 20 bars have a NaN feature');
      assert.equal(t.rowsTrain + HORIZON + t.rowsTest, afterWarmup - HORIZON);
      assert.equal(t.splitIndex, t.warmup + t.rowsTrain + HORIZON);
      assert.equal(t.testStartTs, bars.ts[t.splitIndex]);
      assert.equal(t.probaUp.length, afterWarmup);
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

  it('is deterministic: the same request gives the same model bytes', async () => {
    // The forests fit on several threads (trainer.THREADS): the trees must not depend on which builds them.
    for (const [modelType, params] of [MODELS[0]!, MODELS[1]!, ['ExtraTreesClassifier', "{'n_estimators': 100, 'max_depth': 8}"] as const]) {
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

  for (const [bad, key] of [["{'n_jobs': 4}", 'n_jobs'], ["{'n_estimators': 10000}", 'n_estimators']] as const) {
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
