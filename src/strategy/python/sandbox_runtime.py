"""The only place strategy code runs.

A zygote: this process imports numpy, pandas, sklearn and xgboost once, then serves jobs read
from stdin. Each job runs in a child forked for it alone (one user's code never shares a process
with another's), under CPU-time, address-space and file-size limits, with an audit hook that
refuses file, socket, process and other dangerous events, and a wall-clock timeout enforced by
the zygote. The Node side starts the zygote inside bubblewrap (no network, read-only file
system, private /tmp, new PID namespace) where available.

Protocol (stdin → stdout), every message is one or two frames:
  frame   = uint32 little-endian length N, then N bytes
  message = a JSON header frame; if header["payload_bytes"] > 0, a raw payload frame follows
Requests:
  {"id", "op": "ping"}
  {"id", "op": "features", "code", "columns": [...], "rows": n, "timeout_ms", "memory_mb"}
      payload: float64 little-endian, column-major, len(columns) * rows; columns must include
      ts (epoch ms), open, high, low, close
  {"id", "op": "config", "code", "timeout_ms", "memory_mb"}
  {"id", "op": "train", "code", "columns", "rows", "train_split"?, "warmup"?, ...}: see trainer.py
Responses:
  {"id", "ok": true, ...result, "payload_bytes"} [payload]
  {"id", "ok": false, "kind": "refused" | "timeout" | "memory" | "crash" | "error", "error": str}
  features result: {"columns": [new feature columns], "rows": n}, payload float64 column-major
  config result:   {"config": {...}}
"""
import builtins
import gc
import json
import os
import resource
import select
import signal
import struct
import sys
import time
import traceback

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402  (imported once, shared by every forked child)
import pandas as pd  # noqa: E402
import sklearn.ensemble  # noqa: E402,F401
import sklearn.linear_model  # noqa: E402,F401
import xgboost  # noqa: E402,F401

# -I leaves the script's folder off sys.path; the trainer must be imported here, before any fork.
sys.path.insert(0, os.path.dirname(os.path.realpath(__file__)))
import trainer  # noqa: E402
import analysis  # noqa: E402  (the analyze job; loaded before any fork like the trainer)

STDIN = sys.stdin.buffer
STDOUT = sys.stdout.buffer

# Library code may read its own files (lazy submodule imports); nothing else may be opened.
READABLE_ROOTS = tuple(
    os.path.realpath(p)
    for p in {os.path.dirname(os.__file__), os.path.dirname(np.__file__), os.path.dirname(os.path.dirname(pd.__file__))}
) + ("/usr/lib/python3", "/usr/lib/python3.11", "/usr/local/lib/python3")

REFUSED_EVENTS = (
    "socket.", "subprocess.", "os.system", "os.exec", "os.spawn", "os.posix_spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "pty.", "ctypes.", "os.remove", "os.unlink", "os.rename", "os.rmdir", "os.mkdir",
    "os.chmod", "os.chown", "os.truncate", "os.link", "os.symlink", "os.chdir", "os.putenv", "os.unsetenv",
    "shutil.", "webbrowser.", "urllib.", "http.", "ftplib.", "smtplib.", "imaplib.", "poplib.", "telnetlib.",
    "marshal.load", "pickle.find_class", "sys.addaudithook", "sys._getframe", "sys.setprofile", "sys.settrace",
    "builtins.input", "mmap.", "fcntl.", "resource.setrlimit", "signal.", "os.setuid", "os.setgid",
)


class Refused(Exception):
    """An audit event the sandbox does not allow."""


