# Host ptys and kernel memory outside RLIMIT_AS: what a job can open and pin. It opens pipes until
# refused and fills each (after trying to widen it), and tries the kernel objects the numeric stack
# does not need. The test computes the bound from the limits it reports.
def strategy_config():
    fcntl = _import("fcntl")
    resource = _import("resource")
    params, name, timer = (ctypes.create_string_buffer(n) for n in (120, 8, 8))  # alive while the kernel writes to them
    limit = (ctypes.c_ulong * 2)(1 << 20, 1 << 20)
    report = {
        "ptmx": attempt(lambda: os.close(os.open("/dev/ptmx", os.O_RDWR | os.O_NOCTTY))),
        "pts": os.path.exists("/dev/pts"),
        "shm": os.path.exists("/dev/shm"),
        "dev": sorted(os.listdir("/dev")),
        "dev_write": attempt(lambda: os.close(os.open("/dev/new", os.O_WRONLY | os.O_CREAT, 0o600))),
        "epoll_create1": syscall(291, 0),
        "eventfd2": syscall(290, 0, 0),
        "inotify_init1": syscall(294, 0),
        "io_uring_setup": syscall(425, 1, ctypes.addressof(params)),
        "memfd_create": syscall(319, ctypes.addressof(name), 0),
        "userfaultfd": syscall(323, 0),
        "timer_create": syscall(222, 1, 0, ctypes.addressof(timer)),
        "nofile": resource.getrlimit(resource.RLIMIT_NOFILE)[1],
        "raise_nofile": syscall(302, 0, 7, ctypes.addressof(limit), 0),  # prlimit64(self, RLIMIT_NOFILE)
    }
    with open("/proc/sys/fs/pipe-max-size") as f:
        report["pipe_max_size"] = int(f.read())
    pipes, pinned, widened, stopped = [], 0, [], None
    chunk = b"x" * 65536
    while len(pipes) < 100_000:
        try:
            r, w = os.pipe()
        except OSError as e:
            stopped = errno.errorcode.get(e.errno, str(e))
            break
        pipes.append((r, w))
        widened.append(attempt(lambda: fcntl.fcntl(w, 1031, 1 << 20)))  # F_SETPIPE_SZ
        fcntl.fcntl(w, fcntl.F_SETFL, os.O_NONBLOCK)  # (os.set_blocking is an ioctl the filter refuses)
        while True:
            try:
                pinned += os.write(w, chunk)
            except BlockingIOError:
                break
    report.update(pipes=len(pipes), pinned=pinned, widen=sorted(set(widened)), stopped=stopped)
    return report
