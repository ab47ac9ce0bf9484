# The CPU priority the job was given, and whether it can raise it back or touch another's.
def strategy_config():
    before = os.getpriority(os.PRIO_PROCESS, 0)
    lower = attempt(lambda: os.setpriority(os.PRIO_PROCESS, 0, 0))
    zygote = attempt(lambda: os.setpriority(os.PRIO_PROCESS, os.getppid(), 19))
    return {"nice": before, "raise_priority": lower, "after": os.getpriority(os.PRIO_PROCESS, 0), "zygote": zygote}
