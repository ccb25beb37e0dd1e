"""Answers every turn at once while a thread burns CPU in the background: the CPU limit ends it."""

import threading

from arbiter_common import play


def burn():
    while True:
        pass


def start(msg):
    threading.Thread(target=burn, daemon=True).start()


play(on_start=start)
