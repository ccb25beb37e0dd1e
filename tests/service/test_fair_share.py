"""A fair share of the workers, with real processes: one user's single match does not wait behind another's 10,000.

User B starts a round robin of about 10,000 matches; while the (one) worker
plays B's first, user A starts a tournament of a single match.  A's match
must be the next one the worker takes: it finishes within the time of two
matches (B's running one, then A's), measured against B's own match
durations in the same run.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.faults.harness import have_sandbox
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

SLOW_BOT = (
    (Path(__file__).parents[1] / "faults" / "bots" / "slow_bot.py").read_text().replace("DELAY = 0.0", "DELAY = 0.15")
)

START = """
import json
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
user, _ = get_user_model().objects.get_or_create(username={name!r})
source = json.loads({source!r}).encode()
bots = [bot_create(owner=user, game_id="gamesup", name=f"{name}{{i}}", package=source + b"#" * i,
                   filename="slow.py").bot for i in range({bots})]
t = tournament_create(owner=user, game_id="gamesup", name={name!r}, bot_ids=[b.id for b in bots],
                      options={{"max_plies": 8}}, games_per_pairing={games}, move_ms=3000, game_ms=30000)
t = tournament_start(tournament=t, user=user)
print(json.dumps({{"id": t.id, "matches": t.planned}}))
"""


def _start(procs: Any, name: str, bots: int, games: int) -> dict[str, Any]:
    return procs.shell(START.format(name=name, source=json.dumps(SLOW_BOT), bots=bots, games=games))


def test_a_single_match_goes_ahead_of_ten_thousand(live_processes: Any) -> None:
    have_sandbox()
    procs = live_processes(workers=1, concurrency=1, tag="fair")
    big = _start(procs, "bee", bots=15, games=95)  # 105 pairings x 95 games
    assert big["matches"] == 9975  # planned; a task inserts them in batches after the start
    running = "SELECT count(*) FROM matches_match WHERE tournament_id = %s AND status = 'running'"
    wait_for(lambda: procs.scalar(running, [big["id"]]) == 1, 120, "B's first match to start", every=0.05)

    small = _start(procs, "ada", bots=2, games=1)
    # A moment of the database's clock after A's match is committed: every claim from then on sees it. (The shell
    # that starts A takes a second or two; B's running match may end meanwhile and the next of B's go first.)
    visible = procs.scalar("SELECT clock_timestamp()")
    created = procs.scalar("SELECT created FROM competitions_tournament WHERE id = %s", [small["id"]])
    done = "SELECT finished_at FROM matches_match WHERE tournament_id = %s AND status = 'finished'"
    wait_for(lambda: procs.query(done, [small["id"]]), 300, "A's match to finish", every=0.1)
    waited = (procs.scalar(done, [small["id"]]) - created).total_seconds()

    # How long one match takes here, from B's matches played meanwhile (claim to finish).
    wait_for(lambda: procs.scalar(
        "SELECT count(*) FROM matches_match WHERE tournament_id = %s AND status = 'finished'", [big["id"]]
    ) >= 2, 120, "two of B's matches to finish", every=0.1)  # fmt: skip
    longest = procs.scalar(
        "SELECT max(extract(epoch FROM finished_at - claimed_at)) FROM matches_match "
        "WHERE tournament_id = %s AND status = 'finished'",
        [big["id"]],
    )
    b_ahead_of_a = procs.scalar(
        "SELECT count(*) FROM matches_match m WHERE m.tournament_id = %s AND m.claimed_at > %s AND m.claimed_at < "
        "(SELECT claimed_at FROM matches_match WHERE tournament_id = %s)",
        [big["id"], visible, small["id"]],
    )
    assert b_ahead_of_a == 0, "none of B's queued matches was claimed once A's was there to claim"
    print(f"A waited {waited:.2f} s; the longest of B's matches took {float(longest):.2f} s")
    assert waited <= 2 * float(longest) + 1.0, (waited, longest)
    inserted = "SELECT count(*) FROM matches_match WHERE tournament_id = %s"
    wait_for(lambda: procs.scalar(inserted, [big["id"]]) == 9975, 120, "B's round robin to be inserted", every=0.2)
