"""`sandbox_runtime.py session`: a feature session, one strategy's long-lived features worker (what a
live actor calls once per bar). Its own sandbox process, prepared like a zygote, forks ONE worker
that confines itself like a job child (its own uid, seccomp: jail.py), runs the code under the same
limits, audit hook and import guard, exec's it once and then serves features calls, staying warm.
This process holds that one strategy's code (to re-open a replaced worker) and nothing of any other;
it watches each call (its CPU time, and the wall-clock backstops: job_clock.py) and replaces a worker that failed a call or ran out
of its CPU budget, sweeping the old worker's uid.

Requests: {"id", "op": "open", "code", "indicators"?, "timeout_ms", "memory_mb", "idle_ms", "wall_ms"} once (answer: {"ok"} once the
worker has run the code's module level), then {"id", "op": "features", "columns", "rows"} + payload.
"""
import os
import resource
import select
import signal
import struct
import time

import guard
import jail
import ops
from job_output import JobOutput
from protocol import MAX_CONTROL_BYTES, MAX_REPLY_BYTES, MessageTooLarge, read_message, write_message
from zygote import close_all_but, died, isolate_stdio, job_clock, wide_pipe

SESSION_CPU_S = 600  # CPU seconds one session worker may use in all; then a fresh one takes over
CLK_TCK = os.sysconf("SC_CLK_TCK")
STDIN, STDOUT = 0, 1


def serve_worker(opening, job_r, out_fd, cpu_hard, walls):
    """A session worker: exec's the code once, answers "ready", then serves features calls until one
    fails (its state is not trusted after a refusal or a MemoryError: it exits, and the session
    forks a fresh worker)."""
    holder = {}

    def enter():
        holder["namespace"] = ops.enter_sandbox(opening, walls, cpu_hard)
        return {"ready": True}, b""

    ok = ops.answer(out_fd, opening["id"], enter)
    while ok:
        try:
            header, payload = read_message(job_r)
        except BaseException:  # noqa: BLE001 — the session process went away
            break
        ok = ops.answer(out_fd, header["id"], lambda: ops.run_features(holder["namespace"], header, payload))
    os.close(out_fd)
    os._exit(0)


