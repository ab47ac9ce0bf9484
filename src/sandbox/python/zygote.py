"""The zygote: holds the imported libraries, forks one child per job, and never holds a job.

Each child is forked BEFORE its job exists (a spare), confines itself (its own uid, no
capabilities, seccomp: jail.py) and only then reads the job from its pipe. The job's bytes go
from Node to that pipe by splice(2), and the answer from the child's pipe to Node the same way,
so no strategy code, bars or results ever enter this process's memory: a later child, forked from
it, cannot find an earlier job there. A job's stdout and stderr are a pipe of its own, kept the same
way (job_output.py) and sent to Node with its end. When a job ends, every process of its uid is killed.
"""
import fcntl
import os
import select
import signal
import struct
import sys
import termios
import time

import guard
import jail
import ops
from job_clock import JobClock, cpu_used, default_limits
from job_output import JobOutput
from protocol import MAX_CONTROL_BYTES, MAX_REPLY_BYTES, read_message, splice_exact, write_head, write_message

STDIN, STDOUT = 0, 1
PIPE_BYTES = 1 << 20
F_SETPIPE_SZ = 1031


def isolate_stdio(out_fd):
    """A child's stdin and stdout are the zygote's channel to Node, and its stderr goes to the
    operators' log: strategy code must not read requests or write answers there, nor leave its
    output where another job's error or a log line could show it. Its stdout and stderr are
    `out_fd`, the job's own output pipe; stdin reads nothing."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(out_fd, 1)
    os.dup2(out_fd, 2)
    os.close(out_fd)
    # Python's stdout and stderr objects were made for the zygote's descriptors: fresh ones on the
    # job's, line-buffered, so a job's print is in its pipe even when the job ends by a kill.
    sys.stdout = open(1, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)
    sys.stderr = open(2, "w", buffering=1, encoding="utf-8", errors="backslashreplace", closefd=False)


def close_all_but(*keep):
    """Closes every descriptor above stderr except `keep`."""
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass  # the listing's own descriptor, already gone


def wide_pipe():
    r, w = os.pipe()
    try:
        fcntl.fcntl(w, F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass  # the default size works, only slower
    return r, w


class Spare:
    """A child forked ahead of time, waiting for its one job: the fork (milliseconds for a
    process this size) happens while the zygote is idle or another job runs, not on the
    job's path. A spare serves exactly one job under a uid of its own."""

    def __init__(self, uid, walls):
        self.uid = uid
        job_r, self.job_w = wide_pipe()
        self.result_r, result_w = wide_pipe()
        self.output = JobOutput()
        self.pid = os.fork()
        if self.pid == 0:
            try:
                # A session of its own: with the kernel's autogroups, its CPU share can then be set
                # apart from the zygote's (set_job_nice) — before it drops to the job's uid.
                os.setsid()
                isolate_stdio(self.output.w)
                close_all_but(job_r, result_w)  # another job's answer pipe is not ours to hold
                jail.confine(uid, walls)
                header, payload = read_message(job_r)
                os.close(job_r)
                ops.answer(result_w, header.get("id"), lambda: ops.run_job(header, payload, walls))
            finally:
                # Close the answer before exiting: tearing down a large address space takes
                # milliseconds, and the zygote should not wait for it to see the end of the answer.
                try:
                    os.close(result_w)
                except OSError:
                    pass
                os._exit(0)
        os.close(job_r)
        os.close(result_w)
        self.output.close_writer()


def forward(src, dst, n):
    """Splices n bytes from src to dst; on a closed dst, drops the rest through the kernel like the
    job itself (a child that died before reading its job), keeping the stream in step."""
    while n > 0:
        try:
            moved = os.splice(src, dst, min(n, 1 << 20))
        except BrokenPipeError:
            break
        if moved == 0:
            raise EOFError
        n -= moved
    if n > 0:
        scratch_r, scratch_w = os.pipe()
        sink = os.open(os.devnull, os.O_WRONLY)
        try:
            while n > 0:
                moved = os.splice(src, scratch_w, min(n, 65536))
                if moved == 0:
                    raise EOFError
                splice_exact(scratch_r, sink, moved)
                n -= moved
        finally:
            for fd in (scratch_r, scratch_w, sink):
                os.close(fd)


def fionread(fd):
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


def job_clock(pid, control):
    """The job's clock (job_clock.py): its CPU budget, and the wall-clock backstops Node sent."""
    idle_ms, wall_ms = default_limits(control.get("timeout_ms", 30_000))
    return JobClock(pid, guard.cpu_budget_s(control), control.get("idle_ms", idle_ms), control.get("wall_ms", wall_ms))


