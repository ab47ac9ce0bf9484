# Forks a grandchild named MARKER (its comm, for the test to find it), then spins past the job's
# timeout: the job ends by the kill, not by an answer, and the grandchild must go with it.
def strategy_config():
    time = _import("time")
    pid = os.fork()
    if pid == 0:
        _libc.prctl(15, ctypes.c_char_p(MARKER.encode()), 0, 0, 0)  # PR_SET_NAME
        time.sleep(600)
        os._exit(0)
    while True:
        pass
