/**
 * The walk-forward fold models' p(up), on the trusted side: each fold's ONNX model (trainer.py
 * hands back models, never probabilities) checked, loaded and scored as the main model is
 * (modelProbabilities), on the feature rows of its own bars only.
 */
import type { UserKey } from '../lib/fair-share.ts';
import type { TrainedFold } from '../sandbox/index.ts';
import { modelProbabilities } from './chain.ts';
import type { FeatureRows } from './feature-rows.ts';
import { ModelRejectedError } from './model-check/index.ts';

/** A fold model scored: its bars, and p(up) per bar of the job (NaN outside the bars scored). */
export type ScoredFold = Omit<TrainedFold, 'onnx'> & { pUp: Float32Array };

export interface FoldScoring {
  /** Whose models: the scoring processes are shared fairly between owners. */
  owner?: UserKey;
  /** `test`: only the test bars (what the optimiser trades); default: train.from … test.to − 1 (the in-sample side too). */
  bars?: 'test' | 'train-and-test';
}

/**
 * Scores every fold model on the features of n bars. A fold model that fails the check throws
 * ModelRejectedError naming the fold in its reason (the job fails, as for a main model that fails it).
 */
export async function scoreFolds(
  folds: readonly TrainedFold[],
  features: FeatureRows,
  n: number,
  scoring: FoldScoring = {},
): Promise<ScoredFold[]> {
  return Promise.all(
    folds.map(async (fold) => {
      const range = scoring.bars === 'test' ? fold.test : { from: fold.train.from, to: fold.test.to };
      const pUp = await modelProbabilities(fold.onnx, features, n, {
        range,
        ...(scoring.owner === undefined ? {} : { owner: scoring.owner }),
      }).catch((err: unknown) => {
        throw err instanceof ModelRejectedError ? new ModelRejectedError(`walk-forward fold ${fold.index}: ${err.reason}`) : err;
      });
      return { index: fold.index, train: fold.train, test: fold.test, pUp };
    }),
  );
}