def relay(control, spare):
    """Passes the child's answer on to Node as it comes, until the child has exited (or closed its
    end) and the pipe is drained, or the job reached a limit of its clock (its CPU budget, or a
    wall-clock backstop). A process the job left holding the pipe does not hold the answer back:
    the job's end is the child's exit. Returns None when the answer was relayed whole, else the
    failure to report."""
    job_id = control["id"]
    clock = job_clock(spare.pid, control)
    fd = spare.result_r
    output = spare.output
    exited = os.pidfd_open(spare.pid)
    sent = 0
    # A child that closed its answer pipe without answering and runs on is still the job: it runs
    # to its exit or its limits, not into an unbounded wait that only the service's watchdog (killing
    # this zygote) would end.
    closed = False
    try:
        check_at = clock.next_check()
        while True:
            watched = [exited] + ([] if closed else [fd]) + ([] if output.ended else [output])
            ready = select.select(watched, [], [], max(0.0, check_at - time.monotonic()))[0]
            if time.monotonic() >= check_at:
                limit = clock.over()
                if limit:
                    return clock.failure(job_id, limit)
                check_at = clock.next_check()
            if output in ready:
                output.drain()  # the job's prints never wait for the zygote
            if fd not in ready and exited not in ready:
                continue
            n = 0 if closed else fionread(fd)
            if n == 0:
                # Nothing left to read, and the child closed its end or is gone: the answer is complete.
                if sent:
                    return None
                if exited in ready:
                    return died(job_id, wait_status(spare.pid, block=True))
                closed = True
                continue
            sent += n
            if sent > MAX_REPLY_BYTES:
                return {"id": job_id, "ok": False, "kind": "error",
                        "error": f"the strategy's answer is larger than {MAX_REPLY_BYTES >> 20} MiB"}
            write_head(STDOUT, {"id": job_id, "relay": True}, n)
            splice_exact(fd, STDOUT, n)
    finally:
        os.close(exited)


def wait_status(pid, block):
    try:
        done, status = os.waitpid(pid, 0 if block else os.WNOHANG)
    except ChildProcessError:
        return 0
    return status if done else None


def died(job_id, status):
    """The failure message for a child that exited without an answer."""
    sig = os.WTERMSIG(status) if status and os.WIFSIGNALED(status) else None
    if sig in (signal.SIGXCPU, signal.SIGKILL):  # RLIMIT_CPU: soft, then hard
        return {"id": job_id, "ok": False, "kind": "timeout", "budget": "cpu", "error": "the strategy used up its CPU time budget"}
    if sig in (signal.SIGSEGV, signal.SIGABRT):
        return {"id": job_id, "ok": False, "kind": "memory", "error": "the strategy crashed (out of memory?)"}
    return {"id": job_id, "ok": False, "kind": "crash", "error": f"the strategy process died ({status})"}


class Children:
    """Job children that answered and are exiting: reaped when they are gone (no <defunct> stays
    next to the zygote), from the SIGCHLD handler while the zygote waits for its next job."""

    def __init__(self):
        self.pids = set()
        signal.signal(signal.SIGCHLD, lambda *_: self.reap())

    def add(self, pid):
        self.pids.add(pid)

    def reap(self):
        for pid in list(self.pids):
            if wait_status(pid, block=False) is not None:
                self.pids.discard(pid)


def set_job_nice(pid, nice):
    """Lowers a job's CPU share where the kernel groups processes by session (autogroups): its
    process niceness (which the job sets itself, guard.py) only ranks it inside its session. The
    job cannot raise it back: its /proc files are not its own (it is not dumpable, and seccomp
    keeps it so) and a lower niceness needs a capability. A no-op without autogroups."""
    if nice <= 0:
        return
    for _ in range(200):  # the spare's first act is setsid(); it was forked long before its job
        try:
            if os.getsid(pid) == pid:
                break
        except ProcessLookupError:
            return
        time.sleep(0.001)
    else:
        return  # never its own session: leave the zygote's group alone
    # The kernel takes one such change per 100 ms machine-wide (EAGAIN otherwise): a penalized
    # user's jobs come back to back, so wait for the next turn rather than skip it.
    for _ in range(10):
        try:
            with open(f"/proc/{pid}/autogroup", "w") as f:
                f.write(str(min(19, nice)))
            return
        except BlockingIOError:
            time.sleep(0.05)
        except OSError:
            return


def serve(walls):
    """The zygote's loop: a control message, the job spliced to the waiting spare, its answer relayed."""
    uids = jail.JobUids()
    children = Children()
    spare = Spare(uids.take(), walls)
    write_message(STDOUT, {"id": 0, "ok": True, "ready": True, "pid": os.getpid()})
    while True:
        try:
            control, _ = read_message(STDIN, max_header=MAX_CONTROL_BYTES)
        except EOFError:
            return
        job_id = control.get("id")
        if control.get("op") == "ping":
            write_message(STDOUT, {"id": job_id, "ok": True})
            continue
        job = spare
        set_job_nice(job.pid, int(control.get("nice", 0)))
        forward(STDIN, job.job_w, int(control["job_bytes"]))
        os.close(job.job_w)
        # The next spare is forked while this job runs (two cores: they overlap).
        spare = Spare(uids.take(), walls)
        failure = relay(control, job)
        # What the job cost, for the runtime's fair queue: its CPU seconds, all its threads (read here,
        # before it is reaped; None when it already was: Node then charges its wall time).
        cpu_s = cpu_used(job.pid)
        os.close(job.result_r)
        if failure is not None and wait_status(job.pid, block=False) is None:
            os.kill(job.pid, signal.SIGKILL)  # timed out or too large (swept below with its uid too)
        # Whatever the job started under its uid ends with it, before Node hears that it ended;
        # the child itself, exiting, is reaped as soon as it is gone (SIGCHLD), not waited for.
        jail.sweep(job.uid, exiting=job.pid)
        children.add(job.pid)
        children.reap()
        # What the job printed, before its end: Node shows it in this job's error, and nowhere else.
        job.output.send(STDOUT, job_id)
        job.output.close()
        write_message(STDOUT, dict(failure or {"id": job_id, "done": True}, **({} if cpu_s is None else {"cpu_s": cpu_s})))
