"""The `train` job: features → target → chronological split with a purge gap → fit → ONNX.

Imported by sandbox_runtime.py in the zygote, before any fork: once the audit hook is installed
a child may not import from /sandbox, so everything this module needs is loaded here.

Request (framed like "features"):
  {"op": "train", "code", "columns": [...], "rows": n, "train_split"?: 0.7, "warmup"?: int, "pip_size"?: float,
   "fit_rows"?: int, "folds"?: {"k", "scheme": "rolling"|"anchored", "embargo"},
   "overrides"?: {"model_type"?, "model_params"?, "indicators"?}, "folds_only"?: bool}
  payload: float64 little-endian, column-major, len(columns) * rows (ts, open, high, low, close)
  fit_rows (default rows): the bars of the trained span; the bars after it (post-cutoff) get
  features and p(up) like the rest but never reach the split, the fit or the accuracies.
  overrides: merged over strategy_config()'s model_type and model_params before the fit (params
  merged over the code's own when model_type stays, alone when it changes); indicators merged over
  strategy_config()["indicators"] for the whole job, so the code's own feature_engineering reads
  them (ops.use_indicators); "config" in the answer is the merged one, which Node validates like
  any strategy_config().
  folds_only: no main fit and no ONNX export (onnx_bytes 0, p(up) all NaN, accuracies null,
  feature_importance empty): only the fold models.
Response header:
  {"config", "features": [names], "warmup", "rows_train", "rows_test", "split_index",
   "test_start_ts", "accuracy_train", "accuracy_test", "feature_importance": {name: value},
   "warnings": [str], "onnx_bytes": B, "proba_offset": O, "proba_rows": P,
   "folds": [{"index", "train_from", "train_to", "test_from", "test_to", "onnx_bytes": F}],
   "fold_trees": T | null, "meta": {...} | null}
Response payload: B bytes of ONNX model, zeros up to O (a multiple of 8), then P float64 little-endian p(up), then the feature
  matrix, P rows x len(features) float64 little-endian row-major (what Node scores with ONNX after
  a cast to float32, and where it reads a trend_filter column), then each fold model's F bytes of
  ONNX, in the order of "folds". Fold models come back as models, never as p(up): Node checks and
  scores them as it does the main model, so no code in here can choose a fold's probabilities.
  p(up) is one per bar after
  the warm-up (bars warmup .. rows-1, train, purge gap, test and the last h unlabelled bars alike,
  so the backtest can score any stretch). split_index is the bar index of the first test row:
  p(up) of bar i is proba[i - warmup].

Rows after warm-up within the trained span, n = fit_rows - warmup; h = target_horizon; labelled rows m = n - h
(y[t] = 1 if close[t+h] > close[t] else 0). Train = the first floor(m * train_split) labelled rows,
then h purged rows (their targets overlap the test period), then the test rows:
rows_train + h + rows_test = m.

Meta-labels (strategy_config sets entry_long and/or entry_short; meta_labels.py says how): the
same bars, split and purge gap (rows_train, rows_test and split_index are the spans' bars as
above), but the model fits only on the rule rows of the train span, labelled 1 when the rule's
trade (entry at the next open) reaches its take-profit before its stop within target_horizon bars
(triple barrier), and purged by each label's end: a rule row before the test whose label ends at
or after split_index is left out, one in the fixed gap whose trade ended before it is kept. p(up)
is then P(win) of the rule's trade at that bar (every bar is scored; only rule bars matter), the
accuracies are on the train / test rule rows, and the answer's "meta" says
{"rows_train", "rows_test", "purged", "both_skipped", "labels": [[bar, side, label, end_bar], ...]}
(every labelled rule row of the test span; null without entry rules): Node checks it for layout
and shows the counts, but judges the model on the engine's own trades, never on these labels
(this process runs the strategy's code: its answer is not trusted). An optional header
"pip_size" (default 0.0001) sizes a trailing stop in pips. Folds fit on their rule rows whose
labels end `embargo` bars before their test.

Walk-forward folds (when "folds" is given; the same estimator and feature matrix): the m
labelled rows are cut into k + 1 consecutive blocks; fold i trains on block i ("rolling") or
blocks 0..i ("anchored") and tests on block i + 1 after h purged rows and `embargo` more. Its
bars [train_from, train_to) and [test_from, test_to) are bar indices like split_index; Node scores
its model on bars train_from .. test_to - 1. A fold with under MIN_TRAIN_ROWS train
rows, no test row, or one class among its train rows is left out, and a warning says so. A fold
forest (RandomForest/ExtraTrees) grows fold_trees trees (fold_params), every other model the main
model's params; "fold_trees" is null when no fold forest was fitted.

Determinism: random_state 42, xgboost's hist method (one thread); the same request gives the same
model bytes. Forests fit on THREADS threads: sklearn draws every tree's seed before the fit, so the
trees do not depend on which thread builds them; p(up) is predicted on row chunks, each summing its
trees in order (see _predict_proba).
"""
import concurrent.futures
import contextlib
import math
import os
import warnings

