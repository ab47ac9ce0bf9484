# Prepended before _escape.py where the audit hook is up: code that reaches the runtime's objects
# switches it off from inside (the hook is found through the gc and its code swapped for a no-op),
# so the kernel walls are what the cases meet.
import numpy as np

_gc = np.__builtins__["__import__"]("gc")
_hooks = [f for f in _gc.get_objects()
          if type(f).__name__ == "function" and getattr(f, "__qualname__", "") == "install_audit_hook.<locals>.hook"]


def _no_op():
    allowed_code = None

    def hook(event, args):
        return allowed_code and None
    return hook


for _hook in _hooks:
    _hook.__code__ = _no_op().__code__
UNHOOKED = len(_hooks)
