"""A match the service stops (it was cancelled): every bot is killed at once and there is no record."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from tests.bot_processes import all_have_played, bots_of_uids
from tests.referee.support import survivors, write_bot
from tests.waiting import wait_for
from workers.match import Clock, MatchSpec
from workers.referee.conversation import MatchStopped
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits

# Answers its first turn at once, then thinks for an hour of wall time (its clock allows it).
THINKER = """
import json, sys, time
turns = 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "start":
        print(json.dumps({"type": "ready"}), flush=True)
    elif msg["type"] == "turn":
        turns += 1
        if turns > 1:
            time.sleep(3600)  # bot code: a long think
        print(json.dumps({"move": msg["legal_moves"][0]}), flush=True)
"""
LONG = Clock(move_ms=3_600_000, game_ms=7_200_000, startup_ms=10_000)


def test_a_stopped_match_kills_its_bots_at_once_and_records_nothing(tmp_path: Path, limits: SandboxLimits) -> None:
    bots = [write_bot(tmp_path / name, THINKER) for name in ("a", "b")]
    spec = MatchSpec(match_id="stopped", engine_id="count-test", options={"target": 50}, seed=1, seats=2, clock=LONG)
    stop = threading.Event()
    stopped_at: list[float] = []

    def stop_mid_match() -> None:
        uids = range(limits.first_uid, limits.first_uid + limits.slots)
        wait_for(lambda: all_have_played(bots_of_uids(uids)), 60, "both bots to answer a turn", every=0.05)
        stopped_at.append(time.monotonic())
        stop.set()

    stopper = threading.Thread(target=stop_mid_match, daemon=True)
    stopper.start()
    with pytest.raises(MatchStopped):
        play_match(spec, bots, limits=limits, stop=stop)
    ended = time.monotonic()
    stopper.join(5)
    assert stopped_at, "the stopper never saw both bots play"
    took = ended - stopped_at[0]
    print(f"play_match returned {took:.3f} s after the stop")
    assert took < 2.0, took
    assert survivors() == {}


def test_a_match_stopped_before_its_bots_start_starts_none(tmp_path: Path, limits: SandboxLimits) -> None:
    bots = [write_bot(tmp_path / name, THINKER) for name in ("a", "b")]
    spec = MatchSpec(match_id="early", engine_id="count-test", options={"target": 50}, seed=1, seats=2, clock=LONG)
    stop = threading.Event()
    stop.set()
    with pytest.raises(MatchStopped):
        play_match(spec, bots, limits=limits, stop=stop)
    assert survivors() == {}
