"""The kernel-enforced walls around a process about to run (or parse) untrusted strategy code.

Assume the code already runs any Python it likes (the audit hook and the import guard are gone):
what holds then is what the kernel enforces, installed here before the job is read:

- its own uid: every job gets a uid no other process has (the zygote is uid 0 of the sandbox's
  user namespace, itself an unprivileged uid on the host). Changing uid from 0 clears every
  capability; a different uid cannot ptrace, signal or open /proc/<pid>/mem of the zygote or
  of another job.
- no new privileges (bubblewrap sets it; seccomp requires it): no setuid binary, no file caps.
- a seccomp filter (libseccomp, Debian's python3-seccomp) that allows only the syscalls the
  numeric stack needs. Everything else fails with EPERM: mount, ptrace, process_vm_*, unshare,
  setns, bpf, keyctl, sockets, execve, and process creation (clone is allowed only for threads).
- RLIMIT_NPROC: a few threads for the fit, never a process tree.
- kernel memory its RLIMIT_AS does not count is bounded too: few descriptors (guard.py: NOFILE, so
  at most NOFILE/2 pipes of the default 64 KiB: the filter refuses F_SETPIPE_SZ), and no epoll,
  eventfd, inotify, io_uring, userfaultfd, memfd or POSIX timers (objects the numeric stack does
  not use, each a slab of kernel memory per call).

The zygote sweeps a job's uid when the job ends (sweep()): anything still running under it is
killed, whichever layer it got past.
"""
import ctypes
import errno
import os
import resource
import signal
import sys
import time

sys.path.append("/usr/lib/python3/dist-packages")  # seccomp's binding; -I leaves dist-packages off
import seccomp  # noqa: E402

# Job uids of the sandbox's user namespace: 1000..65000 cycle (the map holds 65536 ids).
FIRST_JOB_UID = 1000
LAST_JOB_UID = 65000
CHECKER_UID = 999
# Threads a job may hold (the fit uses a few); it counts every task of the uid.
NPROC = 32

CLONE_THREAD = 0x00010000

# What numpy, pandas, sklearn, xgboost and the interpreter use (traced on the test corpus and
# the trainer), nothing more. Anything absent answers EPERM.
ALLOWED = (
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "madvise", "mlock", "munlock", "membarrier",
    "get_mempolicy", "set_mempolicy", "mbind", "pkey_alloc", "pkey_free", "pkey_mprotect",
    # files already visible read-only in the sandbox (writes fail: read-only binds, RLIMIT_FSIZE=0)
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "preadv2", "lseek",
    "openat", "open", "close", "close_range", "fstat", "stat", "lstat", "newfstatat", "statx",
    "fstatfs", "statfs", "access", "faccessat", "faccessat2", "readlink", "readlinkat", "getdents64",
    "getcwd", "dup", "dup2", "dup3", "pipe", "pipe2", "poll", "ppoll", "select", "pselect6",
    "fadvise64", "flock", "fsync", "fdatasync", "ftruncate", "sendfile",
    # threads, time, signals of its own
    "futex", "futex_waitv", "set_robust_list", "get_robust_list", "set_tid_address", "rseq",
    "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam", "sched_getscheduler",
    "sched_get_priority_max", "sched_get_priority_min", "getpriority", "nanosleep", "clock_nanosleep",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "times", "getrusage",
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait",
    "rt_sigsuspend", "sigaltstack", "restart_syscall", "alarm", "setitimer", "getitimer",
    # identity (read-only), limits (lowering only without capabilities)
    "getpid", "gettid", "getppid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "getgroups", "getpgrp", "getpgid", "getsid", "setsid", "uname", "sysinfo", "getrandom",
    "arch_prctl", "capget",
    "exit", "exit_group", "wait4", "waitid",
)
DENIED_ERRNO = errno.EPERM
PR_SET_DUMPABLE = 4
F_SETPIPE_SZ = 1031


