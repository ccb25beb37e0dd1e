"""Starts threads until refused, then plays normally."""

import threading
import time

from arbiter_common import play, report


def start(msg):
    count = 0
    try:
        while count < 100_000:
            threading.Thread(target=time.sleep, args=(1000,), daemon=True).start()  # each one only waits
            count += 1
    except (RuntimeError, MemoryError) as exc:
        report("THREAD_ERROR", exc)
    report("THREADS", count)


play(on_start=start)
