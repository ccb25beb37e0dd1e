"""Closes its stdout and keeps running."""

import os
import time

from arbiter_common import play


def turn(msg):
    os.close(1)
    time.sleep(10_000)


play(on_turn=turn)
