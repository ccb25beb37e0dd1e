"""Stays under the per-process memory limit but multiplies it by forking, then plays on."""

import os
import time

from arbiter_common import play, report

PER_CHILD = 150 << 20


def start(msg):
    for _ in range(8):
        if os.fork() == 0:
            hoard = bytearray(PER_CHILD)
            for i in range(0, len(hoard), 4096):  # touch every page so it is really resident
                hoard[i] = 1
            time.sleep(1000)  # holds its memory until the sandbox ends it
            os._exit(0)
    report("FORKED", 8)


play(on_start=start)