import numpy as np
import pandas as pd
import sklearn.ensemble
import sklearn.linear_model
import sklearn.tree
import xgboost
from joblib import parallel_backend
from joblib._parallel_backends import ThreadingBackend

import meta_labels
from onnx_export import export_model
from protocol import check_width

SEED = 42
# Mirrors schemas/strategy.ts: Node validates the full schema before sending; these are the
# guards that keep a job that skipped Node's check from asking for threads or a huge model.
SET_BY_US = ("n_jobs", "random_state", "verbosity", "verbose", "nthread", "seed", "eval_metric", "use_label_encoder")
MAX_ESTIMATORS = 500
MAX_DEPTH = 16
MIN_TRAIN_ROWS = 50
# Meta-labels fit on the rule's trades only: a rule that fires seldom still gets a model from this
# many (with a warning under MIN_TRAIN_ROWS), rather than a refused job.
MIN_META_ROWS = 10
MAX_FOLDS = 10
# Threads of a forest's fit: the cores this process may use, at most 4 (the sandbox scales the
# job's CPU-time limit by it). Set by us: model_params.n_jobs is refused.
THREADS = max(1, min(4, len(os.sched_getaffinity(0))))
FORESTS = (sklearn.ensemble.RandomForestClassifier, sklearn.ensemble.ExtraTreesClassifier)
FOREST_TYPES = tuple(f.__name__ for f in FORESTS)
# A fold forest grows an eighth of the main forest's trees, at least FOLD_MIN_TREES: a forest's p(up)
# is the mean of iid trees, so fewer trees are an unbiased, noisier estimate of the same model's, at an
# eighth of the fit and export (issue 34: k fold fits must add at most ~20 % to a train job; a fifth
# added 30-34 % on RandomForest(200), a year of 15-min bars). With
# random_state fixed, sklearn draws the tree seeds in order, so a fold forest of n trees is the first
# n trees of the forest the full params grow. FOLD_MIN_TREES: from 30 trees on, fewer than 1 test bar
# in 1000 gets the opposite side from the 200-tree forest's and ~80 % of its entries are kept (25: 0.23 %
# and 77 %; 10: 1.1 % and 72 %; test/bench/fold-forest-size.py, real EURUSD 15-min 2015-16, 10 folds).
FOLD_TREES_DIVISOR = 8
FOLD_MIN_TREES = 30
SKLEARN_FOREST_TREES = 100  # sklearn's default n_estimators, when model_params omit it

_XGB_DIR = os.path.dirname(os.path.realpath(xgboost.__file__)) + os.sep
_CTYPES_DIR = os.path.dirname(os.path.realpath(__import__("ctypes").__file__)) + os.sep


def _frames():
    # A traceback's frame rather than sys._getframe: that one is itself a refused audit event.
    try:
        raise ZeroDivisionError
    except ZeroDivisionError as e:
        frame = e.__traceback__.tb_frame
    # Skip this helper, xgboost_ctypes_event and the audit hook itself.
    for _ in range(3):
        frame = frame.f_back if frame is not None else None
    while frame is not None:
        yield os.path.realpath(frame.f_code.co_filename)
        frame = frame.f_back


