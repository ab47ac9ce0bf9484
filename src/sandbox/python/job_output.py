"""A job's own stdout and stderr: one pipe per job child, never shared with another job or with the
zygote's stderr (which Node logs for operators), so no tenant's output reaches another's error.

The zygote (or session) drains the pipe as the job runs, so printing never blocks the job, and keeps
a bounded excerpt: the first HEAD_BYTES and the last TAIL_BYTES (a ring), the middle dropped. The
bytes move by splice(2) into a memfd and leave by sendfile(2): they never enter this process's
memory, which later jobs are forked from. Node shows the excerpt in the job's own error only.
"""
import fcntl
import os
import select
import struct
import termios

from protocol import write_head

HEAD_BYTES = 1024
TAIL_BYTES = 3072
CHUNK = 1 << 16


def _fionread(fd):
    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]


class JobOutput:
    """The read end of a job child's stdout/stderr pipe and the kept excerpt. `w` is the child's end:
    the parent closes it after the fork (close_writer)."""

    def __init__(self):
        self.r, self.w = os.pipe()
        os.set_blocking(self.r, False)
        self.kept = None  # the memfd, made on the first byte
        self.total = 0  # bytes the job wrote, drained so far
        self.ended = False

    def close_writer(self):
        os.close(self.w)

    def fileno(self):
        """For select(): readable when the job wrote something, or when every writer is gone."""
        return self.r

    def drain(self):
        """Takes in what the job wrote so far, without waiting (a job that keeps writing is caught up
        with on the next call). Marks `ended` once every writer is gone."""
        left = _fionread(self.r)
        if left == 0:
            # Readable with nothing buffered is the end (only this process reads the pipe).
            self.ended = bool(select.select([self.r], [], [], 0)[0]) and _fionread(self.r) == 0
            return
        while not self.ended and left > 0:
            moved = self._take(min(left, CHUNK))
            if moved == 0:
                return
            left -= moved

    def _take(self, n):
        """Moves up to n bytes (no more than are buffered); 0 when none was there."""
        if self.kept is None:
            self.kept = os.memfd_create("job-output", os.MFD_CLOEXEC)
        dropped = 0
        if self.total >= HEAD_BYTES and n > TAIL_BYTES:  # older than the ring holds: dropped in the kernel
            dropped = n - TAIL_BYTES
            _splice_to_null(self.r, dropped)
            self.total += dropped
            n = TAIL_BYTES
        if self.total < HEAD_BYTES:
            at, k = self.total, min(n, HEAD_BYTES - self.total)
        else:
            ring = (self.total - HEAD_BYTES) % TAIL_BYTES
            at, k = HEAD_BYTES + ring, min(n, TAIL_BYTES - ring)
        try:
            moved = os.splice(self.r, self.kept, k, offset_dst=at, flags=os.SPLICE_F_NONBLOCK)
        except BlockingIOError:
            return dropped
        if moved == 0:
            self.ended = True
        self.total += moved
        return dropped + moved

    def pieces(self):
        """The kept excerpt as (offset, length) ranges of the memfd, in the job's order."""
        if self.total <= HEAD_BYTES + TAIL_BYTES:
            return [(0, self.total)] if self.total else []
        ring = (self.total - HEAD_BYTES) % TAIL_BYTES
        return [(0, HEAD_BYTES), (HEAD_BYTES + ring, TAIL_BYTES - ring), (HEAD_BYTES, ring)]

    def send(self, fd, job_id):
        """Writes {"id", "output": true, "bytes", "dropped", "head"} + the excerpt on fd (nothing
        when the job wrote nothing)."""
        self.drain()
        pieces = [(at, n) for at, n in self.pieces() if n > 0]
        kept = sum(n for _, n in pieces)
        if not kept:
            return
        head = min(kept, HEAD_BYTES)  # where the gap is, when the middle was dropped
        write_head(fd, {"id": job_id, "output": True, "bytes": self.total, "dropped": self.total - kept, "head": head}, kept)
        for at, n in pieces:
            while n > 0:
                sent = os.sendfile(fd, self.kept, at, n)
                if sent == 0:
                    raise EOFError
                at += sent
                n -= sent

    def restart(self):
        """Forgets the excerpt sent (a session's worker prints on across calls)."""
        if self.kept is not None:
            os.close(self.kept)
        self.kept = None
        self.total = 0

    def close(self):
        for fd in (self.r, self.kept):
            if fd is not None:
                os.close(fd)
        self.r = self.kept = None


_null = None


def _splice_to_null(src, n):
    global _null
    if _null is None:
        _null = os.open(os.devnull, os.O_WRONLY | os.O_CLOEXEC)
    while n > 0:
        moved = os.splice(src, _null, n)
        if moved == 0:
            raise EOFError
        n -= moved
