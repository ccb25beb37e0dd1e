"""One run_next message plays the queued matches back to back, for up to ARBITER_RUN_LOOP_S, then stops.

A message and its acknowledgement per match cost a broker round trip between
every two matches; the worker claims the next fair pick itself instead, and
the messages left over find nothing (or the next match) later.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.test_tasks import needs_sandbox
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches import tasks
from tournaments.matches.models import Match
from tournaments.ratings.rebuild import ratings_differences


@pytest.fixture
def three(user: Any, other: Any, make_bot: Any) -> Tournament:
    bots = [make_bot(), make_bot(owner=other)]
    tournament = tournament_create(
        owner=user,
        game_id="gamesup",
        name="t",
        bot_ids=[b.id for b in bots],
        games_per_pairing=3,
        move_ms=2000,
        game_ms=20000,
        startup_ms=10000,
    )
    return tournament_start(tournament=tournament, user=user)


@needs_sandbox
def test_one_message_plays_every_queued_match_and_each_counts_once(three: Tournament, settings: Any) -> None:
    settings.ARBITER_RUN_LOOP_S = 600.0
    assert tasks.run_next() == "3 finished, 1 nothing queued"  # it went on until the queue was empty
    matches = list(three.matches.values_list("status", "attempt"))
    assert matches == [(Match.Status.FINISHED, 1)] * 3
    three.refresh_from_db()
    assert three.status == Tournament.Status.FINISHED
    assert ratings_differences()[0] == []
    assert tasks.run_next() == "nothing queued"


@needs_sandbox
def test_without_a_loop_a_message_plays_one_match(three: Tournament, settings: Any) -> None:
    settings.ARBITER_RUN_LOOP_S = 0.0
    assert tasks.run_next() == "finished"
    assert three.matches.filter(status=Match.Status.QUEUED).count() == 2
