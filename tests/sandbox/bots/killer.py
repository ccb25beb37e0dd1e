"""Kills its parent and sends SIGKILL to every process it may signal (kill -1), then plays."""

import os
import signal

from arbiter_common import play, report


def start(msg):
    for target in (os.getppid(), 1, -1):
        try:
            os.kill(target, signal.SIGKILL)
            report("KILLED", target)
        except OSError as exc:
            report("KILL_ERROR", f"{target}: {exc}")


play(on_start=start)
