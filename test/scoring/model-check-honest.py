"""Honest models for model-check.test.ts: every model class onnx_export.py exports, fitted on small
random data for 2 and 3 classes, written as OUT_DIR/<name>.onnx with OUT_DIR/meta.json
({name: {"n_features", "n_classes"}}).

usage: /usr/bin/python3 model-check-honest.py OUT_DIR
"""
import json
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "sandbox", "python"))
from onnx_export import export_model  # noqa: E402


def models():
    from sklearn.ensemble import (AdaBoostClassifier, ExtraTreesClassifier, GradientBoostingClassifier,
                                  RandomForestClassifier)
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier
    from xgboost import XGBClassifier

    stump = DecisionTreeClassifier(max_depth=2, random_state=0)
    # The trainer's constructors (trainer.py build_model), small.
    return {
        "RandomForestClassifier": lambda: RandomForestClassifier(n_estimators=8, max_depth=16, random_state=0),
        "ExtraTreesClassifier": lambda: ExtraTreesClassifier(n_estimators=8, max_depth=16, random_state=0),
        "GradientBoostingClassifier": lambda: GradientBoostingClassifier(n_estimators=8, random_state=0),
        "AdaBoostClassifier": lambda: AdaBoostClassifier(estimator=stump, n_estimators=8, algorithm="SAMME", random_state=0),
        "AdaBoostClassifier_SAMME.R": lambda: AdaBoostClassifier(estimator=stump, n_estimators=8, algorithm="SAMME.R", random_state=0),
        "LogisticRegression": lambda: LogisticRegression(max_iter=500),
        "LogisticRegression_ovr": lambda: LogisticRegression(max_iter=500, multi_class="ovr"),
        "XGBClassifier": lambda: XGBClassifier(n_estimators=8, max_depth=6, tree_method="hist", n_jobs=1,
                                               random_state=0, eval_metric="logloss", verbosity=0),
        # Parameters that reshape the trees: pruning (gamma, ccp_alpha) and best-first growth
        # (max_leaf_nodes) must still give trees whose children follow their parents.
        "XGBClassifier_pruned": lambda: XGBClassifier(n_estimators=8, max_depth=16, gamma=5, min_child_weight=5, tree_method="hist",
                                                      n_jobs=1, random_state=0, eval_metric="logloss", verbosity=0),
        "RandomForestClassifier_max_leaf_nodes": lambda: RandomForestClassifier(n_estimators=4, max_depth=16, max_leaf_nodes=20, random_state=0),
        "ExtraTreesClassifier_ccp_alpha": lambda: ExtraTreesClassifier(n_estimators=4, max_depth=16, ccp_alpha=0.002,
                                                                       class_weight="balanced", random_state=0),
        "GradientBoostingClassifier_max_leaf_nodes": lambda: GradientBoostingClassifier(n_estimators=4, max_depth=16, max_leaf_nodes=12,
                                                                                        subsample=0.5, random_state=0),
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.RandomState(7)
    meta = {}
    for k, n_features in ((2, 7), (3, 4), (2, 1)):
        X = rng.rand(400, n_features).astype(np.float32).astype(np.float64)
        y = np.minimum((X[:, 0] * k + rng.rand(400) * 0.5).astype(np.int64), k - 1)
        for name, make in models().items():
            model = make().fit(X, y)
            key = f"{name}_{k}classes_{n_features}features"
            with open(os.path.join(out, key + ".onnx"), "wb") as f:
                f.write(export_model(model, n_features))
            meta[key] = {"n_features": n_features, "n_classes": k}
    with open(os.path.join(out, "meta.json"), "w") as f:
        json.dump(meta, f)


if __name__ == "__main__":
    main()
