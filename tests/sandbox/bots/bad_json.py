"""Answers a turn with something that is not JSON."""

import sys

from arbiter_common import play


def turn(msg):
    sys.stdout.write("move please {\n")
    sys.stdout.flush()


play(on_turn=turn)
