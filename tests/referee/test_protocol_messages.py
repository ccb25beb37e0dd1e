"""A protocol forfeit says what the bot actually did wrong, quoting the line it wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.referee.support import random_bot
from tests.referee.test_referee import FIRST, READY, play, scripted
from workers.match import Clock
from workers.sandbox.limits import SandboxLimits

SAY = "print({}, flush=True)"  # a line of text on stdout, as a print() left in for debugging writes it
# A debugging line and the answer in one write, as a print() without flush and the answer's flush send them
# (stdout to a pipe is block-buffered): two writes would race the referee's reading of the first line.
DEBUG_THEN_READY = 'say_then_send("thinking hard", {"type": "ready", "name": "scripted", "version": "7"})'
DEBUG_THEN_MOVE = 'say_then_send("my move is %s" % msg["legal_moves"][0], {"move": msg["legal_moves"][0]})'
ANSWER_TWICE = 'send_both({"move": msg["legal_moves"][0]}, {"move": msg["legal_moves"][0]})'
READY_AND_CHAT = 'send_both({"type": "ready", "name": "scripted", "version": "7"}, {"chatty": True})'

CASES = [
    # Debug output on stdout before the answer: the commonest mistake, named as such.
    (FIRST, DEBUG_THEN_READY, 'its first line in answer to start was not a JSON object: "thinking hard"'),
    (DEBUG_THEN_MOVE, READY, 'its first line in answer to its turn was not a JSON object: "my move is '),
    # Two lines in one write (send_both), for the same reason.
    (ANSWER_TWICE, READY, 'it wrote a second line in answer to its turn: "{"move": '),
    (FIRST, 'send({"type": "steady"})', 'its answer to start was not {"type": "ready"}: "{"type": "steady"}"'),
    (FIRST, SAY.format('"ok"'), 'its answer to start was not a JSON object: "ok"'),
    (SAY.format('"e2e4"'), READY, 'its answer was not a JSON object: "e2e4"'),
    ('send({"mvoe": "1"})', READY, 'its answer had no "move": "{"mvoe": "1"}"'),
    ('send({"move": 1})', READY, 'its answer had a "move" that is not a string: "{"move": 1}"'),
    (FIRST, READY_AND_CHAT, 'it wrote a second line in answer to start: "{"chatty": true}"'),
    # A line after the answer: read with the next answer, or while no answer was due; quoted either way.
    (FIRST + '; send({"chatty": True})', READY, ': "{"chatty": true}"'),
]


@pytest.mark.parametrize(("on_turn", "on_start", "detail"), CASES)
def test_a_protocol_forfeit_names_the_mistake(
    tmp_path: Path, limits: SandboxLimits, on_turn: str, on_start: str, detail: str
) -> None:
    bots = [scripted(tmp_path, "bad", on_turn=on_turn, on_start=on_start), random_bot(tmp_path / "r")]
    record = play(limits, bots, clock=Clock(move_ms=300, game_ms=5000, startup_ms=1500))
    seat = record.seat_records[0]
    assert seat.status == "protocol_error", (seat.status, seat.detail)
    assert detail in seat.detail, seat.detail
    assert "more than one answer" not in seat.detail


def test_a_long_line_is_quoted_in_part(tmp_path: Path, limits: SandboxLimits) -> None:
    bots = [scripted(tmp_path, "bad", on_turn=SAY.format('"x" * 5000')), random_bot(tmp_path / "r")]
    detail = play(limits, bots).seat_records[0].detail
    assert detail == f'its answer was not a JSON object: "{"x" * 60}"... (5000 bytes)', detail
