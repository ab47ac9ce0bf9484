/**
 * Hostile strategy code for the walk-forward folds: strategy code may run any Python inside the
 * sandbox (a forked child per job, so a patch dies with its job). Append one of these to a valid
 * strategy's code; the honest code's models are otherwise fitted as they would be.
 */

/** Every forest's predict_proba in the sandbox says p(up) = 0.99 (what the trainer would report as the fold p(up), were they trusted). */
export const FORGE_PROBA = `
import sklearn.ensemble
_honest_proba = sklearn.ensemble.RandomForestClassifier.predict_proba
def _forged_proba(self, X):
    p = _honest_proba(self, X).copy()
    p[:, 0], p[:, -1] = 0.01, 0.99
    return p
sklearn.ensemble.RandomForestClassifier.predict_proba = _forged_proba
`;

/** The trainer's exporter, reached through sklearn's `sys`, hands back the first model exported (fold 0: trainer.py exports each fold model as it is fitted) whole and every later one (the other folds, the main model) cut short. */
export const GARBLE_FOLD_MODELS = `
import sklearn
_trainer = sklearn.sys.modules['trainer']
_honest_export = _trainer.export_model
_exported = []
def _garbling_export(model, n_features):
    onnx = _honest_export(model, n_features)
    _exported.append(1)
    return onnx if len(_exported) == 1 else onnx[: len(onnx) // 2]
_trainer.export_model = _garbling_export
`;