def read_exact(n):
    data = b""
    while len(data) < n:
        chunk = STDIN.read(n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_frame():
    (n,) = struct.unpack("<I", read_exact(4))
    return read_exact(n)


def write_message(out, header, payload=b""):
    header = dict(header, payload_bytes=len(payload))
    raw = json.dumps(header, allow_nan=False).encode()
    out.write(struct.pack("<I", len(raw)) + raw)
    if payload:
        out.write(struct.pack("<I", len(payload)) + payload)
    out.flush()


def install_limits(header):
    cpu_s = max(1, int(header.get("timeout_ms", 30_000) / 1000) + 1)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_s + 1))
    # Address space: what the zygote already maps (the libraries) plus the job's allowance.
    with open("/proc/self/status") as f:
        vm = next(int(line.split()[1]) for line in f if line.startswith("VmSize:")) * 1024
    limit = vm + int(header.get("memory_mb", 1024)) * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def install_audit_hook(allowed_code):
    def hook(event, args):
        if event == "exec":
            if args and args[0] is allowed_code:
                return
            raise Refused("exec is not allowed")
        if event == "open":
            path, mode = args[0], args[1]
            if isinstance(path, int):
                raise Refused("opening file descriptors is not allowed")
            if mode is not None and any(c in str(mode) for c in "wax+"):
                raise Refused(f"writing files is not allowed ({path})")
            real = os.path.realpath(os.fsdecode(path))
            if not real.startswith(READABLE_ROOTS):
                raise Refused(f"reading {path} is not allowed")
            return
        if event.startswith("ctypes.") and trainer.xgboost_ctypes_event(event):
            return  # xgboost's own buffers and symbols, not strategy code
        if event.startswith(REFUSED_EVENTS):
            raise Refused(f"{event} is not allowed")

    sys.addaudithook(hook)


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
    out = np.empty((len(new), len(result)), dtype="<f8")
    for i, name in enumerate(new):
        out[i] = pd.to_numeric(result[name], errors="coerce").to_numpy(dtype="f8", na_value=np.nan)
    return {"columns": [str(c) for c in new], "rows": len(result)}, out.tobytes()


def run_config(namespace, _header, _payload):
    config = namespace["strategy_config"]()
    if not isinstance(config, dict):
        raise TypeError("strategy_config must return a dict")
    return {"config": json.loads(json.dumps(config, default=str))}, b""


ALLOWED_IMPORTS = ("numpy", "pandas", "sklearn")
_real_import = builtins.__import__


def _strategy_import(name, globals=None, locals=None, fromlist=(), level=0):
    """Strategy code may import only what the contract allows, here as in the static check:
    the libraries this zygote holds for the trainer (xgboost and its ctypes use) stay out of reach."""
    if level != 0 or name.split(".")[0] not in ALLOWED_IMPORTS:
        raise Refused(f"import of {name} is not allowed: only numpy, pandas and sklearn")
    return _real_import(name, globals, locals, fromlist, level)


STRATEGY_BUILTINS = dict(vars(builtins), __import__=_strategy_import)

OPS = {"features": run_features, "config": run_config, "train": trainer.run_train, "analyze": analysis.run_analyze}


def child(header, payload, out_fd):
    out = os.fdopen(out_fd, "wb")
    try:
        code = compile(header["code"], "<strategy>", "exec")
        install_limits(header)
        install_audit_hook(code)
        namespace = {"__name__": "strategy", "__builtins__": STRATEGY_BUILTINS}
        exec(code, namespace)
        result, data = OPS[header["op"]](namespace, header, payload)
        write_message(out, dict(result, id=header["id"], ok=True), data)
    except Refused as e:
        write_message(out, {"id": header["id"], "ok": False, "kind": "refused", "error": str(e)})
    except MemoryError:
        write_message(out, {"id": header["id"], "ok": False, "kind": "memory", "error": "the strategy ran out of memory"})
    except BaseException as e:  # noqa: BLE001 — anything the strategy raises is its result
        message = "".join(traceback.format_exception_only(type(e), e)).strip()
        kind = "refused" if "Refused" in message or isinstance(e, PermissionError) else "error"
        try:
            write_message(out, {"id": header["id"], "ok": False, "kind": kind, "error": message[:2000]})
        except BaseException:  # noqa: BLE001
            pass
    finally:
        # Close the answer before exiting: tearing down a large address space takes milliseconds,
        # and the zygote should not wait for it to see the end of the answer.
        try:
            out.close()
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)


def read_fd_exact(fd, n):
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            raise EOFError
        data += chunk
    return data