class Session:
    """One strategy's features worker, and its supervision: each call's clock (its CPU budget and
    wall-clock backstops), the CPU-time soft limit moved before each call, a fresh worker after a
    failure."""

    def __init__(self, opening, walls):
        self.opening = opening
        self.walls = walls
        self.cpu_s = guard.cpu_seconds(opening)
        self.uids = jail.JobUids()
        self.pid = None  # the worker's, while one runs
        self.uid = None
        self.output = None  # the worker's stdout and stderr (job_output.py), kept until the call's answer

    def start(self):
        """Forks a fresh worker; None once it has run the code's module level, else the failure."""
        job_r, self.job_w = wide_pipe()
        self.result_r, result_w = wide_pipe()
        self.uid = self.uids.take()
        output = JobOutput()
        try:
            self.pid = os.fork()
        except OSError:
            for fd in (job_r, self.job_w, self.result_r, result_w, output.w):
                os.close(fd)
            output.close()
            raise
        if self.pid == 0:
            try:
                isolate_stdio(output.w)
                close_all_but(job_r, result_w)
                jail.confine(self.uid, self.walls)
                serve_worker(self.opening, job_r, result_w, self.cpu_s + SESSION_CPU_S, self.walls)
            finally:
                os._exit(0)
        os.close(job_r)
        os.close(result_w)
        output.close_writer()
        if self.output is not None:
            self.output.close()  # the last worker's, sent with its last answer
        self.output = output
        ready, _ = self.exchange(None, b"")
        return None if ready.get("ok") else ready

    def end(self, how):
        """Closes the worker's pipes and ends its processes. how: "kill" (returns the wait status),
        "later" (it is exiting by itself; collected now or by the sweep) or "reaped"."""
        pid, uid, self.pid = self.pid, self.uid, None
        os.close(self.job_w)
        os.close(self.result_r)
        status = None
        if how == "kill":
            os.kill(pid, signal.SIGKILL)
            status = os.waitpid(pid, 0)[1]
        jail.sweep(uid)
        if how == "later":
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass
        return status

    def exchange(self, header, payload):
        """Sends one request (None: none, the "ready" is due) and reads the answer within the call's clock."""
        clock = job_clock(self.pid, self.opening)
        try:
            if header is not None:
                write_message(self.job_w, header, payload)
            limit = self.await_answer(clock)
            if limit:
                self.end("kill")
                return clock.failure(None, limit), b""
            # Bounded like the zygote's relay: the worker runs the user's code, so what it announces
            # is not trusted to be a size this process should buffer.
            deadline = clock.start + clock.wall_limit
            result, data = read_message(self.result_r, deadline, MAX_CONTROL_BYTES, MAX_REPLY_BYTES)
        except MessageTooLarge as err:
            self.end("kill")
            return {"ok": False, "kind": "error",
                    "error": f"the strategy's answer is too large ({err}; the limit is {MAX_REPLY_BYTES >> 20} MiB)"}, b""
        except TimeoutError:  # an answer begun and never finished
            self.end("kill")
            return clock.failure(None, "wall"), b""
        except (EOFError, OSError):  # it died
            return died(None, self.end("kill")), b""
        except (ValueError, struct.error, RecursionError):  # not a message (or nested past what json takes)
            self.end("kill")
            return {"ok": False, "kind": "crash", "error": "the strategy process wrote a malformed answer"}, b""
        if not result.get("ok"):
            self.end("later")
        return result, data

    def await_answer(self, clock):
        """Waits for the answer to start, draining what the worker prints meanwhile (a print never
        waits for this process). None when it starts (or the worker is gone), else the limit reached."""
        check_at = clock.next_check()
        while True:
            watched = [self.result_r] if self.output.ended else [self.result_r, self.output]
            ready = select.select(watched, [], [], max(0.0, check_at - time.monotonic()))[0]
            if time.monotonic() >= check_at:
                limit = clock.over()
                if limit:
                    return limit
                check_at = clock.next_check()
            if self.output in ready:
                self.output.drain()
            if self.result_r in ready:
                return None

    def send_output(self, call_id):
        """The worker's output since the last call's answer, to Node (shown in this call's error only)."""
        if self.output is not None:
            self.output.send(STDOUT, call_id)
            self.output.restart()

    def features(self, header, payload):
        if self.pid is not None and os.waitpid(self.pid, os.WNOHANG)[0]:
            self.end("reaped")  # died between calls (e.g. a thread it left behind used up its CPU time)
        used = 0
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


def serve(walls):
    write_message(STDOUT, {"id": 0, "ok": True, "ready": True, "pid": os.getpid()})
    session = None
    while True:
        try:
            header, payload = read_message(STDIN)
        except EOFError:
            return
        op = header.get("op")
        try:
            if op == "open" and session is None:
                opening = {k: header[k] for k in ("id", "code", "indicators", "timeout_ms", "memory_mb", "idle_ms", "wall_ms") if k in header}
                session = Session(opening, walls)
                result, data = session.start() or {"ok": True}, b""
            elif op == "features" and session is not None:
                result, data = session.features(header, payload)
            else:
                result, data = {"ok": False, "kind": "error", "error": f"a session does not serve {op}"}, b""
        except OSError as e:  # e.g. fork failed: this call fails, the next one tries again
            result, data = {"ok": False, "kind": "crash", "error": f"the session could not run the call: {e}"}, b""
        if session is not None:
            session.send_output(header.get("id"))
        # Relayed under the request's id, whatever id the worker wrote.
        write_message(STDOUT, dict(result, id=header.get("id")), data)
        if op == "features" and session is not None and session.pid is None:
            try:  # replace a failed worker while Node has the answer (a failure shows on the next call)
                session.start()
            except OSError:
                pass
