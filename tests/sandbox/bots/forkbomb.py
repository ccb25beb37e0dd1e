"""Forks until the process limit stops it (children sleep), then plays normally."""

import os
import time

from arbiter_common import play, report


def start(msg):
    count = 0
    while count < 10_000:
        try:
            pid = os.fork()
        except OSError as exc:
            report("FORK_ERROR", exc)
            break
        if pid == 0:
            time.sleep(1000)
            os._exit(0)
        count += 1
    report("FORKS", count)


play(on_start=start)
