"""Fills /tmp and /dev/shm until they refuse, then plays normally."""

from arbiter_common import play, report


def fill(path):
    written = 0
    chunk = b"\0" * (1 << 20)
    try:
        with open(path, "wb") as f:
            while written < 1 << 30:
                f.write(chunk)
                f.flush()
                written += len(chunk)
    except OSError as exc:
        report("STOPPED", f"{path}: {exc}")
    return written


def start(msg):
    report("FILLED_TMP", fill("/tmp/fill"))
    report("FILLED_SHM", fill("/dev/shm/fill"))


play(on_start=start)
