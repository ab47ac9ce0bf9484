# Job B: searches every byte it can read — its own memory (a copy of the zygote's at fork time),
# the zygote's memory when it can open it, and the garbage collector — for job A's secret.
PREFIX = b"sf-secret-"


def regions(pid):
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            if "r" in fields[1] and not (len(fields) > 5 and fields[5] in ("[vvar]", "[vsyscall]", "[vvar_vclock]")):
                yield tuple(int(x, 16) for x in fields[0].split("-"))


def hits(chunk):
    found, i = [], chunk.find(PREFIX)
    while i >= 0:
        found.append(chunk[i:i + 40].decode("latin-1"))
        i = chunk.find(PREFIX, i + 1)
    return found


def scan_self():
    """Every readable page of this process (its own memory: read directly, no file needed)."""
    found = []
    for start, end in regions("self"):
        for at in range(start, end, 1 << 24):
            found += hits(ctypes.string_at(at, min(end - at, 1 << 24)))
    return found


def scan(pid):
    found = []
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:
        for start, end in regions(pid):
            for at in range(start, end, 1 << 24):
                try:
                    mem.seek(at)
                    found += hits(mem.read(min(end - at, 1 << 24)))
                except OSError:
                    break
    return found


def strategy_config():
    gc = _import("gc")
    in_gc = [repr(o)[:60] for o in gc.get_objects() if isinstance(o, (dict, list, tuple)) and PREFIX.decode() in repr(o)[:100000]]
    result = {"self": scan_self(), "gc": in_gc[:20]}
    try:
        result["zygote"] = scan(os.getppid())
    except OSError as e:
        result["zygote"] = errno.errorcode.get(e.errno, str(e))
    return result
