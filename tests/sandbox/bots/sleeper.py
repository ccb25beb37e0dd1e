"""Sleeps forever on its first turn."""

import time

from arbiter_common import play


def turn(msg):
    time.sleep(10_000)


play(on_turn=turn)
