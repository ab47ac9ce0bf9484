// checkModel: every model onnx_export.py makes passes with its shape; every model of the hostile
// corpus (test/scoring/hostile-models/generate.py) is refused. Only models checkModel accepted
// are ever handed to onnxruntime here.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import * as ort from 'onnxruntime-node';
import { checkModel, ModelRejectedError } from '../../src/scoring/index.ts';
import { MAX_MODEL_BYTES } from '../../src/scoring/model-check/bounds.ts';
import { checkModelOffThread } from '../../src/scoring/model-check/index.ts';

const HERE = import.meta.dirname;
const dir = mkdtempSync(join(tmpdir(), 'model-check-'));
const honestDir = join(dir, 'honest');
const hostileDir = join(dir, 'hostile');
// Generated before the tests are declared, so each case is a test of its own.
execFileSync('/usr/bin/python3', [join(HERE, 'model-check-honest.py'), honestDir], { stdio: ['ignore', 'ignore', 'inherit'] });
execFileSync('/usr/bin/python3', [join(HERE, 'hostile-models', 'generate.py'), hostileDir], { stdio: ['ignore', 'ignore', 'inherit'] });
const honest: Record<string, { n_features: number; n_classes: number }> = JSON.parse(readFileSync(join(honestDir, 'meta.json'), 'utf8'));
const hostile: Record<string, string> = JSON.parse(readFileSync(join(hostileDir, 'cases.json'), 'utf8'));
after(() => rmSync(dir, { recursive: true, force: true }));

function refused(bytes: Uint8Array): ModelRejectedError {
  try {
    checkModel(bytes);
  } catch (err) {
    assert.ok(err instanceof ModelRejectedError, `not a ModelRejectedError: ${String(err)}`);
    return err;
  }
  assert.fail('accepted');
}

describe('models our exporter makes', () => {
  test('the set covers every model class, with 2 and with 3 classes', () => {
    const names = Object.keys(honest);
    for (const type of ['RandomForest', 'ExtraTrees', 'GradientBoosting', 'AdaBoost', 'LogisticRegression', 'XGB']) {
      assert.ok(
        names.some((n) => n.startsWith(type) && n.includes('_2classes')),
        `no binary ${type}`,
      );
      assert.ok(
        names.some((n) => n.startsWith(type) && n.includes('_3classes')),
        `no 3-class ${type}`,
      );
    }
  });

  for (const [name, meta] of Object.entries(honest)) {
    test(`${name} passes with its feature and class counts`, () => {
      const got = checkModel(readFileSync(join(honestDir, `${name}.onnx`)));
      assert.deepEqual(got, { nFeatures: meta.n_features, nClasses: meta.n_classes });
    });
  }

  test('onnxruntime reads the same shape from an accepted model as checkModel', async () => {
    for (const name of [
      'RandomForestClassifier_2classes_7features',
      'XGBClassifier_3classes_4features',
      'LogisticRegression_ovr_3classes_4features',
      'GradientBoostingClassifier_2classes_1features',
    ]) {
      const bytes = readFileSync(join(honestDir, `${name}.onnx`));
      const { nFeatures, nClasses } = checkModel(bytes); // throws before onnxruntime sees a refused model
      const session = await ort.InferenceSession.create(bytes);
      try {
        const input = session.inputMetadata[session.inputNames.indexOf('X')];
        const output = session.outputMetadata[session.outputNames.indexOf('probabilities')];
        assert.ok(input?.isTensor && output?.isTensor, name);
        assert.deepEqual([input.shape[1], output.shape[1]], [nFeatures, nClasses], name);
        const rows = 3;
        const out = await session.run({ X: new ort.Tensor('float32', new Float32Array(rows * nFeatures).fill(0.5), [rows, nFeatures]) });
        assert.deepEqual(out['probabilities']!.dims, [rows, nClasses], name);
      } finally {
        await session.release();
      }
    }
  });
});

describe('hostile models', () => {
  test('the corpus holds at least 30 cases', () => {
    assert.ok(Object.keys(hostile).length >= 30, `${Object.keys(hostile).length} cases`);
  });

  test('the corpus starts from a model that passes, so each refusal is the change it makes', () => {
    assert.deepEqual(checkModel(readFileSync(join(hostileDir, 'honest.onnx'))), { nFeatures: 7, nClasses: 2 });
  });

  for (const [name, why] of Object.entries(hostile)) {
    test(`refuses ${name}: ${why}`, () => {
      const err = refused(readFileSync(join(hostileDir, `${name}.onnx`)));
      assert.ok(err.reason.length > 0, 'no reason');
      // The user is told what to do, and nothing of what the check found.
      assert.match(err.message, /train again/);
      assert.ok(!err.message.includes(err.reason), 'the message shows the reason');
    });
  }

  test('an empty file, a file over the size bound, and random bytes are refused', () => {
    assert.match(refused(new Uint8Array(0)).reason, /empty/);
    assert.match(refused(new Uint8Array(MAX_MODEL_BYTES + 1)).reason, /over/);
    let seed = 1;
    for (let i = 0; i < 200; i++) {
      const bytes = new Uint8Array(1 + ((i * 37) % 3000));
      for (let j = 0; j < bytes.length; j++) bytes[j] = (seed = (seed * 1103515245 + 12345) >>> 0) >>> 24;
      refused(bytes);
    }
  });

  test('the honest model cut at every length is refused', () => {
    const bytes = readFileSync(join(hostileDir, 'honest.onnx'));
    for (let n = 1; n < bytes.length; n++) refused(bytes.subarray(0, n));
  });
});

describe('off the event loop', () => {
  test('checkModelOffThread answers as checkModel does: the shape, or the same refusal', async () => {
    const name = 'XGBClassifier_3classes_4features';
    assert.deepEqual(await checkModelOffThread(readFileSync(join(honestDir, `${name}.onnx`))), { nFeatures: 4, nClasses: 3 });
    for (const bad of ['external_package_json', 'cycle', 'tree_too_deep']) {
      const bytes = readFileSync(join(hostileDir, `${bad}.onnx`));
      const err = await checkModelOffThread(bytes).then(
        () => assert.fail(`${bad} accepted`),
        (e: unknown) => e,
      );
      assert.ok(err instanceof ModelRejectedError, `${bad}: ${String(err)}`);
      assert.equal(err.reason, refused(bytes).reason, bad);
    }
  });
});
