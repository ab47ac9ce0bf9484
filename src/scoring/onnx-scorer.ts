// Scores exported strategy models (src/sandbox/python/onnx_export.py) with onnxruntime-node.
// Backtest and live both go through here, so a bar gets the same probability in either.
// The model came out of the sandbox, so it is hostile input: it is checked against what our
// exporter makes (model-check/), then scored in a process of its own within memory and time
// limits (model-host/), never on this process's event loop.
import type { Config } from '../config.ts';
import type { UserKey } from '../lib/fair-share.ts';
import type { Logger } from '../log.ts';
import { checkModel, checkModelOffThread } from './model-check/index.ts';
import type { OnnxModel } from './model-host/onnx-model.ts';
import { ScorerPool, type ScorerPoolOptions } from './model-host/scorer-pool.ts';

// The graph contract (input X float32 [N, nFeatures] → probabilities float32 [N, nClasses], "up"
// last) is written on OnnxModel, in model-host/onnx-model.ts.
export type { OnnxModel };

export interface LoadOptions {
  /** Whose model it is: the scoring processes are shared fairly between owners (a user id). */
  owner?: UserKey;
}

// Every session is made with intraOpNumThreads 1 (scorer-process.mjs): a fixed thread count keeps
// the tree-sum order, hence the float result, the same between backtest and live; live scores
// one row at a time, where threads do not help anyway.

let pool: ScorerPool | null = null;
let poolOptions: ScorerPoolOptions = {};
let users = 0;

/** Models up to this size are checked in place (a few ms); a larger one on the check's worker
 *  thread, so a big or hostile model never holds the event loop for the seconds its check takes. */
const CHECK_IN_PLACE_BYTES = 256 * 1024;

/** Checks the model (ModelRejectedError when it is not one our exporter makes) and loads it by its bytes. */
export async function loadModel(bytes: Uint8Array, opts: LoadOptions = {}): Promise<OnnxModel> {
  const shape = bytes.length <= CHECK_IN_PLACE_BYTES ? checkModel(bytes) : await checkModelOffThread(bytes);
  const model = await scorers().load(bytes, opts.owner);
  if (model.nFeatures !== shape.nFeatures || model.nClasses !== shape.nClasses) {
    await model.close();
    throw new Error(
      `onnx-scorer: the model scores [N, ${model.nFeatures}] → [N, ${model.nClasses}], its graph says [N, ${shape.nFeatures}] → [N, ${shape.nClasses}]`,
    );
  }
  return model;
}

/** This process's scoring processes, started at the first load. */
export function scorers(): ScorerPool {
  return (pool ??= new ScorerPool(poolOptions));
}

/** Runs sent to the scoring processes, and calls answered by an identical run (none before the first load). */
export function scorerStats(): { runs: number; shared: number } {
  return pool?.stats() ?? { runs: 0, shared: 0 };
}

/** The environment's limits of the scoring processes (schemas/config.ts). */
export type ScorerConfig = Pick<Config, 'SCORER_PROCESSES' | 'SCORER_MEMORY_MB' | 'SCORER_RUN_MS' | 'SCORER_LOAD_MS'>;

/**
 * A part of the service that loads models: sets the pool's limits (the first caller's count) and
 * returns its shutdown step; the processes stop when the last part that asked stops.
 */
export function useScorers(config: ScorerConfig, log?: Logger): () => Promise<void> {
  if (users++ === 0 && !pool) {
    poolOptions = {
      processes: config.SCORER_PROCESSES,
      memoryMb: config.SCORER_MEMORY_MB,
      runMs: config.SCORER_RUN_MS,
      loadMs: config.SCORER_LOAD_MS,
      ...(log ? { log } : {}),
    };
  }
  let stopped = false;
  return async () => {
    if (stopped) return;
    stopped = true;
    if (--users > 0 || !pool) return;
    const closing = pool;
    pool = null;
    await closing.close();
  };
}
