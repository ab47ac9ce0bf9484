"""Test fixture for onnx-parity.test.ts: trains one model class on real EURUSD M1 features, exports it
with src/sandbox/python/onnx_export.py and writes what Node needs to compare:

  model.onnx   the exported model
  X.f32        test features, float32 little-endian, row-major [rows, n_features]
  proba.f64    predict_proba on those same float32 values, float64 little-endian [rows, n_classes]
  meta.json    {"rows", "n_features", "n_classes", "model"}

usage: /usr/bin/python3 onnx_parity_fixture.py MODEL OUT_DIR [N_CLASSES]
"""
import json
import os
import sys

import numpy as np
import pandas as pd

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "sandbox", "python"))
from onnx_export import export_model  # noqa: E402

DATA = os.path.join(HERE, "..", "..", "..", "shared", "data", "fx", "histdata_m1", "normalized",
                    "histdata_EURUSD_m1_2017-01_2017-09.csv.gz")
ROWS = 12_000
HORIZON = 4


def features():
    bars = pd.read_csv(DATA, nrows=ROWS)
    c, h, l = bars["bid_close"], bars["bid_high"], bars["bid_low"]
    r = np.log(c).diff()
    f = pd.DataFrame({
        "ret1": r,
        "ret4": np.log(c).diff(4),
        "ret16": np.log(c).diff(16),
        "vol16": r.rolling(16).std(),
        "vol64": r.rolling(64).std(),
        "z32": (c - c.rolling(32).mean()) / c.rolling(32).std(),
        "range": (h - l) / c,
        "mom8": r.rolling(8).mean(),
        "close": c,  # unscaled level on purpose: stresses float32 thresholds and linear models
    })
    fwd = c.shift(-HORIZON) - c
    ok = f.notna().all(axis=1) & fwd.notna()
    return f[ok].to_numpy(np.float64), fwd[ok].to_numpy()


def make_model(name, seed=7):
    from sklearn.ensemble import (AdaBoostClassifier, ExtraTreesClassifier, GradientBoostingClassifier,
                                  RandomForestClassifier)
    from sklearn.linear_model import LogisticRegression
    from sklearn.tree import DecisionTreeClassifier

    if name == "RandomForestClassifier":
        return RandomForestClassifier(n_estimators=100, max_depth=8, n_jobs=4, random_state=seed)
    if name == "ExtraTreesClassifier":
        return ExtraTreesClassifier(n_estimators=100, max_depth=10, n_jobs=4, random_state=seed)
    if name == "GradientBoostingClassifier":
        return GradientBoostingClassifier(n_estimators=100, max_depth=3, learning_rate=0.1, random_state=seed)
    if name == "AdaBoostClassifier":  # SAMME: what the trainer uses (SAMME.R is deprecated after 1.2)
        return AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=50, algorithm="SAMME",
                                  random_state=seed)
    if name == "AdaBoostClassifier_SAMME.R":
        return AdaBoostClassifier(DecisionTreeClassifier(max_depth=2), n_estimators=50, algorithm="SAMME.R",
                                  random_state=seed)
    if name == "LogisticRegression":
        return LogisticRegression(C=1.0, max_iter=2000)
    if name == "LogisticRegression_ovr":
        return LogisticRegression(C=1.0, max_iter=2000, multi_class="ovr")
    if name.startswith("XGBClassifier"):
        from xgboost import XGBClassifier
        early = {"early_stopping_rounds": 10} if name == "XGBClassifier_early" else {}
        return XGBClassifier(n_estimators=200, max_depth=6, tree_method="hist", learning_rate=0.1,
                             n_jobs=4, random_state=seed, **early)
    raise SystemExit(f"unknown model {name}")


def main():
    name, out = sys.argv[1], sys.argv[2]
    n_classes = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    X, fwd = features()
    if name == "XGBClassifier_nan":
        # xgboost sends a missing value to each node's default child; exercise that path.
        rng = np.random.default_rng(1)
        X[rng.random(X.shape) < 0.05] = np.nan
    if n_classes == 2:
        y = (fwd > 0).astype(np.int64)  # 1 = up, 0 = down/flat
    else:
        y = (np.sign(fwd) + 1).astype(np.int64)  # 0 = down, 1 = flat, 2 = up
    # Chronological split with a purge gap of HORIZON bars, as the trainer does.
    cut = int(len(X) * 0.7)
    X_train, y_train = X[:cut], y[:cut]
    X_test = X[cut + HORIZON:].astype(np.float32)
    model = make_model(name)
    if name == "XGBClassifier_early":
        # Early stopping on the last 20% of the train part: predict_proba then uses best_iteration.
        val = int(cut * 0.8)
        model.fit(X_train[:val], y_train[:val], eval_set=[(X_train[val:], y_train[val:])], verbose=False)
        assert model.best_iteration < 199
    else:
        model.fit(X_train, y_train)
    onnx_bytes = export_model(model, X.shape[1])
    # Score the float32 values ONNX sees, in float64 where the library computes in float64.
    proba = np.asarray(model.predict_proba(X_test.astype(np.float64)), dtype=np.float64)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.onnx"), "wb") as fh:
        fh.write(onnx_bytes)
    X_test.astype("<f4").tofile(os.path.join(out, "X.f32"))
    proba.astype("<f8").tofile(os.path.join(out, "proba.f64"))
    with open(os.path.join(out, "meta.json"), "w") as fh:
        json.dump({"rows": int(X_test.shape[0]), "n_features": int(X.shape[1]),
                   "n_classes": int(proba.shape[1]), "model": name}, fh)


if __name__ == "__main__":
    main()
