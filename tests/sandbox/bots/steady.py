"""Thinks for exactly 100 ms of CPU on every turn and reports how long that took in real time (``WALL:<ms>``).

With ``params.json`` ``{"ponder": true}`` a child process also computes without pause, all match long.
"""

import os
import time

from arbiter_common import PARAMS, play, report


def start(msg):
    if PARAMS.get("ponder") and os.fork() == 0:
        while True:
            pass


def turn(msg):
    started = time.monotonic()
    cpu = time.process_time()
    while time.process_time() - cpu < 0.1:
        pass
    report("WALL", f"{(time.monotonic() - started) * 1000:.1f}")
    return msg["legal_moves"][0]


play(on_start=start, on_turn=turn)
