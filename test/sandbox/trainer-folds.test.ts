/**
 * The `train` job's walk-forward folds, model overrides and folds_only (trainer.py), on real
 * EURUSD bars: the folds' bars are consecutive blocks, purged and embargoed; rolling and anchored
 * differ only in where training starts; a fold too small or of one class is skipped and said;
 * overrides reach the fit and a bad one is refused; folds_only fits the same folds and nothing else.
 * Fold models come back as ONNX models (never p(up)) that pass the main model's check, and their
 * p(up) here are what the service scores from them (scoreFolds); fold forests grow fold_trees trees.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/log.ts';
import { StrategyJobError, StrategyRuntime, type TrainedFold, type TrainResult } from '../../src/sandbox/runtime-pool.ts';
import { checkModel, ModelRejectedError, scoreFolds } from '../../src/scoring/index.ts';
import { FORGE_PROBA, GARBLE_FOLD_MODELS } from '../helpers/forged-folds.ts';
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
const forest = (trees: number) => strategy('RandomForestClassifier', `{'n_estimators': ${trees}, 'max_depth': 4}`);

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

/** Each fold model's p(up) over its bars train.from … test.to − 1, scored from its ONNX as the service scores it. */
async function foldPUp(t: TrainResult): Promise<Float32Array[]> {
  const features = { names: t.features, matrix: t.matrix, rows: t.probaUp.length, offset: t.warmup };
  const scored = await scoreFolds(t.folds, features, t.warmup + t.probaUp.length);
  return scored.map((f) => f.pUp.slice(f.train.from, f.test.to));
}

