"""Cancelling a tournament stops its running matches within seconds, with real workers and bots.

Two users' slow bots (each move takes most of a long clock) play a rated
round robin of two matches on one worker of two processes, both matches at
once.  Once every bot has answered a turn, the owner cancels the tournament
over the API: within 5 s of the call both matches have left RUNNING and
every one of their bot processes is gone; they stay cancelled, nothing is
recorded for them, no rating moves, and the two freed processes play the
next tournament at once.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from tests.bot_processes import all_have_played, bots_under
from tests.faults.harness import have_sandbox
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

SLOW_BOT = (Path(__file__).parents[1] / "faults" / "bots" / "slow_bot.py").read_text()
STOPPED_WITHIN_S = 5.0


def _bot(delay: float) -> bytes:
    return SLOW_BOT.replace("DELAY = 0.0", f"DELAY = {delay!r}").encode()


def test_cancelling_a_tournament_stops_its_running_matches_within_seconds(live_processes: LiveFactory) -> None:
    have_sandbox()
    procs = live_processes(web="runserver", workers=1, concurrency=2, tag="cancel")
    api = procs.api()
    bots = []
    for name in ("cara", "dion"):
        api.token = api.post_json("/api/users/", {"username": name, "password": f"{name}-pass-phrase"})["token"]
        bots.append(api.upload_bot("gamesup", f"{name}-slow", "slow.py", _bot(1.5))["id"])
    owner = api.token
    # 20 moves a side of 1.5 s each: a match of a minute, within its clock (3 s a move).
    body = {"game": "gamesup", "name": "long", "participants": bots, "options": {"max_plies": 40},
            "games_per_pairing": 2, "move_ms": 3000, "game_ms": 120000, "start": True}  # fmt: skip
    tournament = api.post_json("/api/tournaments/", body)
    assert tournament["progress"]["total"] == 2

    running = "SELECT id, attempt, worker FROM matches_match WHERE tournament_id = %s AND status = 'running'"
    matches = wait_for(lambda: (rows := procs.query(running, [tournament["id"]])) and len(rows) == 2 and rows,
                       120, "both matches to run", every=0.1)  # fmt: skip
    pools = [int(worker.rsplit(":", 1)[1]) for _, _, worker in matches]
    wait_for(lambda: all(all_have_played(bots_under(pool)) for pool in pools), 60, "every bot to answer a turn", 0.05)

    called = time.monotonic()
    api.token = owner
    cancelled = api.post_json(f"/api/tournaments/{tournament['id']}/cancel/", {})
    assert cancelled["status"] == "cancelled"

    def stopped() -> bool:
        left = procs.scalar(
            "SELECT count(*) FROM matches_match WHERE tournament_id = %s AND status = 'running'", [tournament["id"]]
        )
        return left == 0 and all(bots_under(pool) == [] for pool in pools)

    wait_for(stopped, 30, "the matches to leave RUNNING and their bots to be gone", every=0.05)
    took = time.monotonic() - called
    print(f"stopped {took:.2f} s after the cancel call")
    assert took <= STOPPED_WITHIN_S, took

    # The workers said so, and recorded nothing afterwards.
    for match_id, attempt, _ in matches:
        said = f"match {match_id} attempt {attempt}: cancelled while it ran"
        wait_for(lambda s=said: s in procs.log("w1"), 30, f"'{said}' in the worker's log")
    rows = procs.query(
        "SELECT m.status, m.moves::text, m.result_reason, count(s.rank) FROM matches_match m "
        "JOIN matches_matchseat s ON s.match_id = m.id WHERE m.tournament_id = %s GROUP BY m.id",
        [tournament["id"]],
    )
    assert rows == [("cancelled", "[]", "", 0)] * 2, rows
    assert procs.scalar("SELECT count(*) FROM ratings_ratingchange") == 0
    assert procs.scalar("SELECT coalesce(sum(games), 0) FROM ratings_rating") == 0
    assert "dropping result" not in procs.log("w1")

    # The freed processes take the next work at once: two quick matches, played long before
    # the cancelled ones would have ended.
    quick = []
    for name in ("cara", "dion"):
        api.token = api.post_json("/api/auth/token/", {"username": name, "password": f"{name}-pass-phrase"})["token"]
        quick.append(api.upload_bot("gamesup", f"{name}-quick", "quick.py", _bot(0.0))["id"])
    body = {"game": "gamesup", "name": "next", "participants": quick, "games_per_pairing": 2, "start": True}
    following: Any = api.post_json("/api/tournaments/", body)
    done = api.wait_tournament(following["id"], 60)
    assert done["status"] == "finished" and done["progress"]["finished"] == 2, done
    print(f"the next tournament finished {time.monotonic() - called:.1f} s after the cancel call")