class Spare:
    """A child forked ahead of time, waiting for its one job: the fork (milliseconds for a
    process this size) happens while the zygote is idle or another job runs, not on the
    job's path. A spare serves exactly one job, so jobs still never share a process."""

    def __init__(self, inherited=()):
        job_r, self.job_w = os.pipe()
        self.result_r, result_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.job_w)
            os.close(self.result_r)
            for fd in inherited:  # another job's answer pipe: not ours to hold
                os.close(fd)
            try:
                (n,) = struct.unpack("<I", read_fd_exact(job_r, 4))
                header = json.loads(read_fd_exact(job_r, n))
                payload = b""
                if header.get("payload_bytes", 0) > 0:
                    (m,) = struct.unpack("<I", read_fd_exact(job_r, 4))
                    payload = read_fd_exact(job_r, m)
            except BaseException:  # noqa: BLE001 — the zygote went away: nothing to do
                os._exit(0)
            os.close(job_r)
            child(header, payload, result_w)
        os.close(job_r)
        os.close(result_w)

    def hand(self, header, payload):
        raw = json.dumps(dict(header, payload_bytes=len(payload))).encode()
        with os.fdopen(self.job_w, "wb") as w:
            w.write(struct.pack("<I", len(raw)) + raw)
            if payload:
                w.write(struct.pack("<I", len(payload)) + payload)


zombies = []


def reap():
    """Collects children that finished after their answer was read."""
    for pid in list(zombies):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            done = pid
        if done:
            zombies.remove(pid)


def collect(header, spare):
    """Reads the answer of the job handed to `spare`, until the wall-clock deadline."""
    read_fd, pid = spare.result_r, spare.pid
    deadline = time.monotonic() + header.get("timeout_ms", 30_000) / 1000
    chunks = []
    timed_out = False
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            timed_out = True
            break
        ready, _, _ = select.select([read_fd], [], [], left)
        if not ready:
            continue
        chunk = os.read(read_fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    os.close(read_fd)
    answer = b"".join(chunks)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        return {"id": header["id"], "ok": False, "kind": "timeout", "error": f"the strategy ran longer than {header.get('timeout_ms', 30_000)} ms"}, b""
    if answer:
        # The answer is a complete framed message: hand it on; the child is reaped later.
        zombies.append(pid)
        return None, answer
    _, status = os.waitpid(pid, 0)
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if sig in (signal.SIGXCPU, signal.SIGKILL):
        return {"id": header["id"], "ok": False, "kind": "timeout", "error": "the strategy used up its CPU time"}, b""
    if sig in (signal.SIGSEGV, signal.SIGABRT):
        return {"id": header["id"], "ok": False, "kind": "memory", "error": "the strategy crashed (out of memory?)"}, b""
    return {"id": header["id"], "ok": False, "kind": "crash", "error": f"the strategy process died ({status})"}, b""


def warm_up():
    """Runs the pandas operations strategies use once, in the zygote: their lazy imports and
    caches are then inherited by every fork instead of being paid again by each job."""
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


def main():
    warm_up()
    # Objects alive now are never collected: forks then share their pages instead of copying
    # them when the collector would touch them.
    gc.freeze()
    spare = Spare()
    write_message(STDOUT, {"id": 0, "ok": True, "ready": True, "pid": os.getpid()})
    while True:
        try:
            header = json.loads(read_frame())
            payload = read_frame() if header.get("payload_bytes", 0) > 0 else b""
        except EOFError:
            return
        if header.get("op") == "ping":
            write_message(STDOUT, {"id": header["id"], "ok": True})
            continue
        if header.get("op") not in OPS:
            write_message(STDOUT, {"id": header.get("id"), "ok": False, "kind": "error", "error": "unknown op"})
            continue
        reap()
        job_spare = spare
        job_spare.hand(header, payload)
        # The next spare is forked while this job runs (two cores: they overlap).
        spare = Spare(inherited=(job_spare.result_r,))
        result, raw = collect(header, job_spare)
        if result is None:
            STDOUT.write(raw)
            STDOUT.flush()
        else:
            write_message(STDOUT, result, raw)


if __name__ == "__main__":
    main()
