"""The only place strategy code runs: `sandbox_runtime.py [session] [--no-uid] [--no-seccomp] [--no-audit]`.

A zygote (zygote.py) or a feature session (session.py): this process imports numpy, pandas, sklearn
and xgboost once and warms them up, then serves requests on stdin/stdout (protocol.py). Strategy
code runs only in children forked from it, each confined before it reads anything (jail.py: its
own uid, no capabilities, no new privileges, seccomp), under CPU-time, address-space and
file-size limits, with an audit hook and an import guard (guard.py) as friendly early errors.
The Node side (src/sandbox/jail-command.ts) starts this process inside bubblewrap in a user
namespace of its own: an unprivileged uid on the host, no network, /usr read-only, a private /tmp,
its own PID namespace.

The --no-* flags switch one wall off; only tests use them, to prove that the others hold alone.
"""
import gc
import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

# -I leaves the script's folder off sys.path; every module a child needs is imported here, before
# any fork (a confined child may not open files under /sandbox).
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import numpy as np  # noqa: E402  (imported once, shared by every forked child)
import pandas as pd  # noqa: E402
import sklearn.ensemble  # noqa: E402,F401
import sklearn.linear_model  # noqa: E402,F401
import xgboost  # noqa: E402,F401

import jail  # noqa: E402
import ops  # noqa: E402
import session  # noqa: E402
import zygote  # noqa: E402


def warm_up():
    """Runs the pandas operations strategies use once, here: their lazy imports and caches are then
    inherited by every fork instead of being paid again by each job."""
    n = 300
    close = pd.Series(np.linspace(1.0, 1.1, n))
    df = pd.DataFrame({"open": close, "high": close + 0.001, "low": close - 0.001, "close": close},
                      index=pd.to_datetime(np.arange(n, dtype="int64") * 900_000, unit="ms", utc=True))
    delta = close.diff()
    df["a"] = close.rolling(20).mean() + close.rolling(20).std() + close.ewm(span=12, adjust=False).mean()
    df["b"] = delta.clip(lower=0).ewm(alpha=1 / 14, adjust=False).mean() + close.pct_change() + close.shift(1)
    df["c"] = np.where(close > close.rolling(5).max(), 1.0, 0.0) + close.rolling(5).min() + close.expanding().mean()
    df["d"] = df.index.hour + df.index.dayofweek
    df = df.bfill().ffill()
    for name in ("a", "b", "c", "d"):
        pd.to_numeric(df[name], errors="coerce").to_numpy(dtype="f8", na_value=np.nan)
    json.dumps({"x": 1})
    jail.warm_up()


def main():
    walls = jail.Walls(sys.argv)
    is_session = "session" in sys.argv[1:]
    if not is_session:
        # optuna for the `suggest` op: imported and warmed here, before any fork, like trainer.py
        # (a confined child may load nothing more); a feature session never suggests.
        import optimizer

        optimizer.warm_up()
        ops.OPS["suggest"] = optimizer.run_suggest
    warm_up()
    # Objects alive now are never collected: forks then share their pages instead of copying
    # them when the collector would touch them.
    gc.freeze()
    (session.serve if is_session else zygote.serve)(walls)


if __name__ == "__main__":
    main()
