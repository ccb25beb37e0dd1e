"""Spins the CPU on its first turn and never answers."""

from arbiter_common import play


def turn(msg):
    while True:
        pass


play(on_turn=turn)
