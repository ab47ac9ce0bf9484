"""How many trees a walk-forward fold forest needs (trainer.py FOLD_MIN_TREES): measured once, by hand.

    /usr/bin/python3 test/bench/fold-forest-size.py [year ...]   # default: 2015 2016

Real EURUSD (HistData 1-minute bids of ../shared/data/fx, aggregated to 15-minute bars), the
train-robustness bench's features and model (RandomForest, max_depth 8, target_horizon 4), the
pipeline's 5 rolling folds (purge 4 bars, embargo 1 % of the labelled bars). Each fold is fitted as
trainer.py fits it (float32 values, random_state 42) with the full 200 trees and with fewer; on the
fold's test bars, the signals at the bench's threshold 0.55 (p >= 0.55 long, p <= 0.45 short) of the
small forest are compared with the full one's:
  agree  share of test bars whose signal (-1/0/1) is the same;
  kept   share of the full forest's entries (non-zero signals) the small one gives with the same side;
  flip   share of test bars long in one and short in the other;
  ret    the fold's return sign (sum of side x 4-bar forward return over signal bars, a trade proxy)
         equal to the full forest's, over folds.
Also the fit and ONNX export seconds of a fold (onnx_export.export_model, the trainer's exporter).
Not part of any suite: the figures are quoted in trainer.py and the issue-34 report.
"""
import gzip
import os
import sys
import time

import numpy as np
import pandas as pd
import sklearn.ensemble

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "src", "sandbox", "python"))
from onnx_export import export_model  # noqa: E402

DATA = os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "data", "fx", "histdata_m1", "normalized")
H = 4
THRESHOLD = 0.55
FULL = 200
SIZES = (10, 20, 25, 30, 40, 50, 80)


def bars(year):
    with gzip.open(os.path.join(DATA, f"histdata_EURUSD_m1_{year}.csv.gz"), "rt") as f:
        m1 = pd.read_csv(f, parse_dates=["ts_utc"], index_col="ts_utc")
    return m1.resample("15min").agg({"bid_open": "first", "bid_high": "max", "bid_low": "min", "bid_close": "last"}).dropna().set_axis(
        ["open", "high", "low", "close"], axis=1)


def features(df):
    close, open_, high, low = df["close"], df["open"], df["high"], df["low"]
    out = pd.DataFrame(index=df.index)
    ret = close.pct_change()
    out["ret_1"] = ret
    out["ret_4"] = close.pct_change(4)
    out["sma_gap"] = close / close.rolling(20).mean() - 1
    out["ema_gap"] = close / close.ewm(span=50, adjust=False).mean() - 1
    out["vol_20"] = ret.rolling(20).std()
    out["range"] = (high - low) / close
    out["body"] = (close - open_) / close
    out["hour"] = df.index.hour
    return out.bfill().ffill().to_numpy("f8").astype(np.float32).astype(np.float64), close.to_numpy()


def signals(p):
    return np.where(p >= np.float32(THRESHOLD), 1, np.where(p <= np.float32(1 - THRESHOLD), -1, 0))


def main(years):
    rows = {n: {"agree": [], "kept": [], "flip": [], "ret": []} for n in SIZES}
    cost = {n: [] for n in SIZES + (FULL,)}
    for year in years:
        X, close = features(bars(year))
        y = (close[H:] > close[:-H]).astype(np.int64)
        fwd = close[H:] / close[:-H] - 1
        m = len(y)
        embargo = -(-m // 100)
        edges = [m * j // 6 for j in range(7)]
        for i in range(5):
            a, b, c, d = edges[i], edges[i + 1], edges[i + 1] + H + embargo, edges[i + 2]

            def fit(n):
                t = time.perf_counter()
                model = sklearn.ensemble.RandomForestClassifier(n_estimators=n, max_depth=8, random_state=42, n_jobs=2).fit(X[a:b], y[a:b])
                fitted = time.perf_counter()
                export_model(model, X.shape[1])
                cost[n].append((fitted - t, time.perf_counter() - fitted))
                model.set_params(n_jobs=1)
                return model.predict_proba(X[c:d])[:, 1].astype(np.float32)

            full = signals(fit(FULL))
            full_ret = np.sign((full * fwd[c:d]).sum())
            for n in SIZES:
                s = signals(fit(n))
                rows[n]["agree"].append(np.mean(s == full))
                entries = full != 0
                rows[n]["kept"].append(np.mean(s[entries] == full[entries]) if entries.any() else 1.0)
                rows[n]["flip"].append(np.mean(s * full < 0))
                rows[n]["ret"].append(np.sign((s * fwd[c:d]).sum()) == full_ret)
            print(f"{year} fold {i}: {b - a} train rows, {d - c} test rows, full forest {np.mean(full != 0):.1%} signal bars", flush=True)
    print(f"\nfolds: {5 * len(years)} (EURUSD 15-min {', '.join(years)}), full forest {FULL} trees")
    print("trees  agree   kept    flip   ret-sign  fit s  export s")
    for n in SIZES:
        r = rows[n]
        fit_s, export_s = np.mean(cost[n], axis=0)
        print(f"{n:5d}  {np.mean(r['agree']):.3f}  {np.mean(r['kept']):.3f}  {np.mean(r['flip']):.4f}  {np.mean(r['ret']):.2f}      {fit_s:.2f}   {export_s:.2f}")
    fit_s, export_s = np.mean(cost[FULL], axis=0)
    print(f"{FULL:5d}  (reference)                      {fit_s:.2f}   {export_s:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["2015", "2016"])
