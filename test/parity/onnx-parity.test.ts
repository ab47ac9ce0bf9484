// Parity of the hand-built ONNX export with the library's own predict_proba, per model class,
// on real EURUSD features: what Node scores in backtest/live must be what Python trained.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../src/scoring/onnx-scorer.ts';

const run = promisify(execFile);
const here = dirname(fileURLToPath(import.meta.url));
const fixture = join(here, 'onnx_parity_fixture.py');
const python = process.env['PYTHON'] ?? '/usr/bin/python3';
const TOL = 1e-5;

interface Meta {
  rows: number;
  n_features: number;
  n_classes: number;
  model: string;
}

// Copies into fresh buffers: a Buffer's byteOffset need not be aligned for typed-array views.
function f32(buf: Buffer): Float32Array {
  const out = new Float32Array(buf.length / 4);
  new Uint8Array(out.buffer).set(buf);
  return out;
}
function f64(buf: Buffer): Float64Array {
  const out = new Float64Array(buf.length / 8);
  new Uint8Array(out.buffer).set(buf);
  return out;
}

async function parity(model: string, nClasses = 2): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'onnx-parity-'));
  try {
    await run(python, [fixture, model, dir, String(nClasses)], { timeout: 60_000 });
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as Meta;
    const X = f32(await readFile(join(dir, 'X.f32')));
    const want = f64(await readFile(join(dir, 'proba.f64')));
    const m = await loadModel(await readFile(join(dir, 'model.onnx')));
    try {
      assert.equal(m.nFeatures, meta.n_features);
      assert.equal(m.nClasses, nClasses);
      assert.ok(meta.rows > 1000, 'a realistic test split');
      const got = await m.probabilities(X, meta.rows);
      const up = await m.score(X, meta.rows);
      const k = nClasses;
      let maxDiff = 0;
      let worstRow = -1;
      let argmaxMismatch = 0;
      for (let r = 0; r < meta.rows; r++) {
        let gi = 0;
        let wi = 0;
        for (let c = 0; c < k; c++) {
          const d = Math.abs(got[r * k + c]! - want[r * k + c]!);
          if (!(d <= maxDiff)) {
            maxDiff = d;
            worstRow = r;
          }
          if (got[r * k + c]! > got[r * k + gi]!) gi = c;
          if (want[r * k + c]! > want[r * k + wi]!) wi = c;
        }
        assert.equal(up[r], got[r * k + k - 1], 'score() is the last (up) column');
        // A near-tie may legitimately flip under float32; anything else is a real disagreement.
        if (gi !== wi && Math.abs(want[r * k + gi]! - want[r * k + wi]!) >= TOL) argmaxMismatch++;
      }
      console.log(`# ${model} (${k} classes, ${meta.rows} rows): max |ORT - predict_proba| = ${maxDiff.toExponential(2)}`);
      assert.ok(maxDiff <= TOL, `${model}: max abs diff ${maxDiff} at row ${worstRow} exceeds ${TOL}`);
      assert.equal(argmaxMismatch, 0, `${model}: argmax differs on ${argmaxMismatch} rows`);
    } finally {
      await m.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const cases: Array<[string, number]> = [
  ['RandomForestClassifier', 2],
  ['ExtraTreesClassifier', 2],
  ['GradientBoostingClassifier', 2],
  ['XGBClassifier', 2],
  ['XGBClassifier_nan', 2], // 5% NaN: missing-value directions
  ['XGBClassifier_early', 2], // early stopping: only trees up to best_iteration count
  ['AdaBoostClassifier', 2], // SAMME, what the trainer uses
  ['AdaBoostClassifier_SAMME.R', 2],
  ['LogisticRegression', 2],
  // 3 classes (down / flat / up): each multi-class code path once.
  ['RandomForestClassifier', 3],
  ['GradientBoostingClassifier', 3],
  ['XGBClassifier', 3],
  ['AdaBoostClassifier', 3],
  ['LogisticRegression', 3],
  ['LogisticRegression_ovr', 3], // one-vs-rest: sigmoids normalised to sum 1
];

for (const [model, k] of cases) {
  test(`ONNX export parity: ${model}, ${k} classes`, { timeout: 90_000 }, () => parity(model, k));
}

test('onnx-scorer rejects X of the wrong length', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'onnx-parity-'));
  try {
    await run(python, [fixture, 'LogisticRegression', dir], { timeout: 60_000 });
    const m = await loadModel(await readFile(join(dir, 'model.onnx')));
    await assert.rejects(m.score(new Float32Array(10), 2), /expected 2 rows x 9 features/);
    assert.equal((await m.score(new Float32Array(0), 0)).length, 0);
    await m.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
