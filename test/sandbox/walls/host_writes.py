# CANARY is set by the test: a root-owned tree under /usr/local on the host.
def strategy_config():
    canary = CANARY + "/file.txt"
    usr = ctypes.create_string_buffer(b"/usr")

    def write(path):
        with open(path, "w") as f:
            f.write("owned")

    return {
        "write_canary": attempt(lambda: write(canary)),
        "append_canary": attempt(lambda: open(canary, "a").write("x")),
        "unlink_canary": attempt(lambda: os.unlink(canary)),
        "chmod_canary": attempt(lambda: os.chmod(canary, 0o777)),
        "new_file_in_canary": attempt(lambda: write(CANARY + "/new.txt")),
        "write_usr_bin": attempt(lambda: write("/usr/bin/signalforge-owned")),
        "write_runtime": attempt(lambda: write("/sandbox/sandbox_runtime.py")),
        "remount_usr_rw": syscall(165, 0, ctypes.addressof(usr), 0, 0x20 | 0x1000, 0),
        "data_dir_visible": os.path.exists(DATA_DIR),
    }
