"""Floods stderr with 20 MiB, then plays normally."""

import sys

from arbiter_common import play


def start(msg):
    line = "noise " * 100 + "\n"
    for _ in range(20 * 1024 * 1024 // len(line)):
        sys.stderr.write(line)
    sys.stderr.flush()


play(on_start=start)
