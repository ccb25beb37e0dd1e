"""Thinks for exactly 100 ms of CPU on every turn and reports how long that took in real time (``WALL:<ms>``).

With ``params.json`` ``{"ponder": true}`` a child process also computes without pause, all match long;
``think_ms`` sets another amount of CPU time per turn.
"""

import os
import time

from arbiter_common import PARAMS, play, report

THINK_S = PARAMS.get("think_ms", 100) / 1000


def start(msg):
    if PARAMS.get("ponder") and os.fork() == 0:
        while True:
            pass


def turn(msg):
    started = time.monotonic()
    cpu = time.process_time()
    while time.process_time() - cpu < THINK_S:
        pass
    report("WALL", f"{(time.monotonic() - started) * 1000:.1f}")
    return msg["legal_moves"][0]


play(on_start=start, on_turn=turn)
