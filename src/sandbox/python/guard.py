"""The friendly early errors inside a job: resource limits, the audit hook and the import guard.

They name what the strategy tried ("writing files is not allowed") before the kernel's walls
(jail.py) refuse it less helpfully; they are not the boundary: code that reaches the runtime's
globals can switch them off, and jail.py assumes it has.
"""
import builtins
import os
import resource
import sys

import numpy as np
import pandas as pd

import trainer

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


# Descriptors a job may hold (its stdio, its answer pipe, a library file or two being read).
NOFILE = 32
# Queued signals of the job's uid (each a kernel object): the job needs its CPU limit's SIGXCPU.
SIGPENDING = 64


class Refused(Exception):
    """An audit event the sandbox does not allow."""


def cpu_budget_s(header):
    """The CPU-time budget of one job or call: its timeout, on every thread it may use (a train job's
    forest fits on trainer.THREADS). Its watcher ends it there (job_clock.py)."""
    threads = trainer.THREADS if header.get("op") == "train" else 1
    return header.get("timeout_ms", 30_000) / 1000 * threads


def cpu_seconds(header):
    """RLIMIT_CPU of a job: a second past its budget, the kernel's backstop behind its watcher."""
    return max(1, int(cpu_budget_s(header)) + 1)


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
    # Descriptors: each pipe pins up to 64 KiB of kernel memory that RLIMIT_AS does not count.
    resource.setrlimit(resource.RLIMIT_NOFILE, (NOFILE, NOFILE))
    resource.setrlimit(resource.RLIMIT_SIGPENDING, (SIGPENDING, SIGPENDING))
    # Niceness can only go up from here: with RLIMIT_NICE 0 no process may lower it again.
    resource.setrlimit(resource.RLIMIT_NICE, (0, 0))
    # (Where the kernel groups sessions, the zygote also set this job's session group to it.)
    nice = min(19, max(0, int(header.get("nice", 0))))
    if nice:
        os.setpriority(os.PRIO_PROCESS, 0, nice)


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


ALLOWED_IMPORTS = ("numpy", "pandas", "sklearn")
_real_import = builtins.__import__


def _strategy_import(name, globals=None, locals=None, fromlist=(), level=0):
    """Strategy code may import only what the contract allows, here as in the static check:
    the libraries this zygote holds for the trainer (xgboost and its ctypes use) stay out of reach."""
    if level != 0 or name.split(".")[0] not in ALLOWED_IMPORTS:
        raise Refused(f"import of {name} is not allowed: only numpy, pandas and sklearn")
    return _real_import(name, globals, locals, fromlist, level)


STRATEGY_BUILTINS = dict(vars(builtins), __import__=_strategy_import)
