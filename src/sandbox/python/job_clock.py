"""A job's clock: its budget is the CPU time it uses, not wall-clock time on a busy host.

A job at a low priority (a user's overrun penalty) on a host busy with other work gets little CPU,
and takes longer in wall time for the same work: it must not fail for that. So the watcher (the
zygote's relay, a session's call) ends a job for one of three things, checked whenever a limit
could have been reached:

- "cpu": the job's CPU time (utime + stime of all its threads, /proc/<pid>/stat) reached its budget
  (guard.cpu_budget_s: the timeout, times the threads a train job's fit may use). RLIMIT_CPU
  (guard.py) is the kernel's backstop a second later. Failure kind "timeout".
- "idle": the job spent idle_ms of wall time neither on a CPU nor waiting for one — sleeping or
  blocked, which no CPU budget catches. Waiting in a run queue (a busy host) does not count: the
  time a job's threads ran or waited to run is read from /proc/<pid>/task/*/schedstat. Node sets
  idle_ms to 4 × the budget + 10 s (src/sandbox/job-clock.ts). Failure kind "timeout".
- "wall": the absolute ceiling, wall_ms (16 × the budget + 60 s): a host so busy that the job could
  not use its budget in that time. Not the job's doing: failure kind "crash", "try again".
"""
import os
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")
# How often the idle time is sampled: its resolution, and the most a check waits.
SAMPLE_S = 1.0


def default_limits(timeout_ms):
    """(idle_ms, wall_ms) when Node did not say (src/sandbox/job-clock.ts is the source)."""
    return 4 * timeout_ms + 10_000, 16 * timeout_ms + 60_000


def cpu_used(pid):
    """CPU seconds the process used, all its threads; None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def threads_busy(pid):
    """Per thread: nanoseconds it ran plus nanoseconds it waited in a run queue."""
    busy = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return busy
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                ran, waited = f.read().split()[:2]
            busy[tid] = int(ran) + int(waited)
        except (OSError, ValueError):
            pass  # exited meanwhile
    return busy


class JobClock:
    def __init__(self, pid, cpu_budget_s, idle_ms, wall_ms):
        self.pid = pid
        self.budget = cpu_budget_s
        self.idle_limit = idle_ms / 1000
        self.wall_limit = wall_ms / 1000
        self.start = self.last = time.monotonic()
        self.cpu0 = cpu_used(pid) or 0.0
        self.used = 0.0
        self.busy = threads_busy(pid)
        self.active = 0.0  # wall time during which some thread of the job ran or waited to run
        self.cpus = max(1, len(os.sched_getaffinity(0)))

    def idle(self, now):
        return max(0.0, (now - self.start) - self.active)

    def over(self):
        """None while the job may run on, else which limit it reached: "cpu", "idle" or "wall"."""
        now = time.monotonic()
        used = cpu_used(self.pid)
        if used is None:
            return None  # gone: its exit is the watcher's to see
        self.used = used - self.cpu0
        busy = threads_busy(self.pid)
        # The run-queue wait of a thread shows once it runs again, so a late figure may cover more
        # than this interval: it is counted, not cut (a starved job is not idle).
        self.active += max([(ns - self.busy.get(tid, 0)) / 1e9 for tid, ns in busy.items()] + [0.0])
        self.busy, self.last = busy, now
        if self.used >= self.budget:
            return "cpu"
        if self.idle(now) >= self.idle_limit:
            return "idle"
        if now - self.start >= self.wall_limit:
            return "wall"
        return None

    def next_check(self):
        """When to check next (monotonic): the earliest a limit could be reached — the CPU budget at
        the speed of every core, the idle limit at wall speed — and at least every SAMPLE_S."""
        now = time.monotonic()
        wait = min((self.budget - self.used) / self.cpus, self.idle_limit - self.idle(now),
                   self.wall_limit - (now - self.start), SAMPLE_S)
        return now + max(0.01, wait)

    def failure(self, job_id, limit):
        """The failure message for the limit reached (see the module's comment)."""
        if limit == "cpu":
            return {"id": job_id, "ok": False, "kind": "timeout", "budget": "cpu",
                    "error": f"the strategy used up its CPU time budget of {self.budget:g} s"}
        if limit == "idle":
            return {"id": job_id, "ok": False, "kind": "timeout", "budget": "idle",
                    "error": f"the strategy spent {self.idle_limit:g} s neither computing nor waiting for a CPU "
                             "(sleeping, or blocked?): that is its wall-clock backstop"}
        return {"id": job_id, "ok": False, "kind": "crash", "budget": "wall",
                "error": f"the host was too busy to run the strategy: it had used {self.used:.1f} s of its "
                         f"{self.budget:g} s CPU budget after {self.wall_limit:g} s; try again later"}