def _seccomp_filter():
    f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(DENIED_ERRNO))
    try:
        f.set_attr(seccomp.Attr.CTL_OPTIMIZE, 2)  # a binary tree, not a list: every syscall pays the filter
    except (RuntimeError, ValueError, OSError):
        pass  # an older libseccomp: the linear filter works, a little slower
    for name in ALLOWED:
        try:
            f.add_rule(seccomp.ALLOW, name)
        except (RuntimeError, ValueError, OSError):
            pass  # not a syscall on this architecture
    # Threads only: a clone without CLONE_THREAD (a new process) stays EPERM.
    f.add_rule(seccomp.ALLOW, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, CLONE_THREAD, CLONE_THREAD))
    # clone3 hides its flags in memory the filter cannot read: ENOSYS makes glibc use clone.
    f.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    # Signals to itself only (raise(), abort() and Python's signal machinery).
    pid = os.getpid()
    f.add_rule(seccomp.ALLOW, "kill", seccomp.Arg(0, seccomp.EQ, pid))
    f.add_rule(seccomp.ALLOW, "tgkill", seccomp.Arg(0, seccomp.EQ, pid))
    f.add_rule(seccomp.ALLOW, "tkill")  # a thread id of its own process (other uids are refused anyway)
    # prctl, but never PR_SET_DUMPABLE: a job stays non-dumpable, so its /proc files (its session's
    # CPU share among them) stay out of its own reach.
    f.add_rule(seccomp.ALLOW, "prctl", seccomp.Arg(0, seccomp.NE, PR_SET_DUMPABLE))
    # Its own niceness only (PRIO_PROCESS, pid 0): raising it is all RLIMIT_NICE 0 lets it do.
    f.add_rule(seccomp.ALLOW, "setpriority", seccomp.Arg(0, seccomp.EQ, 0), seccomp.Arg(1, seccomp.EQ, 0))
    # Limits of itself only (pid 0); raising a hard limit needs a capability it has not got.
    f.add_rule(seccomp.ALLOW, "prlimit64", seccomp.Arg(0, seccomp.EQ, 0))
    # fcntl, but never F_SETPIPE_SZ: a pipe stays at 64 KiB of kernel memory, so RLIMIT_NOFILE bounds them all.
    f.add_rule(seccomp.ALLOW, "fcntl", seccomp.Arg(1, seccomp.NE, F_SETPIPE_SZ))
    f.add_rule(seccomp.ALLOW, "ioctl", seccomp.Arg(1, seccomp.EQ, 0x5401))  # TCGETS (isatty)
    f.add_rule(seccomp.ALLOW, "ioctl", seccomp.Arg(1, seccomp.EQ, 0x541B))  # FIONREAD
    f.add_rule(seccomp.ALLOW, "ioctl", seccomp.Arg(1, seccomp.EQ, 0x5451))  # FIOCLEX
    return f


class Walls:
    """Which walls confine() puts up; tests switch single ones off to prove the others hold."""

    def __init__(self, argv):
        self.uid = "--no-uid" not in argv
        self.seccomp = "--no-seccomp" not in argv
        self.audit = "--no-audit" not in argv


def confine(uid, walls):
    """In a freshly forked child, before it reads any job: its own uid (no capabilities left),
    a bound on its tasks, and the seccomp filter. Irreversible for this process."""
    if walls.uid and os.getuid() == 0:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        resource.setrlimit(resource.RLIMIT_NPROC, (NPROC, NPROC))
    _no_new_privs()
    if walls.seccomp:
        _seccomp_filter().load()


def _no_new_privs():
    PR_SET_NO_NEW_PRIVS = 38
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")


class JobUids:
    """Hands out job uids in turn. A uid comes back only 64,000 jobs later, and by then nothing runs
    under it: sweep() ends every process of a uid when its job ends."""

    def __init__(self):
        self.next = FIRST_JOB_UID

    def take(self):
        uid = self.next
        self.next = FIRST_JOB_UID if uid >= LAST_JOB_UID else uid + 1
        return uid


def processes_of(uid):
    """Live (not zombie) pids in this PID namespace whose real, effective or saved uid is `uid`."""
    want = str(uid).encode()
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                status = f.read()
        except OSError:
            continue  # gone meanwhile
        state = uids = None
        for line in status.split(b"\n"):
            if line.startswith(b"State:"):
                state = line.split()[1]
            elif line.startswith(b"Uid:"):
                uids = line.split()[1:4]
                break
        if state != b"Z" and uids and want in uids:
            found.append(int(name))
    return found


def sweep(uid, exiting=None, rounds=200):
    """Kills every process of a finished job's uid (a grandchild it forked, a process that got
    past the seccomp filter): repeated until none is left, so a fork loop cannot outrun it.
    `exiting`, the job's own child, is killed too but not waited for: it has answered and is
    tearing its address space down, running no code of its own any more. The killed are reaped
    by their parents (the zygote, or the sandbox's init for orphans)."""
    for _ in range(rounds):
        pids = processes_of(uid)
        if not [pid for pid in pids if pid != exiting]:
            for pid in pids:
                _kill(pid)
            return True
        for pid in pids:
            _kill(pid)
        time.sleep(0.0005)  # SIGKILLed tasks take a moment to become zombies
    return not [pid for pid in processes_of(uid) if pid != exiting]


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def warm_up():
    """Builds (and drops) a filter once in the parent, so libseccomp's lazy setup is inherited."""
    _seccomp_filter()
