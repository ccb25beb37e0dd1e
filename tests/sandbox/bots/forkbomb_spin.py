"""A classic fork bomb in a child (every process forks forever, spinning); the parent still plays."""

import os

from arbiter_common import play


def start(msg):
    if os.fork() == 0:
        os.setsid()
        while True:
            try:
                os.fork()
            except OSError:  # refused: try again at once, as a real bomb would
                continue


play(on_start=start)