def xgboost_ctypes_event(event):
    """Whether an audit event is xgboost's own use of ctypes (the sandbox lets only these through).

    xgboost drives libxgboost through ctypes: buffers it wraps (ctypes.cdata, cdata/buffer) and
    symbols it looks up (ctypes.dlsym, from ctypes' CDLL.__getattr__). The caller must be xgboost's
    code; strategy code calling ctypes directly stays refused (dlopen is never allowed)."""
    if event not in ("ctypes.cdata", "ctypes.cdata/buffer", "ctypes.dlsym"):
        return False
    for filename in _frames():
        if event == "ctypes.dlsym" and filename.startswith(_CTYPES_DIR):
            continue
        return filename.startswith(_XGB_DIR)
    return False


def _dataframe(header, payload):
    columns = header["columns"]
    rows = int(header["rows"])
    data = np.frombuffer(payload, dtype="<f8").reshape(len(columns), rows)
    frame = {name: data[i].copy() for i, name in enumerate(columns)}
    index = pd.to_datetime(frame.pop("ts").astype("int64"), unit="ms", utc=True)
    return pd.DataFrame(frame, index=index)


def _features(namespace, df):
    """The feature matrix [rows, k] float64 and the names; refuses non-numeric columns by name."""
    before = list(df.columns)
    close = df["close"].to_numpy(copy=True)
    result = namespace["feature_engineering"](df, df["close"], df["open"], df["high"], df["low"])
    if not isinstance(result, pd.DataFrame):
        raise TypeError("feature_engineering must return the DataFrame")
    if len(result) != len(close):
        raise ValueError(f"feature_engineering returned {len(result)} rows for {len(close)} bars; do not drop rows")
    names = [c for c in result.columns if c not in before]
    check_width(len(names), len(result))
    if not names:
        raise ValueError("feature_engineering added no feature columns")
    bad = [f"{c} ({result[c].dtype})" for c in names if not pd.api.types.is_numeric_dtype(result[c])]
    if bad:
        raise TypeError(f"feature columns must be numeric; not numeric: {', '.join(map(str, bad))}")
    X = np.column_stack([result[c].to_numpy(dtype="f8", na_value=np.nan) for c in names])
    return X, [str(c) for c in names], close


def _warmup(X, names, requested):
    nan_rows = np.flatnonzero(np.isnan(X).any(axis=1))
    warmup = int(nan_rows[-1]) + 1 if requested is None and len(nan_rows) else int(requested or 0)
    rest = X[warmup:]
    inf = [names[j] for j in range(X.shape[1]) if np.isinf(rest[:, j]).any()]
    if inf:
        raise ValueError(f"feature columns contain inf after the warm-up: {', '.join(inf)}")
    nan = [names[j] for j in range(X.shape[1]) if np.isnan(rest[:, j]).any()]
    if nan:
        raise ValueError(f"feature columns contain NaN after the warm-up ({warmup} bars): {', '.join(nan)}")
    return warmup


def _check_config(config):
    if not isinstance(config, dict):
        raise TypeError("strategy_config must return a dict")
    params = config.get("model_params") or {}
    if not isinstance(params, dict):
        raise TypeError("model_params must be a dict")
    for key in SET_BY_US:
        if key in params:
            raise ValueError(f"model_params.{key} is set by the trainer; remove it")
    if "n_estimators" in params and not 1 <= int(params["n_estimators"]) <= MAX_ESTIMATORS:
        raise ValueError(f"model_params.n_estimators must be between 1 and {MAX_ESTIMATORS}")
    if "max_depth" in params and (params["max_depth"] is None or not 1 <= int(params["max_depth"]) <= MAX_DEPTH):
        raise ValueError(f"model_params.max_depth must be between 1 and {MAX_DEPTH}")
    h = config.get("target_horizon")
    if not isinstance(h, int) or isinstance(h, bool) or not 1 <= h <= 200:
        raise ValueError("target_horizon must be an integer between 1 and 200")
    return dict(params)


