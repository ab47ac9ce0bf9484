"""What a job child does with its one job: the strategy's module level under the guards, then the
operation asked for, answered as one message on the result pipe.

Ops: features (the code's feature_engineering on the bars), config (strategy_config()), train
(trainer.py), analyze (analysis.py); suggest (optimizer.py: optuna's next trials) runs no strategy
code but the same limits and audit hook.

Indicator values: a request's "indicators" (train: "overrides.indicators"; a feature session: its
"open"), a flat {key: number | bool} Node has checked against the indicator registry, is merged over
strategy_config()["indicators"] for the whole job. The strategy_config in the code's own namespace
is replaced, so feature_engineering's own call of strategy_config() sees the merged values (that is
how a strategy reads its periods), and so does every op that reads the config.
"""
import json
import linecache
import sys
import traceback

import numpy as np
import pandas as pd

import analysis
import guard
import trainer
from protocol import check_width, write_message


def run_features(namespace, header, payload):
    columns = header["columns"]
    rows = int(header["rows"])
    data = np.frombuffer(payload, dtype="<f8").reshape(len(columns), rows)
    frame = {name: data[i].copy() for i, name in enumerate(columns)}
    index = pd.to_datetime(frame.pop("ts").astype("int64"), unit="ms", utc=True)
    df = pd.DataFrame(frame, index=index)
    before = list(df.columns)
    result = namespace["feature_engineering"](df, df["close"], df["open"], df["high"], df["low"])
    if not isinstance(result, pd.DataFrame):
        raise TypeError("feature_engineering must return the DataFrame")
    new = [c for c in result.columns if c not in before]
    check_width(len(new), len(result))
    out = np.empty((len(new), len(result)), dtype="<f8")
    for i, name in enumerate(new):
        out[i] = pd.to_numeric(result[name], errors="coerce").to_numpy(dtype="f8", na_value=np.nan)
    return {"columns": [str(c) for c in new], "rows": len(result)}, out.tobytes()


def run_config(namespace, _header, _payload):
    config = namespace["strategy_config"]()
    if not isinstance(config, dict):
        raise TypeError("strategy_config must return a dict")
    return {"config": json.loads(json.dumps(config, default=str))}, b""


# sandbox_runtime.py adds "suggest" (optimizer.py) in the zygote: feature sessions never load optuna.
OPS = {"features": run_features, "config": run_config, "train": trainer.run_train, "analyze": analysis.run_analyze}
# Ops without strategy code: the child is confined and limited all the same, but execs nothing.
CODELESS = {"suggest"}


def flush_stdio():
    """What the job printed is in its output pipe before its answer leaves (a kill loses nothing
    more than a line: the streams are line-buffered)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:  # noqa: BLE001 — a stream the strategy replaced or closed
            pass


# The user's own frames a failure shows (theirs to see; the runtime's and the libraries' are not).
SHOWN_FRAMES = 5


def strategy_frames(err):
    """The failure's traceback lines in the strategy's own code: "line 12, in feature_engineering: …"."""
    frames = [(f, n) for f, n in traceback.walk_tb(err.__traceback__) if f.f_code.co_filename == "<strategy>"]
    lines = []
    for frame, lineno in frames[-SHOWN_FRAMES:]:
        source = linecache.getline("<strategy>", lineno).strip()[:200]
        lines.append(f"  line {lineno}, in {frame.f_code.co_name}" + (f": {source}" if source else ""))
    return "\n".join(lines)


def answer(fd, job_id, run):
    """Runs `run` (strategy code inside) and writes its result or failure as one message; True on success."""
    try:
        result, data = run()
        flush_stdio()
        write_message(fd, dict(result, id=job_id, ok=True), data)
        return True
    except guard.Refused as e:
        kind, message = "refused", str(e)
    except MemoryError:
        kind, message = "memory", "the strategy ran out of memory"
    except BaseException as e:  # noqa: BLE001 — anything the strategy raises is its result
        message = "".join(traceback.format_exception_only(type(e), e)).strip()[:2000]
        kind = "refused" if "Refused" in message or isinstance(e, PermissionError) else "error"
        try:
            where = strategy_frames(e)
            if where:
                message = f"{message}\n{where}"
        except BaseException:  # noqa: BLE001 — a traceback the strategy tampered with
            pass
    flush_stdio()
    try:
        write_message(fd, {"id": job_id, "ok": False, "kind": kind, "error": message})
    except BaseException:  # noqa: BLE001
        pass
    return False


def indicator_values(header):
    """The indicator values the request sets over the code's own, or None."""
    values = header.get("indicators")
    if values is None and header.get("op") == "train" and isinstance(header.get("overrides"), dict):
        values = header["overrides"].get("indicators")
    if values is None:
        return None
    if not isinstance(values, dict) or not all(
            isinstance(k, str) and isinstance(v, (int, float, bool)) for k, v in values.items()):
        raise TypeError("indicators must be a flat object of numbers and booleans")
    return dict(values)


def use_indicators(namespace, values):
    """Makes the namespace's strategy_config() return its config with `values` merged over its
    "indicators" (a fresh dict each call: the code cannot keep or change ours)."""
    own = namespace.get("strategy_config")
    if values is None or not callable(own):
        return

    def strategy_config():
        config = own()
        if not isinstance(config, dict):
            return config  # refused as ever by whoever reads it
        base = config.get("indicators")
        return dict(config, indicators=dict(base if isinstance(base, dict) else {}, **values))

    namespace["strategy_config"] = strategy_config


def enter_sandbox(header, walls, cpu_hard=None):
    """Limits, audit hook and import guard, then the strategy's module level: its namespace."""
    code = compile(header["code"], "<strategy>", "exec")
    # Its source, for the lines of its own traceback (strategy_frames): this child's memory only.
    linecache.cache["<strategy>"] = (len(header["code"]), None, header["code"].splitlines(True), "<strategy>")
    guard.install_limits(header, cpu_hard)
    if walls.audit:
        guard.install_audit_hook(code)
    namespace = {"__name__": "strategy", "__builtins__": guard.STRATEGY_BUILTINS}
    exec(code, namespace)
    use_indicators(namespace, indicator_values(header))
    return namespace


def run_job(header, payload, walls):
    """The job's answer: (result header, payload)."""
    if header["op"] in CODELESS:
        guard.install_limits(header)
        if walls.audit:
            guard.install_audit_hook(None)
        return OPS[header["op"]]({}, header, payload)
    return OPS[header["op"]](enter_sandbox(header, walls), header, payload)
