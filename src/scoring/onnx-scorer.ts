// Scores exported strategy models (src/sandbox/python/onnx_export.py) with onnxruntime-node.
// Backtest and live both go through here, so a bar gets the same probability in either.
import * as ort from 'onnxruntime-node';

/** A loaded model. Graph contract: input `X` float32 [N, nFeatures], output `probabilities`
 *  float32 [N, nClasses] in the trainer's class order (ascending labels, so "up" is the last). */
export interface OnnxModel {
  readonly nFeatures: number;
  readonly nClasses: number;
  /** p(up) per row: the last probability column. X is row-major [rows, nFeatures]. */
  score(X: Float32Array, rows: number): Promise<Float32Array>;
  /** All class probabilities, row-major [rows, nClasses]. */
  probabilities(X: Float32Array, rows: number): Promise<Float32Array>;
  close(): Promise<void>;
}

export interface LoadOptions {
  /** Default 1: a fixed thread count keeps the tree-sum order, hence the float result, the same
   *  between backtest and live; live scores one row at a time, where threads do not help anyway. */
  intraOpNumThreads?: number;
}

export async function loadModel(bytes: Uint8Array, opts: LoadOptions = {}): Promise<OnnxModel> {
  const session = await ort.InferenceSession.create(bytes, {
    intraOpNumThreads: opts.intraOpNumThreads ?? 1,
    interOpNumThreads: 1,
    executionMode: 'sequential',
  });
  const nFeatures = lastDim(session, 'X', 'input');
  const nClasses = lastDim(session, 'probabilities', 'output');

  async function probabilities(X: Float32Array, rows: number): Promise<Float32Array> {
    if (!Number.isInteger(rows) || rows < 0 || X.length !== rows * nFeatures) {
      throw new Error(`onnx-scorer: X has ${X.length} values, expected ${rows} rows x ${nFeatures} features`);
    }
    if (rows === 0) return new Float32Array(0);
    const out = await session.run({ X: new ort.Tensor('float32', X, [rows, nFeatures]) });
    const p = out['probabilities'];
    if (!p || !(p.data instanceof Float32Array) || p.data.length !== rows * nClasses) {
      throw new Error('onnx-scorer: model returned no float32 [rows, nClasses] "probabilities"');
    }
    return p.data;
  }

  return {
    nFeatures,
    nClasses,
    probabilities,
    async score(X, rows) {
      const p = await probabilities(X, rows);
      const up = new Float32Array(rows);
      for (let i = 0; i < rows; i++) up[i] = p[i * nClasses + nClasses - 1]!;
      return up;
    },
    close: () => session.release(),
  };
}

// The exporter always writes a fixed last dimension; reading it here catches a foreign model early.
function lastDim(session: ort.InferenceSession, name: string, kind: 'input' | 'output'): number {
  const meta = kind === 'input' ? session.inputMetadata : session.outputMetadata;
  const names = kind === 'input' ? session.inputNames : session.outputNames;
  const i = names.indexOf(name);
  const m = meta[i];
  if (i < 0 || !m || !m.isTensor || m.type !== 'float32') {
    throw new Error(`onnx-scorer: model has no float32 ${kind} "${name}"`);
  }
  const d = m.shape[m.shape.length - 1];
  if (m.shape.length !== 2 || typeof d !== 'number' || d < 1) {
    throw new Error(`onnx-scorer: ${kind} "${name}" must be [N, k] with a fixed k`);
  }
  return d;
}
