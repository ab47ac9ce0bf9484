/**
 * The one scoring chain, from bars and a trained model to what the position engine takes:
 * features (sandboxed) → the feature-column check → ONNX p(up) → signals and entry mask → engine
 * options. Training, /predict and the live model actor all score through here.
 */
export {
  barProbabilities,
  decide,
  modelProbabilities,
  scoreFeatures,
  scoreWindow,
  scoringShare,
  strategyMask,
  strategySignals,
  entryRules,
  type BarRange,
  type FeatureComputer,
  type Scored,
  type ScoringSpec,
} from './chain.ts';
export { scoreFolds, type FoldScoring, type ScoredFold } from './fold-scores.ts';
export { featureRows, featureColumn, type FeatureRows } from './feature-rows.ts';
export { toSignals, labelMode, entryMask, maskedSide, natr, weekdayOf, type EntryFilters, type EntryRules } from './decisions.ts';
export { engineOptions, intrabarResolver, hasFinerBars } from './engine-inputs.ts';
export { loadModel, scorerStats, useScorers, type OnnxModel } from './onnx-scorer.ts';
export { ModelScoringError } from './model-host/scorer-pool.ts';
export { checkModel, checkModelOffThread, ModelRejectedError, type CheckedModel } from './model-check/index.ts';
export { sliceBars, type BarColumns, type OhlcColumns } from '../lib/bar-columns.ts';
export {
  LiveStepper,
  freshStartAfter,
  lastClosedIndex,
  CATCH_UP_CHUNK,
  type LiveBar,
  type LiveResume,
  type LiveSpec,
  type LiveStepperDeps,
} from './live-stepper.ts';
export { FeatureSources, type FeatureRuntime, type FeatureSource } from './feature-sources.ts';
