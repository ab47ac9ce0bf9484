/**
 * Model classes and their parameters: a sensible default set per class (small enough to train a
 * year of 15-minute bars in seconds), the keys a request may change and the bounds it is held to
 * (the StrategyConfig schema's, tightened where a larger value only costs time).
 */
import type { ModelType } from '../../../schemas/strategy.ts';
import type { ModelParams } from './intent.ts';
import { sig } from './market.ts';

export const DEFAULT_MODEL: ModelType = 'RandomForestClassifier';

export const MODEL_DEFAULTS: Record<ModelType, ModelParams> = {
  XGBClassifier: { n_estimators: 200, max_depth: 4, learning_rate: 0.05, subsample: 0.8, colsample_bytree: 0.8 },
  RandomForestClassifier: { n_estimators: 200, max_depth: 6, min_samples_leaf: 20 },
  GradientBoostingClassifier: { n_estimators: 150, max_depth: 3, learning_rate: 0.05, subsample: 0.8 },
  ExtraTreesClassifier: { n_estimators: 200, max_depth: 8, min_samples_leaf: 20 },
  LogisticRegression: { C: 1, max_iter: 1000 },
  AdaBoostClassifier: { n_estimators: 100, learning_rate: 0.5 },
};

/** [min, max, integer] per parameter a request may set. */
const BOUNDS: Record<string, [number, number, boolean]> = {
  n_estimators: [10, 500, true],
  max_depth: [1, 16, true],
  learning_rate: [0.001, 1, false],
  min_samples_leaf: [1, 1000, true],
  C: [0.0001, 10000, false],
  subsample: [0.1, 1, false],
};

const SETTABLE: Record<ModelType, readonly string[]> = {
  XGBClassifier: ['n_estimators', 'max_depth', 'learning_rate', 'subsample'],
  RandomForestClassifier: ['n_estimators', 'max_depth', 'min_samples_leaf', 'class_weight'],
  GradientBoostingClassifier: ['n_estimators', 'max_depth', 'learning_rate', 'min_samples_leaf', 'subsample'],
  ExtraTreesClassifier: ['n_estimators', 'max_depth', 'min_samples_leaf', 'class_weight'],
  LogisticRegression: ['C', 'class_weight'],
  AdaBoostClassifier: ['n_estimators', 'learning_rate'],
};

/** The class's defaults with the asked parameters applied (unknown or out-of-bounds ones noted). */
export function modelParams(type: ModelType, asked: ReadonlyArray<[string, number | string]>, remarks: string[]): ModelParams {
  const params: ModelParams = { ...MODEL_DEFAULTS[type] };
  for (const [key, raw] of asked) {
    if (!SETTABLE[type].includes(key)) {
      remarks.push(`${key} does not apply to ${type}; ignored`);
      continue;
    }
    if (key === 'class_weight') {
      params.class_weight = 'balanced';
      continue;
    }
    const [min, max, integer] = BOUNDS[key]!;
    let v = typeof raw === 'number' ? raw : Number(raw);
    if (!Number.isFinite(v)) continue;
    if (integer) v = Math.round(v);
    const clamped = Math.min(max, Math.max(min, v));
    if (clamped !== v) remarks.push(`${key} ${v} is outside [${min}, ${max}]; set to ${clamped}`);
    params[key] = integer ? clamped : sig(clamped, 4);
  }
  return params;
}

/** Short human label of a model class. */
export const MODEL_LABEL: Record<ModelType, string> = {
  XGBClassifier: 'XGBoost',
  RandomForestClassifier: 'random forest',
  GradientBoostingClassifier: 'gradient boosting',
  ExtraTreesClassifier: 'extra trees',
  LogisticRegression: 'logistic regression',
  AdaBoostClassifier: 'AdaBoost',
};
