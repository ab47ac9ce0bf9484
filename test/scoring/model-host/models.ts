// Models for the scoring-process tests: honest ones trained and exported as the trainer does
// (test/parity/onnx_parity_fixture.py → onnx_export.py), hostile ones built with the onnx package
// (hostile_models.py), and onnxruntime in this process for the float parity reference.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const python = process.env['PYTHON'] ?? '/usr/bin/python3';
const FIXTURE = new URL('../../parity/onnx_parity_fixture.py', import.meta.url).pathname;
const HOSTILE = new URL('./hostile_models.py', import.meta.url).pathname;

export interface HonestModel {
  bytes: Uint8Array;
  /** Test features, row-major float32 [rows, nFeatures]. */
  X: Float32Array;
  rows: number;
  nFeatures: number;
}

export async function honestModel(kind: string): Promise<HonestModel> {
  const dir = await mkdtemp(join(tmpdir(), 'scorer-honest-'));
  try {
    await run(python, [FIXTURE, kind, dir], { timeout: 120_000 });
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as { rows: number; n_features: number };
    const raw = await readFile(join(dir, 'X.f32'));
    const X = new Float32Array(raw.length / 4);
    new Uint8Array(X.buffer).set(raw);
    return { bytes: new Uint8Array(await readFile(join(dir, 'model.onnx'))), X, rows: meta.rows, nFeatures: meta.n_features };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** hang: a Loop of MatMuls 10^9 times; balloon: a 4 GiB ConstantOfShape at run time. Both X [N, nFeatures] → probabilities [N, 2]. */
export async function hostileModels(nFeatures: number): Promise<{ hang: Uint8Array; balloon: Uint8Array }> {
  const dir = await mkdtemp(join(tmpdir(), 'scorer-hostile-'));
  try {
    await run(python, [HOSTILE, dir, String(nFeatures)], { timeout: 60_000 });
    return {
      hang: new Uint8Array(await readFile(join(dir, 'hang.onnx'))),
      balloon: new Uint8Array(await readFile(join(dir, 'balloon.onnx'))),
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

type Ort = typeof import('onnxruntime-node');

/** onnxruntime in this process, with the service's session options: the float parity reference. */
export async function inProcessScorer(bytes: Uint8Array, nFeatures: number) {
  const ort = createRequire(import.meta.url)('onnxruntime-node') as Ort;
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
  return {
    /** Row-major [rows, nClasses]. */
    async probabilities(X: Float32Array, rows: number): Promise<Float32Array> {
      const out = await session.run({ X: new ort.Tensor('float32', X, [rows, nFeatures]) });
      return out['probabilities']!.data as Float32Array;
    },
    release: () => session.release(),
  };
}
