"""Plays instantly, but keeps the CPU or the referee busy in the background the whole match.

``params.json`` ``how``: ``spinners`` (3 busy processes), ``sessions`` (12 busy children,
each in its own session, the way a detached daemon would be), ``flood`` (a child writing
stderr without pause), or ``calm`` (nothing).
"""

import os
import sys

from arbiter_common import PARAMS, play


def spin(new_session):
    if os.fork() == 0:
        if new_session:
            os.setsid()
        while True:
            pass


def flood():
    if os.fork() == 0:
        line = b"noise " * 100 + b"\n"
        while True:
            os.write(2, line)


def start(msg):
    how = PARAMS.get("how", "calm")
    if how == "spinners":
        for _ in range(3):
            spin(False)
    elif how == "sessions":
        for _ in range(12):
            spin(True)
    elif how == "flood":
        flood()
    sys.stderr.flush()


play(on_start=start)
