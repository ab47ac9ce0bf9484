"""The only place strategy code runs.

A zygote: this process imports numpy, pandas, sklearn and xgboost once, then serves jobs read
from stdin. Each job runs in a child forked for it alone (one user's code never shares a process
with another's), under CPU-time, address-space and file-size limits, with an audit hook that
refuses file, socket, process and other dangerous events, and a wall-clock timeout enforced by
the zygote. The Node side starts the zygote inside bubblewrap (no network, read-only file
system, private /tmp, new PID namespace) where available.

`sandbox_runtime.py session`: a feature session, one strategy's long-lived features worker (what a
live actor calls once per bar). Its own bubblewrap process, prepared like a zygote, forks ONE
worker that runs the code under the same limits, audit hook and import guard as a job child,
exec's it once and then serves features calls, staying warm. This process watches each call
(wall clock, CPU time), and replaces a worker that failed a call or ran out of its CPU budget.

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
Session requests: {"id", "op": "open", "code", "timeout_ms", "memory_mb"} once (answer: {"ok"} once
  the worker has run the code's module level), then features requests without code/limits.
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
DEVNULL = os.open(os.devnull, os.O_RDONLY)

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


def cpu_seconds(header):
    """The CPU-time allowance of one job or call: its timeout, on every thread it may use (a train
    job's forest fits on trainer.THREADS). The wall-clock timeout is the bound; this is the backstop."""
    threads = trainer.THREADS if header.get("op") == "train" else 1
    return max(1, int(header.get("timeout_ms", 30_000) / 1000) * threads + 1)


def install_limits(header, cpu_hard=None):
    cpu_s = cpu_seconds(header)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_s, cpu_hard or cpu_s + 1))
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


def answer(out, job_id, run):
    """Runs `run` (strategy code inside) and writes its result or failure as one message; True on success."""
    try:
        result, data = run()
        write_message(out, dict(result, id=job_id, ok=True), data)
        return True
    except Refused as e:
        kind, message = "refused", str(e)
    except MemoryError:
        kind, message = "memory", "the strategy ran out of memory"
    except BaseException as e:  # noqa: BLE001 — anything the strategy raises is its result
        message = "".join(traceback.format_exception_only(type(e), e)).strip()[:2000]
        kind = "refused" if "Refused" in message or isinstance(e, PermissionError) else "error"
    try:
        write_message(out, {"id": job_id, "ok": False, "kind": kind, "error": message})
    except BaseException:  # noqa: BLE001
        pass
    return False


def enter_sandbox(header, cpu_hard=None):
    """Limits, audit hook and import guard, then the strategy's module level: its namespace."""
    code = compile(header["code"], "<strategy>", "exec")
    install_limits(header, cpu_hard)
    install_audit_hook(code)
    namespace = {"__name__": "strategy", "__builtins__": STRATEGY_BUILTINS}
    exec(code, namespace)
    return namespace


def child(header, payload, out_fd):
    out = os.fdopen(out_fd, "wb")
    try:
        answer(out, header["id"], lambda: OPS[header["op"]](enter_sandbox(header), header, payload))
    finally:
        # Close the answer before exiting: tearing down a large address space takes milliseconds,
        # and the zygote should not wait for it to see the end of the answer.
        try:
            out.close()
        except BaseException:  # noqa: BLE001
            pass
        os._exit(0)


def isolate_stdio():
    """A child's stdin and stdout are the zygote's channel to Node: strategy code must not read
    requests or write answers there (a print() would corrupt the stream). stdout goes to stderr."""
    os.dup2(DEVNULL, 0)
    os.dup2(2, 1)


def read_fd_exact(fd, n, deadline=None):
    """n bytes from fd; EOFError when it closes first, TimeoutError past the deadline (monotonic)."""
    data = b""
    while len(data) < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(n - len(data), 1 << 20))
        if not chunk:
            raise EOFError
        data += chunk
    return data


def read_fd_message(fd, deadline=None):
    """One message from fd: (header, payload). ValueError when the header is not JSON."""
    (n,) = struct.unpack("<I", read_fd_exact(fd, 4, deadline))
    header = json.loads(read_fd_exact(fd, n, deadline))
    if not isinstance(header, dict):
        raise ValueError("header is not an object")
    payload = b""
    if header.get("payload_bytes", 0) > 0:
        (m,) = struct.unpack("<I", read_fd_exact(fd, 4, deadline))
        payload = read_fd_exact(fd, m, deadline)
    return header, payload


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
            isolate_stdio()
            try:
                header, payload = read_fd_message(job_r)
            except BaseException:  # noqa: BLE001 — the zygote went away: nothing to do
                os._exit(0)
            os.close(job_r)
            child(header, payload, result_w)
        os.close(job_r)
        os.close(result_w)

    def hand(self, header, payload):
        with os.fdopen(self.job_w, "wb") as w:
            write_message(w, header, payload)


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
        return timeout_failure(header["id"], header.get("timeout_ms", 30_000)), b""
    if answer:
        # The answer is a complete framed message: hand it on; the child is reaped later.
        zombies.append(pid)
        return None, answer
    return died(header["id"], os.waitpid(pid, 0)[1]), b""


def died(job_id, status):
    """The failure message for a child that exited without an answer."""
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if sig in (signal.SIGXCPU, signal.SIGKILL):
        return {"id": job_id, "ok": False, "kind": "timeout", "error": "the strategy used up its CPU time"}
    if sig in (signal.SIGSEGV, signal.SIGABRT):
        return {"id": job_id, "ok": False, "kind": "memory", "error": "the strategy crashed (out of memory?)"}
    return {"id": job_id, "ok": False, "kind": "crash", "error": f"the strategy process died ({status})"}


