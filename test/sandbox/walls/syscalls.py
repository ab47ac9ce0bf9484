# x86_64 syscall numbers; each call is made to do harm if it were allowed.
CLONE_NEWUSER, CLONE_NEWNS, SIGCHLD = 0x10000000, 0x00020000, 17


def strategy_config():
    """SKIP (set by the test) names calls not to make: with seccomp off a raw fork or execve would
    succeed and take the job's own answer with it."""
    ppid = os.getppid()
    buf = ctypes.create_string_buffer(64)
    usr, tmp, id_ = (ctypes.create_string_buffer(p) for p in (b"/usr", b"/tmp", b"/usr/bin/id"))
    iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 64)
    calls = {
        "mount": lambda: syscall(165, 0, ctypes.addressof(usr), 0, 0x20 | 0x1000, 0),  # MS_REMOUNT|MS_BIND rw
        "ptrace": lambda: syscall(101, 16, ppid, 0, 0),  # PTRACE_ATTACH the zygote
        "process_vm_readv": lambda: syscall(310, ppid, ctypes.addressof(iov), 1, ctypes.addressof(iov), 1, 0),
        "setns": lambda: syscall(308, 0, 0),
        "socket": lambda: syscall(41, 2, 1, 0),  # AF_INET, SOCK_STREAM
        "socketpair": lambda: syscall(53, 1, 1, 0, ctypes.addressof(buf)),
        "fork": lambda: syscall(57),
        "vfork_like_clone": lambda: syscall(56, SIGCHLD, 0, 0, 0, 0),  # clone without CLONE_THREAD = fork
        "execve": lambda: syscall(59, ctypes.addressof(id_), 0, 0),
        "kill_zygote": lambda: syscall(62, ppid, 9),
        "bpf": lambda: syscall(321, 0, 0, 0),
        "keyctl": lambda: syscall(250, 0, 0, 0, 0, 0),
        "kexec_load": lambda: syscall(246, 0, 0, 0, 0),
        "setuid_root": lambda: syscall(105, 0),
        "chroot": lambda: syscall(161, ctypes.addressof(tmp)),
        "perf_event_open": lambda: syscall(298, 0, 0, -1, -1, 0),
        "userfaultfd": lambda: syscall(323, 0),
        # Last: where it succeeds (seccomp off) the process gains a namespace of its own, and with
        # it capabilities there, which would change the answers of the calls above.
        "unshare": lambda: syscall(272, CLONE_NEWUSER | CLONE_NEWNS),
    }
    return {name: call() for name, call in calls.items() if name not in SKIP.split(",")}
