"""Starts a command in a new user namespace whose ids 0..count-1 are host ids base..base+count-1.

Run by the Node side as root, with `python3 -I -S` (no site, no environment): it reads no user data.
The namespace's uid 0 is then an unprivileged host uid; its capabilities count only inside.
usage: userns_launch.py BASE COUNT COMMAND [ARG...]
"""
import ctypes
import os
import sys

CLONE_NEWUSER = 0x10000000


def main():
    base, count, argv = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    go_r, go_w = os.pipe()
    done_r, done_w = os.pipe()
    mapper = os.fork()
    if mapper == 0:
        # Still root on the host: writes the maps of the parent's new namespace, then leaves.
        os.close(go_w)
        os.close(done_r)
        if os.read(go_r, 1) == b"1":
            try:
                for name in ("uid_map", "gid_map"):
                    with open(f"/proc/{os.getppid()}/{name}", "w") as f:
                        f.write(f"0 {base} {count}\n")
                os.write(done_w, b"1")
            except OSError as e:
                os.write(2, f"userns_launch: cannot map ids: {e}\n".encode())
        os._exit(0)
    os.close(go_r)
    os.close(done_w)
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) != 0:
        sys.stderr.write(f"userns_launch: unshare(CLONE_NEWUSER): {os.strerror(ctypes.get_errno())}\n")
        sys.exit(111)
    os.write(go_w, b"1")
    mapped = os.read(done_r, 1) == b"1"
    os.waitpid(mapper, 0)
    if not mapped:
        sys.exit(111)
    # Become the namespace's uid 0 (the host uid `base`): the command keeps the namespace's
    # capabilities across exec, and holds none on the host.
    os.setresgid(0, 0, 0)
    os.setgroups([])
    os.setresuid(0, 0, 0)
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()
