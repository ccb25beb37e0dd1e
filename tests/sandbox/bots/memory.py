"""Allocates memory without end on its first turn."""

from arbiter_common import play

hoard = []


def turn(msg):
    while True:
        hoard.append(bytearray(16 << 20))


play(on_turn=turn)
