"""Answers a move that is not in legal_moves."""

from arbiter_common import play

play(on_turn=lambda msg: "resign")
