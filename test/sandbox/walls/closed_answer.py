# Closes its answer pipe (every descriptor above stderr) without answering, then waits on without
# using CPU time (its CPU limit never fires): the zygote must end the job itself, within its
# budget's bounds, and stay up for the next job.
def strategy_config():
    time = _import("time")
    for fd in range(3, 64):
        try:
            os.close(fd)
        except OSError:
            pass
    time.sleep(600)
