"""Writes to stdout forever without a newline."""

import sys

from arbiter_common import play


def turn(msg):
    while True:
        sys.stdout.write("x" * 4096)
        sys.stdout.flush()


play(on_turn=turn)
