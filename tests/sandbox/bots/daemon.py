"""Leaves a double-forked setsid daemon behind, then plays normally."""

import os
import time

from arbiter_common import play, report


def start(msg):
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            for fd in (0, 1, 2):
                os.close(fd)
            while True:  # lives on, idle, until the sandbox ends it
                time.sleep(0.05)
        os._exit(0)
    os.wait()
    report("DAEMON", "started")


play(on_start=start)
