"""Renames itself ``bwrap`` on its first turn (``params.json`` ``how``: ``comm`` or ``prctl``), then stalls."""

import ctypes
import time

from arbiter_common import PARAMS, play, report

PR_SET_NAME = 15


def turn(msg):
    if PARAMS["how"] == "prctl":
        ctypes.CDLL(None).prctl(PR_SET_NAME, b"bwrap", 0, 0, 0)
    else:
        with open("/proc/self/comm", "w") as comm:
            comm.write("bwrap")
    with open("/proc/self/comm") as comm:
        report("NAME", comm.read().strip())
    time.sleep(3600)  # bot code: stalls, answering nothing


play(on_turn=turn)
