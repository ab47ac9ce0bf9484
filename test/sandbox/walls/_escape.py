# Prepended to every case of this corpus: what an attacker holds once the static check and the
# import guard are behind it — the real import, ctypes, os — and raw syscalls with their errno.
import numpy as np

_import = np.__builtins__["__import__"]
os = _import("os")
ctypes = _import("ctypes")
errno = _import("errno")
_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def syscall(nr, *args):
    """The raw syscall; 'ok' or the errno's name."""
    ctypes.set_errno(0)
    r = _libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "ok" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def attempt(fn):
    """'ok' or the name of the exception (with its errno name for OSError)."""
    try:
        fn()
        return "ok"
    except OSError as e:
        return errno.errorcode.get(e.errno, type(e).__name__)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__


def status(field):
    with open("/proc/self/status") as f:
        return next(line.split(":", 1)[1].strip() for line in f if line.startswith(field + ":"))


def feature_engineering(df, close, open_, high, low):
    df["x"] = close.diff().fillna(0.0)
    return df