def timeout_failure(job_id, timeout_ms):
    return {"id": job_id, "ok": False, "kind": "timeout", "error": f"the strategy ran longer than {timeout_ms} ms"}


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


# -- feature sessions -------------------------------------------------------------------------

SESSION_CPU_S = 600  # CPU seconds one session worker may use in all; then a fresh one takes over
CLK_TCK = os.sysconf("SC_CLK_TCK")


def serve_session(opening, job_r, out, cpu_hard):
    """A session worker: exec's the code once under a job child's limits, audit hook and import
    guard, answers "ready", then serves features calls until one fails (its state is not trusted
    after a refusal or a MemoryError: it exits, and the session forks a fresh worker)."""
    holder = {}

    def enter():
        holder["namespace"] = enter_sandbox(opening, cpu_hard)
        return {"ready": True}, b""

    ok = answer(out, opening["id"], enter)
    while ok:
        try:
            header, payload = read_fd_message(job_r)
        except BaseException:  # noqa: BLE001 — the session process went away
            break
        ok = answer(out, header["id"], lambda: run_features(holder["namespace"], header, payload))
    out.close()
    os._exit(0)


class Session:
    """One strategy's features worker, and its supervision: the wall-clock timeout of each call,
    the CPU-time soft limit moved before each call, a fresh worker after a failure."""

    def __init__(self, opening):
        self.opening = opening
        self.timeout_ms = opening.get("timeout_ms", 30_000)
        self.cpu_s = cpu_seconds(opening)
        self.pid = None  # the worker's, while one runs

    def start(self):
        """Forks a fresh worker; None once it has run the code's module level, else the failure."""
        job_r, self.job_w = os.pipe()
        self.result_r, result_w = os.pipe()
        try:
            self.pid = os.fork()
        except OSError:
            for fd in (job_r, self.job_w, self.result_r, result_w):
                os.close(fd)
            raise
        if self.pid == 0:
            os.close(self.job_w)
            os.close(self.result_r)
            isolate_stdio()
            serve_session(self.opening, job_r, os.fdopen(result_w, "wb"), self.cpu_s + SESSION_CPU_S)
        os.close(job_r)
        os.close(result_w)
        ready, _ = self.exchange(None, b"")
        return None if ready.get("ok") else ready

    def end(self, how):
        """Closes the worker's pipes. how: "kill" (returns the wait status), "later" (it is exiting
        by itself; reaped later) or "reaped"."""
        pid, self.pid = self.pid, None
        os.close(self.job_w)
        os.close(self.result_r)
        if how == "later":
            zombies.append(pid)
        elif how == "kill":
            os.kill(pid, signal.SIGKILL)
            return os.waitpid(pid, 0)[1]
        return None

    def exchange(self, header, payload):
        """Sends one request (None: none, the "ready" is due) and reads the answer in the call's time."""
        deadline = time.monotonic() + self.timeout_ms / 1000
        try:
            if header is not None:
                with os.fdopen(os.dup(self.job_w), "wb") as w:
                    write_message(w, header, payload)
            result, data = read_fd_message(self.result_r, deadline)
        except TimeoutError:
            self.end("kill")
            return timeout_failure(None, self.timeout_ms), b""
        except (EOFError, OSError):  # it died
            return died(None, self.end("kill")), b""
        except (ValueError, struct.error):  # it wrote something else than a message
            self.end("kill")
            return {"ok": False, "kind": "crash", "error": "the strategy process wrote a malformed answer"}, b""
        if not result.get("ok"):
            self.end("later")
        return result, data

    def features(self, header, payload):
        if self.pid is not None and os.waitpid(self.pid, os.WNOHANG)[0]:
            self.end("reaped")  # died between calls (e.g. a thread it left behind used up its CPU time)
        if self.pid is not None:
            with open(f"/proc/{self.pid}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
            used = (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime + stime
            if used + self.cpu_s + 1 > self.cpu_s + SESSION_CPU_S:
                self.end("kill")  # its CPU budget is spent: a fresh worker takes over
        if self.pid is None:
            failure = self.start()
            if failure:
                return failure, b""
            used = 0
        # This call's CPU time: the soft limit (SIGXCPU) moves to what the worker used so far plus
        # the call's allowance; the hard limit stays its lifetime budget.
        resource.prlimit(self.pid, resource.RLIMIT_CPU, (int(used) + self.cpu_s + 1, self.cpu_s + SESSION_CPU_S))
        return self.exchange(header, payload)


def session_main():
    warm_up()
    gc.freeze()
    write_message(STDOUT, {"id": 0, "ok": True, "ready": True, "pid": os.getpid()})
    session = None
    while True:
        try:
            header = json.loads(read_frame())
            payload = read_frame() if header.get("payload_bytes", 0) > 0 else b""
        except EOFError:
            return
        reap()
        op = header.get("op")
        try:
            if op == "open" and session is None:
                session = Session({k: header[k] for k in ("id", "code", "timeout_ms", "memory_mb") if k in header})
                result, data = session.start() or {"ok": True}, b""
            elif op == "features" and session is not None:
                result, data = session.features(header, payload)
            else:
                result, data = {"ok": False, "kind": "error", "error": f"a session does not serve {op}"}, b""
        except OSError as e:  # e.g. fork failed: this call fails, the next one tries again
            result, data = {"ok": False, "kind": "crash", "error": f"the session could not run the call: {e}"}, b""
        # Relayed under the request's id, whatever id the worker wrote.
        write_message(STDOUT, dict(result, id=header.get("id")), data)
        if op == "features" and session is not None and session.pid is None:
            try:  # replace a failed worker while Node has the answer (a failure shows on the next call)
                session.start()
            except OSError:
                pass


if __name__ == "__main__":
    session_main() if sys.argv[1:] == ["session"] else main()
