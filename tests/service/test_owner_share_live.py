"""A share of the slots per owner, with real processes: one user's slow matches cannot keep every slot.

User S ("sol") starts a round robin of slow matches (every move takes half of
a 3 s clock) alone on one worker of two processes: S takes both slots.  User A
("ada") then starts four quick matches.  With taking turns alone, every slot an
A match frees goes round to S, whose matches never give theirs back soon, so A
waits a slow match for each of hers.  With the share (half of the 2 slots),
S holding one is passed over while A waits: A's first match starts within one
of S's match times, and all four are played in the slot S gives up, while S's
matches are still running and queued.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.faults.harness import SLOW_BOT, have_sandbox
from tests.live.fixtures import LiveFactory
from tests.waiting import wait_for

pytestmark = [pytest.mark.services, pytest.mark.slow]

START = """
import json
from django.contrib.auth import get_user_model
from tournaments.bots.services import bot_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
user, _ = get_user_model().objects.get_or_create(username={name!r})
source = json.loads({source!r}).encode()
bots = [bot_create(owner=user, game_id="gamesup", name=f"{name}{{i}}", package=source + b"#" * i,
                   filename="bot.py").bot for i in range({bots})]
t = tournament_create(owner=user, game_id="gamesup", name={name!r}, bot_ids=[b.id for b in bots],
                      options={{"max_plies": 16}}, games_per_pairing={games}, move_ms=3000, game_ms=60000)
t = tournament_start(tournament=t, user=user)
print(json.dumps({{"id": t.id, "owner": user.id, "matches": t.planned}}))
"""


def _start(procs: Any, name: str, *, bots: int, games: int, delay: float) -> dict[str, Any]:
    source = SLOW_BOT.replace("DELAY = 0.0", f"DELAY = {delay!r}")
    return procs.shell(START.format(name=name, source=json.dumps(source), bots=bots, games=games))


def test_a_slow_owner_holding_every_slot_leaves_one_to_another_owners_quick_matches(
    live_processes: LiveFactory,
) -> None:
    have_sandbox()
    procs = live_processes(workers=1, concurrency=2, tag="share")
    # 16 plies of 1.5 s: a match of about 24 s; 3 pairings x 2 games.
    slow = _start(procs, "sol", bots=3, games=2, delay=1.5)
    assert slow["matches"] == 6
    running = "SELECT count(*) FROM matches_match WHERE tournament_id = %s AND status = 'running'"
    wait_for(lambda: procs.scalar(running, [slow["id"]]) == 2, 120, "S to take both slots", every=0.05)

    quick = _start(procs, "ada", bots=2, games=4, delay=0.0)
    assert quick["matches"] == 4
    created = procs.scalar("SELECT created FROM competitions_tournament WHERE id = %s", [quick["id"]])
    finished = "SELECT count(*) FROM matches_match WHERE tournament_id = %s AND status = 'finished'"
    wait_for(lambda: procs.scalar(finished, [quick["id"]]) == 4, 300, "A's four matches to finish", every=0.2)

    times = "SELECT claimed_at, finished_at FROM matches_match WHERE tournament_id = %s AND claimed_at IS NOT NULL"
    a_runs = sorted(procs.query(times, [quick["id"]]))
    s_runs = sorted(procs.query(times, [slow["id"]]))
    a_first, a_last = a_runs[0][0], a_runs[-1][0]
    a_done = max(end for _, end in a_runs)
    s_lengths = [(end - start).total_seconds() for start, end in s_runs if end is not None]
    assert s_lengths, "no match of S finished before A's"
    s_match = max(s_lengths)
    a_match = max((end - start).total_seconds() for start, end in a_runs)
    started_after = (a_first - created).total_seconds()
    took = (a_done - created).total_seconds()
    print(f"S's matches take {s_match:.1f} s, A's {a_match:.1f} s; A's first started {started_after:.1f} s "
          f"and her last finished {took:.1f} s after her tournament was made")  # fmt: skip

    # S's matches are still being played: A did not wait for S's round robin.
    s_open = procs.scalar(
        "SELECT count(*) FROM matches_match WHERE tournament_id = %s AND (finished_at IS NULL OR finished_at > %s)",
        [slow["id"], a_done],
    )
    assert s_open >= 1
    # A's first match started within one of S's match times (when the first of S's two slots came free).
    assert started_after <= s_match + 2.0, (started_after, s_match)
    # While A's matches waited, S never took a slot while already holding its share (1 of 2).
    for claimed, _ in s_runs:
        if a_first <= claimed <= a_last:
            held = [r for r in s_runs if r[0] < claimed and (r[1] is None or r[1] > claimed)]
            assert held == [], f"S claimed at {claimed} while running {held}; A's claims {a_runs}"
    # So A's four matches went one after another in one slot, not one per slow match of S.
    assert took <= s_match + 4 * a_match + 5.0, (took, s_match, a_match)