def build_model(model_type, params):
    """The estimator for model_type, with our threads and seed (the user's params otherwise as given)."""
    # Forests fit on THREADS threads, but only inside fit_threads(); _predict_proba resets n_jobs.
    forest = dict(params, n_jobs=THREADS, random_state=SEED)
    # Depth unbounded would grow the ONNX graph and live scoring as 2^depth; the schema refuses
    # None, so an omitted max_depth gets the cap rather than sklearn's unbounded default.
    forest.setdefault("max_depth", MAX_DEPTH)
    if model_type == "RandomForestClassifier":
        return sklearn.ensemble.RandomForestClassifier(**forest)
    if model_type == "ExtraTreesClassifier":
        return sklearn.ensemble.ExtraTreesClassifier(**forest)
    if model_type == "GradientBoostingClassifier":
        return sklearn.ensemble.GradientBoostingClassifier(**dict(params, random_state=SEED))
    if model_type == "AdaBoostClassifier":
        stump = sklearn.tree.DecisionTreeClassifier(max_depth=2, random_state=SEED)
        return sklearn.ensemble.AdaBoostClassifier(**dict({"algorithm": "SAMME"}, **params, estimator=stump, random_state=SEED))
    if model_type == "LogisticRegression":
        return sklearn.linear_model.LogisticRegression(**dict(params, n_jobs=1, random_state=SEED))
    if model_type == "XGBClassifier":
        # n_jobs is xgboost's sklearn name for nthread (passing both makes xgboost warn). One
        # thread: OpenMP in a process forked from a zygote that already ran it is not to be trusted.
        return xgboost.XGBClassifier(**dict(params, n_jobs=1, random_state=SEED, tree_method="hist", eval_metric="logloss", verbosity=0))
    raise ValueError(f"model_type {model_type!r} is not one the trainer supports")


class _ThreadPool:
    """What joblib's threading backend uses of multiprocessing.pool.ThreadPool, on plain threads.

    ThreadPool creates a multiprocessing SimpleQueue: a pipe and a named POSIX semaphore, i.e. a
    file written in /dev/shm, which RLIMIT_FSIZE=0 refuses (EFBIG) and the sandbox should not
    allow anyway. concurrent.futures threads need no file, pipe, process or audit exception."""

    def __init__(self, n_threads):
        self._executor = concurrent.futures.ThreadPoolExecutor(n_threads, thread_name_prefix="fit")

    def apply_async(self, func, callback=None):
        future = self._executor.submit(func)
        if callback is not None:  # as ThreadPool: on success only, with the result
            future.add_done_callback(lambda f: f.exception() is None and callback(f.result()))
        future.get = future.result  # ApplyResult.get(timeout)
        return future

    def close(self):
        pass

    def terminate(self):
        self._executor.shutdown(wait=True, cancel_futures=True)


class _SandboxThreadingBackend(ThreadingBackend):
    """joblib's threading backend (what sklearn's forests ask for) on _ThreadPool; never loky."""

    def effective_n_jobs(self, n_jobs):
        return max(1, min(int(n_jobs or 1), THREADS))

    def _get_pool(self):
        if self._pool is None:
            self._pool = _ThreadPool(self._n_jobs)
        return self._pool


@contextlib.contextmanager
def fit_threads():
    """The trainer's own fit runs inside this: joblib.Parallel calls in this thread use our
    threading backend. Strategy code never runs inside it (features and config come before)."""
    with parallel_backend(_SandboxThreadingBackend(), n_jobs=THREADS):
        yield


def _fit(model, X, y):
    if isinstance(model, FORESTS) and THREADS > 1:
        with fit_threads():
            return model.fit(X, y)
    return model.fit(X, y)


def _predict_proba(model, X):
    """predict_proba, for the forests on THREADS row chunks at once. Each chunk runs the model's
    single-threaded predict_proba, which adds the trees in order: every row's sum is bit for bit
    that of n_jobs=1 (sklearn's threaded predict_proba adds trees in the order threads finish)."""
    if not isinstance(model, FORESTS):
        return model.predict_proba(X)
    model.set_params(n_jobs=1)  # also for feature_importances_, computed after this
    if THREADS == 1 or len(X) < 4096:
        return model.predict_proba(X)
    with concurrent.futures.ThreadPoolExecutor(THREADS, thread_name_prefix="predict") as pool:
        return np.concatenate(list(pool.map(model.predict_proba, np.array_split(X, THREADS))))


def _importance(model, names):
    if hasattr(model, "feature_importances_"):
        values = np.asarray(model.feature_importances_, dtype="f8")
    else:
        # Linear model: |coefficient| share. Scale-dependent, so only comparable across features of similar scale.
        values = np.abs(np.asarray(model.coef_, dtype="f8")).sum(axis=0)
        total = values.sum()
        values = values / total if total > 0 else values
    return {name: (float(v) if math.isfinite(v) else 0.0) for name, v in zip(names, values)}


