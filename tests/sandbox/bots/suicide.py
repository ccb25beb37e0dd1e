"""Dies by a signal (SIGSEGV) on its first turn."""

import os
import signal

from arbiter_common import play


def turn(msg):
    os.kill(os.getpid(), signal.SIGSEGV)


play(on_turn=turn)
