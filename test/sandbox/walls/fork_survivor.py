# Forks a grandchild that would sleep for ten minutes, then answers at once with its pid.
def strategy_config():
    time = _import("time")
    try:
        pid = os.fork()
    except OSError as e:
        return {"forked": errno.errorcode.get(e.errno, str(e))}
    if pid == 0:
        os.setsid() if hasattr(os, "setsid") else None
        time.sleep(600)
        os._exit(0)
    with open("/proc/self/uid_map") as f:
        base = int(f.read().split()[1])
    return {"forked": "ok", "host_uid": base + os.getuid()}
