"""The referee tells a listener of the start position and of every move, and a failing listener harms nothing.

The worker's live view (tournaments/matches/live.py) hangs on this: whatever
it does wrong, the match is played and recorded as if nobody watched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import engines
from tests.referee.support import FAST, random_bot
from workers.match import MatchSpec, MoveRecord
from workers.referee.play import play_match
from workers.sandbox.limits import SandboxLimits


def test_a_listener_hears_every_ply_and_its_failure_changes_nothing(tmp_path: Path, limits: SandboxLimits) -> None:
    heard: list[tuple[int, Any, MoveRecord | None]] = []

    def listener(state: engines.State, move: MoveRecord | None) -> None:
        heard.append((state.ply, state.public_observation(), move))
        if len(heard) % 3 == 0:
            raise RuntimeError("the spectators' store is down")

    spec = MatchSpec(match_id="listened", engine_id="count-test", options={"target": 10}, seed=3, seats=2, clock=FAST)
    bots = [random_bot(tmp_path / "a"), random_bot(tmp_path / "b")]
    record = play_match(spec, bots, limits=limits, on_move=listener)

    assert [s.status for s in record.seat_records] == ["ok", "ok"] and record.reason == "target reached"
    assert [move for _, _, move in heard] == [None, *record.moves]
    replay = record.replay()
    assert [ply for ply, _, _ in heard] == list(range(len(record.moves) + 1))
    assert heard[-1][1] == replay.final_state().public_observation()
