# The CPU priority the job was given (its own, and its session's autogroup where the kernel has
# them), and whether it can raise either back, make itself dumpable, or touch the zygote's.
def strategy_config():
    before = os.getpriority(os.PRIO_PROCESS, 0)
    lower = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, 0))
    zygote = attempt(lambda: os.setpriority(os.PRIO_PROCESS, os.getppid(), 19))
    try:
        with open("/proc/self/autogroup") as f:
            group = int(f.read().split("nice")[1])
    except OSError:
        group = None

    def raise_group():
        with open("/proc/self/autogroup", "w") as f:
            f.write("0")
    return {"nice": before, "raise_priority": lower, "after": os.getpriority(os.PRIO_PROCESS, 0), "zygote": zygote,
            "own_session": os.getsid(0) == os.getpid(), "group_nice": group,
            "raise_group": attempt(raise_group) if group is not None else None,
            "dumpable": syscall(157, 4, 1)}  # prctl(PR_SET_DUMPABLE, 1) on x86_64