describe('StrategyRuntime.train: walk-forward folds (sandboxed trainer, real EURUSD bars)', () => {
  let runtime: StrategyRuntime;
  let bars: OhlcColumns;

  before(async () => {
    runtime = await StrategyRuntime.start({ log: createLogger('silent'), size: 2 });
    bars = loadBars('EURUSD', '15min', 4000);
  });
  after(() => runtime.stop());

  it('rolling: k consecutive test blocks, each after its train block, the purge gap and the embargo; an ONNX model per fold', async () => {
    const embargo = 10;
    const t = await runtime.train(LOGISTIC, bars, { folds: { k: 4, scheme: 'rolling', embargo } });
    const pUp = await foldPUp(t);
    const m = bars.ts.length - t.warmup - HORIZON;
    const edges = Array.from({ length: 6 }, (_, j) => t.warmup + Math.floor((m * j) / 5));
    assert.equal(t.folds.length, 4);
    t.folds.forEach((f, i) => {
      assert.equal(f.index, i);
      assert.deepEqual(span(f), [edges[i], edges[i + 1], edges[i + 1]! + HORIZON + embargo, edges[i + 2]]);
      assert.equal(checkModel(f.onnx).nFeatures, t.features.length, 'an ONNX model the main model’s check accepts');
      assert.ok(pUp[i]!.every((p) => p >= 0 && p <= 1));
    });
    // Rolling: the next fold trains on exactly the block this one tested on (its purged head included).
    for (let i = 1; i < 4; i++) assert.equal(t.folds[i]!.train.from, t.folds[i - 1]!.train.to);
    assert.equal(t.folds[3]!.test.to, bars.ts.length - HORIZON, 'the last test ends at the last labelled bar');
  });

  it('the purge gap holds per fold: bars from train end + horizon on never reach a fold model', async () => {
    const folds = { k: 3, scheme: 'rolling' as const, embargo: 0 };
    const t = await runtime.train(LOGISTIC, bars, { folds });
    const f0 = t.folds[0]!;
    const trainRows = async (r: TrainResult) => (await foldPUp(r))[0]!.subarray(0, f0.train.to - f0.train.from);
    // The last train row's label reads bar train.to − 1 + horizon: moving every bar after it changes nothing the fold learnt from.
    const moved = await runtime.train(LOGISTIC, scaleFrom(bars, f0.train.to + HORIZON, 1.5), { folds });
    assert.deepEqual(span(moved.folds[0]!), span(f0));
    assert.deepEqual(await trainRows(moved), await trainRows(t), 'fold 0 saw a bar of its purge gap or test');
    // One bar earlier is read by a train label: the fold model must change (or the check above could not fail).
    const last = f0.train.to - 1;
    const flip = bars.close[last + HORIZON]! > bars.close[last]! ? 0.5 : 1.5;
    const touched = await runtime.train(LOGISTIC, scaleFrom(bars, last + HORIZON, flip), { folds });
    assert.notDeepEqual(await trainRows(touched), await trainRows(t));
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
      assert.deepEqual(f.onnx, again.folds[i]!.onnx, 'the same request gives the same fold models');
    });
    // Fold 0 trains on block 0 either way; later folds see more in anchored, so their models differ.
    assert.deepEqual(anchored.folds[0]!.onnx, rolling.folds[0]!.onnx);
    const [a3, r3] = [(await foldPUp(anchored))[3]!, (await foldPUp(rolling))[3]!];
    const tail = (p: Float32Array, f: TrainedFold) => p.subarray(f.test.from - f.train.from);
    assert.notDeepEqual(tail(a3, anchored.folds[3]!), tail(r3, rolling.folds[3]!));
  });

  it('skips a fold with too few train rows, or one target class, and says so in warnings; the job still succeeds', async () => {
    // 400 bars, 10 folds: blocks of ~34 labelled rows, under the 50 a fit needs. Rolling fits none; anchored all but fold 0.
    const small =
      bars.ts.length > 400
        ? {
            ts: bars.ts.slice(0, 400),
            open: bars.open.slice(0, 400),
            high: bars.high.slice(0, 400),
            low: bars.low.slice(0, 400),
            close: bars.close.slice(0, 400),
          }
        : bars;
    const rolling = await runtime.train(LOGISTIC, small, { folds: { k: 10, scheme: 'rolling', embargo: 0 } });
    assert.equal(rolling.folds.length, 0);
    assert.equal(rolling.warnings.filter((w) => /^walk-forward fold \d skipped: \d+ train and \d+ test rows/.test(w)).length, 10);
    const anchored = await runtime.train(LOGISTIC, small, { folds: { k: 10, scheme: 'anchored', embargo: 0 } });
    assert.deepEqual(
      anchored.folds.map((f) => f.index),
      [1, 2, 3, 4, 5, 6, 7, 8, 9],
    );
    assert.ok(
      anchored.warnings.some((w) => w.startsWith('walk-forward fold 0 skipped')),
      anchored.warnings.join(' | '),
    );

    // Closes rising bar after bar over the first third: every label of block 0 is up.
    const rising = risingHead(bars, 3000, 1100);
    const t = await runtime.train(LOGISTIC, rising, { folds: { k: 3, scheme: 'rolling', embargo: 0 } });
    assert.deepEqual(
      t.folds.map((f) => f.index),
      [1, 2],
    );
    assert.ok(t.warnings.includes('walk-forward fold 0 skipped: its train rows hold only one target class'), t.warnings.join(' | '));
  });

  it('folds_only: the same fold models, no main fit and no ONNX; refused without folds', async () => {
    const folds = { k: 3, scheme: 'anchored' as const, embargo: 2 };
    const [full, only] = await Promise.all([
      runtime.train(LOGISTIC, bars, { folds }),
      runtime.train(LOGISTIC, bars, { folds, foldsOnly: true }),
    ]);
    assert.equal(only.onnx.length, 0);
    assert.ok(only.probaUp.every((p) => Number.isNaN(p)));
    assert.ok(Number.isNaN(only.accuracyTrain) && Number.isNaN(only.accuracyTest));
    assert.deepEqual(only.featureImportance, {});
    assert.deepEqual(
      Float64Array.from(only.matrix),
      Float64Array.from(full.matrix),
      'the feature matrix still comes back (filters read it)',
    );
    assert.deepEqual(only.folds.map(span), full.folds.map(span));
    only.folds.forEach((f, i) => assert.deepEqual(f.onnx, full.folds[i]!.onnx));
    await assert.rejects(
      runtime.train(LOGISTIC, bars, { foldsOnly: true }),
      (err: unknown) => err instanceof StrategyJobError && /folds_only needs folds/.test(err.message),
    );
  });

  it('fold forests grow an eighth of the main forest’s trees, at least 30 and at most all (fold_trees); other models keep their params', async () => {
    const folds = { k: 2, scheme: 'rolling' as const, embargo: 0 };
    const [t400, t150, t30, t20, logistic] = await Promise.all([
      runtime.train(forest(400), bars, { folds, foldsOnly: true }),
      runtime.train(forest(150), bars, { folds, foldsOnly: true }),
      runtime.train(forest(30), bars, { folds, foldsOnly: true }),
      runtime.train(forest(20), bars, { folds, foldsOnly: true }),
      runtime.train(LOGISTIC, bars, { folds, foldsOnly: true }),
    ]);
    assert.deepEqual([t400.foldTrees, t150.foldTrees, t30.foldTrees, t20.foldTrees, logistic.foldTrees], [50, 30, 30, 20, null]);
    // 150 trees and 30 trees: the same 30-tree fold forests, byte for byte.
    t150.folds.forEach((f, i) => assert.deepEqual(f.onnx, t30.folds[i]!.onnx));
    // The ExtraTrees forest too.
    const extra = await runtime.train(strategy('ExtraTreesClassifier', "{'n_estimators': 300, 'max_depth': 4}"), bars, {
      folds,
      foldsOnly: true,
    });
    assert.equal(extra.foldTrees, 37);
  });

  it('hands back fold models, not probabilities: code that forges predict_proba in the sandbox leaves them as they are', async () => {
    const folds = { k: 3, scheme: 'rolling' as const, embargo: 0 };
    const [honest, hostile] = await Promise.all([
      runtime.train(forest(60), bars, { folds }),
      runtime.train(forest(60) + FORGE_PROBA, bars, { folds }),
    ]);
    assert.ok(
      hostile.probaUp.every((p) => p === 0.99),
      'the forgery ran: the sandbox’s own p(up) say 0.99',
    );
    assert.equal(hostile.folds.length, 3);
    hostile.folds.forEach((f, i) => assert.deepEqual(f.onnx, honest.folds[i]!.onnx, `fold ${i}`));
    const scored = await foldPUp(hostile);
    assert.ok(scored.every((p) => p.some((x) => x !== Math.fround(0.99))));
    assert.deepEqual(scored, await foldPUp(honest));
  });

  it('a fold model that is not one our exporter makes is refused when scored, naming the fold (as a main model is refused)', async () => {
    const t = await runtime.train(forest(20) + GARBLE_FOLD_MODELS, bars, {
      folds: { k: 3, scheme: 'rolling', embargo: 0 },
      foldsOnly: true,
    });
    assert.equal(checkModel(t.folds[0]!.onnx).nFeatures, t.features.length, 'fold 0 came back whole');
    await assert.rejects(foldPUp(t), (err: unknown) => err instanceof ModelRejectedError && /^walk-forward fold [12]: /.test(err.reason));
  });

  it('refuses fold options out of range before any fit', async () => {
    await assert.rejects(
      runtime.train(LOGISTIC, bars, { folds: { k: 11, scheme: 'rolling', embargo: 0 } }),
      (err: unknown) => err instanceof StrategyJobError && /folds\.k must be an integer between 2 and 10/.test(err.message),
    );
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
      runtime.train(LOGISTIC, bars, {
        folds,
        foldsOnly: true,
        overrides: { model_type: 'RandomForestClassifier', model_params: { n_estimators: 20, max_depth: 4 } },
      }),
    ]);
    assert.deepEqual(tuned.config.model_params, { C: 0.01, max_iter: 1000 });
    assert.notDeepEqual(tuned.probaUp, plain.probaUp, 'the override reached the fit');
    assert.notDeepEqual(tuned.folds[0]!.onnx, plain.folds[0]!.onnx, 'and the fold fits');
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
    await assert.rejects(
      runtime.train(forest, bars, { overrides: { model_params: { n_estimators: 100_000 } } }),
      refused(/model_params\.n_estimators must be between 1 and 500/),
    );
    await assert.rejects(
      runtime.train(forest, bars, { overrides: { model_params: { n_jobs: 8 } } }),
      refused(/model_params\.n_jobs is set by the trainer/),
    );
    await assert.rejects(
      runtime.train(forest, bars, { overrides: { model_type: 'SVC' as 'RandomForestClassifier' } }),
      refused(/model_type 'SVC' is not one the trainer supports/),
    );
    // sklearn fits it, the schema does not allow it: Node refuses the trained config.
    await assert.rejects(
      runtime.train(forest, bars, { overrides: { model_params: { min_samples_leaf: 20_000 } } }),
      refused(/strategy_config\(\) with the overrides is invalid: model_params\.min_samples_leaf/),
    );
  });
});