def _apply_overrides(config, overrides):
    """strategy_config() with the optimiser's model_type / model_params merged over it (its
    indicators are merged already: ops.use_indicators did it before the code ran)."""
    if overrides is None:
        return config
    if not isinstance(overrides, dict) or set(overrides) - {"model_type", "model_params", "indicators"}:
        raise ValueError("overrides may hold only model_type, model_params and indicators")
    if not isinstance(config, dict):
        raise TypeError("strategy_config must return a dict")
    merged = dict(config)
    # Params of another model class would not fit the new one: a changed class takes only the overrides'.
    changed = "model_type" in overrides and overrides["model_type"] != config.get("model_type")
    params = {} if changed else dict(config.get("model_params") or {})
    if not isinstance(overrides.get("model_params", {}), dict):
        raise TypeError("overrides.model_params must be a dict")
    params.update(overrides.get("model_params", {}))
    if changed:
        merged["model_type"] = overrides["model_type"]
    merged["model_params"] = params
    return merged


def fold_trees(n_estimators):
    """Trees of a fold forest for a main forest of n_estimators: an eighth, at least FOLD_MIN_TREES, at most all."""
    return min(n_estimators, max(FOLD_MIN_TREES, n_estimators // FOLD_TREES_DIVISOR))


def fold_params(model_type, params):
    """The fold models' params: a forest's with fold_trees trees, any other model's as they are."""
    if model_type not in FOREST_TYPES:
        return params
    return dict(params, n_estimators=fold_trees(int(params.get("n_estimators", SKLEARN_FOREST_TREES))))


def fold_plan(m, h, k, scheme, embargo):
    """(index, train_from, train_to, test_from, test_to) in labelled-row indices, for k folds over m rows."""
    edges = [m * j // (k + 1) for j in range(k + 2)]
    return [(i, 0 if scheme == "anchored" else edges[i], edges[i + 1], edges[i + 1] + h + embargo, edges[i + 2]) for i in range(k)]


def _check_folds(folds):
    if not isinstance(folds, dict):
        raise TypeError("folds must be an object")
    k, scheme, embargo = folds.get("k"), folds.get("scheme"), folds.get("embargo", 0)
    if not isinstance(k, int) or isinstance(k, bool) or not 2 <= k <= MAX_FOLDS:
        raise ValueError(f"folds.k must be an integer between 2 and {MAX_FOLDS}")
    if scheme not in ("rolling", "anchored"):
        raise ValueError("folds.scheme must be rolling or anchored")
    if not isinstance(embargo, int) or isinstance(embargo, bool) or embargo < 0:
        raise ValueError("folds.embargo must be a non-negative integer")
    return k, scheme, embargo


def _fold_rows(meta, a, b, c, embargo):
    """A fold's train rows (indices into Xw): direction labels, rows a..b-1; meta-labels, the rule
    rows from a on whose label ended `embargo` bars before the fold's test starts at c (the purge
    by each label's end: a rule row in the fixed gap whose trade ended early is kept)."""
    if meta is None:
        return np.arange(a, b)
    r = meta["rows"]
    train, _ = meta_labels.train_test_rows(r, meta["labels"], meta["ends"], c, c, embargo)
    return r[train & (r >= a)]


def _fit_folds(config, params, Xw, y, m, h, warmup, folds, notes, meta=None):
    """The fold models' bars and ONNX bytes (see the module docstring), and the fold forests' trees
    (None: not forests); skipped folds are told in notes. Each model is exported as soon as it is
    fitted: k forests are never held at once. Under meta-labels (meta: rule rows relative to the
    warm-up, their labels and ends) a fold fits on its rule rows only (_fold_rows)."""
    k, scheme, embargo = folds
    params = fold_params(config.get("model_type"), params)
    trees = params["n_estimators"] if config.get("model_type") in FOREST_TYPES else None
    out = []
    for i, a, b, c, d in fold_plan(m, h, k, scheme, embargo):
        rows = _fold_rows(meta, a, b, c, embargo)
        labels = y[rows] if meta is None else meta["labels"][np.searchsorted(meta["rows"], rows)]
        if len(rows) < MIN_TRAIN_ROWS or d - c < 1:
            what = "train rule" if meta is not None else "train"
            notes.append(f"walk-forward fold {i} skipped: {len(rows)} {what} and {max(0, d - c)} test rows (need {MIN_TRAIN_ROWS} and 1); give more bars or fewer folds")
            continue
        if len(np.unique(labels)) < 2:
            notes.append(f"walk-forward fold {i} skipped: its train rows hold only one target class")
            continue
        model = _fit(build_model(config.get("model_type"), params), Xw[rows], labels)
        onnx = export_model(model, Xw.shape[1])
        out.append(({"index": i, "train_from": warmup + a, "train_to": warmup + b, "test_from": warmup + c,
                     "test_to": warmup + d, "onnx_bytes": len(onnx)}, onnx))
    return out, trees


def _meta_rows(config, X, names, ohlc, warmup, fit_rows, h, pip_size):
    """The rule rows of the trained span and their triple-barrier labels (meta_labels.py), indices
    relative to the warm-up like Xw's rows: rows, sides, labels (-1: unknown), ends; both = bars
    where both rules fired (skipped)."""
    o, hi, lo, c = ohlc["open"], ohlc["high"], ohlc["low"], ohlc["close"]
    side, both = meta_labels.rule_sides(config, X, names, c)
    t = np.flatnonzero(side[warmup:fit_rows]) + warmup
    entry = o[np.minimum(t + 1, len(o) - 1)]
    stop, take = meta_labels.stop_take_distances(config, entry, t, hi, lo, c, pip_size)
    labels, ends = meta_labels.triple_barrier(o, hi, lo, c, t, side[t], stop, take, h, fit_rows)
    return {"rows": t - warmup, "sides": side[t].astype(np.int64), "labels": labels, "ends": np.where(ends >= 0, ends - warmup, -1), "both": both}


def run_train(namespace, header, payload):
    config = _apply_overrides(namespace["strategy_config"](), header.get("overrides"))
    params = _check_config(config)
    h = int(config["target_horizon"])
    df = _dataframe(header, payload)
    ts = df.index.asi8 // 1_000_000
    # The prices before the strategy's code sees (and may change) the frame: the labels read them.
    ohlc = {k: df[k].to_numpy(copy=True) for k in ("open", "high", "low", "close")}
    X, names, close = _features(namespace, df)
    warmup = _warmup(X, names, header.get("warmup"))
    fit_rows = int(header.get("fit_rows", len(X)))
    if not warmup < fit_rows <= len(X):
        raise ValueError(f"fit_rows must be within ({warmup}, {len(X)}]")
    n = fit_rows - warmup
    m = n - h
    split = float(header.get("train_split", 0.7))
    if not 0 < split < 1:
        raise ValueError("train_split must be between 0 and 1")
    rows_train = int(m * split)
    rows_test = m - rows_train - h
    if rows_train < MIN_TRAIN_ROWS or rows_test < 1:
        raise ValueError(f"too few bars: {n} after a warm-up of {warmup}, horizon {h}; need {MIN_TRAIN_ROWS} train and 1 test row")
    # Train and score on the float32 values the ONNX graph sees, so Python's p(up) is ONNX's.
    Xw = X[warmup:].astype(np.float32).astype(np.float64)
    cw = close[warmup:]
    y = (cw[h:] > cw[:-h]).astype(np.int64)
    test_from = rows_train + h
    main = not header.get("folds_only", False)
    folds = None if header.get("folds") is None else _check_folds(header["folds"])
    if not main and folds is None:
        raise ValueError("folds_only needs folds")
    meta = None
    if meta_labels.meta_mode(config):
        meta = _meta_rows(config, X, names, ohlc, warmup, fit_rows, h, float(header.get("pip_size", 0.0001)))
        fit_mask, test_mask = meta_labels.train_test_rows(meta["rows"], meta["labels"], meta["ends"], test_from, n)
        fit_x, fit_y = meta["rows"][fit_mask], meta["labels"][fit_mask]
        test_x, test_y = meta["rows"][test_mask], meta["labels"][test_mask]
        if main and len(fit_x) < MIN_META_ROWS:
            raise ValueError(f"the entry rules fire on {len(fit_x)} labelled bars of the training span (need {MIN_META_ROWS}); give more bars or a rule that fires more often")
        if main and len(fit_x) < MIN_TRAIN_ROWS:
            few = f"the entry rules fire on only {len(fit_x)} labelled bars of the training span: the model's P(win) rests on few trades (the results' meta_label says whether it adds anything); give more bars for a sturdier model"
    else:
        fit_x, fit_y = np.arange(rows_train), y[:rows_train]
        test_x, test_y = np.arange(test_from, m), y[test_from:m]
    if main and len(np.unique(fit_y)) < 2:
        what = "trades of the entry rules all win or all lose" if meta is not None else "training rows hold only one target class"
        raise ValueError(f"the {what}; give more bars")

    notes = [] if meta is None or not main or len(fit_x) >= MIN_TRAIN_ROWS else [few]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if main:
            model = build_model(config.get("model_type"), params)
            _fit(model, Xw[fit_x], fit_y)
            proba = np.asarray(_predict_proba(model, Xw), dtype="<f8")[:, -1].copy()
        else:
            model, proba = None, np.full(len(Xw), np.nan, dtype="<f8")
        fold_models, fold_trees = ([], None) if folds is None else _fit_folds(config, params, Xw, y, m, h, warmup, folds, notes, meta)
    onnx = export_model(model, len(names)) if main else b""
    up = proba > 0.5
    split_index = warmup + test_from
    result = {
        "config": config,
        "features": names,
        "warmup": warmup,
        "rows_train": rows_train,
        "rows_test": rows_test,
        "split_index": split_index,
        "test_start_ts": int(ts[split_index]),
        "accuracy_train": float(np.mean(up[fit_x] == fit_y)) if main else None,
        "accuracy_test": float(np.mean(up[test_x] == test_y)) if main and len(test_x) else None,
        "feature_importance": _importance(model, names) if main else {},
        "warnings": notes + sorted({str(w.message)[:300] for w in caught})[:10],
        "onnx_bytes": len(onnx),
        # The model is padded to 8 bytes: Node views p(up) and the matrix in place, without copies.
        "proba_offset": len(onnx) + (-len(onnx)) % 8,
        "proba_rows": len(proba),
        "folds": [fold for fold, _ in fold_models],
        "fold_trees": fold_trees if fold_models else None,
        "meta": None if meta is None else _meta_answer(meta, warmup, test_from, len(fit_x), len(test_x)),
    }
    pad = b"\0" * ((-len(onnx)) % 8)
    matrix = np.ascontiguousarray(X[warmup:], dtype="<f8").tobytes()
    return result, b"".join([onnx, pad, proba.tobytes(), matrix] + [b for _, b in fold_models])


def _meta_answer(meta, warmup, test_from, rows_train, rows_test):
    """The answer's "meta": fitted and test rule rows, those purged (labels ending in the test),
    bars where both rules fired, and every labelled rule row of the test span as [bar, side, label,
    end bar] (Node checks their layout and counts; its report judges the engine's trades instead;
    the train rows stay here, keeping the header small)."""
    known = meta["labels"] >= 0
    purged = known & (meta["rows"] < test_from) & (meta["ends"] >= test_from)
    known &= meta["rows"] >= test_from
    rows = zip(meta["rows"][known] + warmup, meta["sides"][known], meta["labels"][known], meta["ends"][known] + warmup)
    return {"rows_train": rows_train, "rows_test": rows_test, "purged": int(purged.sum()), "both_skipped": meta["both"],
            "labels": [[int(b), int(s), int(l), int(e)] for b, s, l, e in rows]}


def _prewarm():
    """Fits and exports tiny models in the zygote so forks inherit resolved libxgboost symbols and
    loaded sklearn submodules: less work per job, fewer ctypes events under the audit hook."""
    rng = np.random.RandomState(0)
    X = rng.rand(64, 3)
    y = (X[:, 0] > 0.5).astype(np.int64)
    for model_type, params in (("XGBClassifier", {"n_estimators": 2}), ("RandomForestClassifier", {"n_estimators": 2}),
                               ("ExtraTreesClassifier", {"n_estimators": 2}), ("GradientBoostingClassifier", {"n_estimators": 2}),
                               ("AdaBoostClassifier", {"n_estimators": 2}), ("LogisticRegression", {})):
        model = _fit(build_model(model_type, params), X, y)
        _predict_proba(model, X)
        _importance(model, ["a", "b", "c"])
        export_model(model, 3)


_prewarm()
