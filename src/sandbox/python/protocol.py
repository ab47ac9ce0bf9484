"""The framed messages of the runtime (src/sandbox/protocol.ts is the Node side).

frame   = uint32 little-endian length N, then N bytes
message = a JSON header frame; if header["payload_bytes"] > 0, a raw payload frame follows

Node → zygote:  a control message {"id", "op", "timeout_ms", "memory_mb", "job_bytes": n}, then n
                raw bytes: the job message for the child (its header holds the code). The zygote
                splices those bytes straight into the child's pipe: they never enter its memory.
zygote → Node:  control messages only —
                {"id": 0, "ok": true, "ready": true, "pid"}      once, when warm
                {"id", "relay": true} + a payload of n bytes       part of the child's answer
                {"id", "done": true}                              the relayed bytes are complete
                {"id", "ok": false, "kind", "error"}              the job failed (timeout, died, too large)
A child's answer (relayed) is one message: {"id", "ok": true, ...} [payload] or
{"id", "ok": false, "kind", "error"}.
"""
import json
import os
import select
import struct
import time

# The most a job may answer (the feature matrix of a year of 1-min bars at 256 columns fits).
MAX_REPLY_BYTES = 768 * 1024 * 1024
MAX_CONTROL_BYTES = 1 << 20


def write_all(fd, data):
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def encode_message(header, payload=b""):
    header = dict(header, payload_bytes=len(payload))
    raw = json.dumps(header, allow_nan=False).encode()
    head = struct.pack("<I", len(raw)) + raw
    return head + struct.pack("<I", len(payload)) if payload else head


def write_head(fd, header, payload_bytes):
    """A message's header and its payload frame's length; the payload follows by splice."""
    raw = json.dumps(dict(header, payload_bytes=payload_bytes), allow_nan=False).encode()
    write_all(fd, struct.pack("<I", len(raw)) + raw + struct.pack("<I", payload_bytes))


def write_message(fd, header, payload=b""):
    """One message on fd (unbuffered: nothing of it stays in this process's buffers)."""
    write_all(fd, encode_message(header, payload))
    if payload:
        write_all(fd, payload)


def read_exact(fd, n, deadline=None):
    """n bytes from fd; EOFError when it closes first, TimeoutError past the deadline (monotonic)."""
    data = bytearray()
    while len(data) < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(n - len(data), 1 << 20))
        if not chunk:
            raise EOFError
        data += chunk
    return bytes(data)


def payload_size(header):
    """The payload size a header announces: a count, or ValueError (a forged header may say anything)."""
    n = header.get("payload_bytes", 0)
    if type(n) is not int or n < 0:
        raise ValueError("payload_bytes is not a count")
    return n


class MessageTooLarge(ValueError):
    """A message over the reader's limit: refused by its announced size, before it is read."""


def read_message(fd, deadline=None, max_header=None, max_payload=None):
    """One message from fd: (header, payload). ValueError when the header is not a JSON object or
    its payload size not a count, MessageTooLarge when its header or payload announces more than the limits."""
    (n,) = struct.unpack("<I", read_exact(fd, 4, deadline))
    if max_header is not None and n > max_header:
        raise MessageTooLarge(f"header of {n} bytes")
    header = json.loads(read_exact(fd, n, deadline))
    if not isinstance(header, dict):
        raise ValueError("header is not an object")
    payload = b""
    if payload_size(header) > 0:
        (m,) = struct.unpack("<I", read_exact(fd, 4, deadline))
        if max_payload is not None and m > max_payload:
            raise MessageTooLarge(f"payload of {m} bytes")
        payload = read_exact(fd, m, deadline)
    return header, payload


def splice_exact(src, dst, n):
    """Moves n bytes from src to dst inside the kernel (one of them a pipe): this process never
    holds them. EOFError when src ends first."""
    while n > 0:
        moved = os.splice(src, dst, min(n, 1 << 20))
        if moved == 0:
            raise EOFError
        n -= moved


# Feature columns a strategy may add: real strategies use tens; thousands only stall the fit and
# the answer.
MAX_FEATURE_COLUMNS = 256


def check_width(columns, rows):
    """Refuses a feature matrix wider than the limit, saying so, before it is fitted or encoded."""
    if columns > MAX_FEATURE_COLUMNS:
        raise ValueError(f"features too wide: {columns} columns × {rows} rows; the limit is "
                         f"{MAX_FEATURE_COLUMNS} columns: keep the features you use")
