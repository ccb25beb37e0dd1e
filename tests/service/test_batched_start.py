"""A big round robin is inserted by a task in batches, never by the request that starts it."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.bots.services import bot_deactivate
from tournaments.competitions.models import Tournament
from tournaments.competitions.plans import round_robin_plan
from tournaments.competitions.services.filling import tournament_matches_fill, tournaments_unfilled
from tournaments.competitions.services.tournaments import (
    tournament_cancel,
    tournament_create,
    tournament_matches_insert,
    tournament_start,
)
from tournaments.competitions.tasks import tournament_fill
from tournaments.matches.models import Match


@pytest.fixture
def small_batches(settings: Any) -> None:
    settings.ARBITER_TOURNAMENT_INLINE_MATCHES = 4


def _start(user: Any, bots: list[Any]) -> Tournament:
    draft = tournament_create(
        owner=user, game_id="gamesup", name="big", bot_ids=[b.id for b in bots], games_per_pairing=1
    )
    return tournament_start(tournament=draft, user=user)


def test_the_request_inserts_nothing_and_the_task_inserts_the_plan(
    small_batches: None, user: Any, make_bot: Any
) -> None:
    bots = [make_bot(owner="new") for _ in range(5)]  # 10 matches: batches of 4, 4 and 2
    tournament = _start(user, bots)
    assert (tournament.status, tournament.planned, tournament.matches.count()) == ("running", 10, 0)
    assert tournaments_unfilled() == [tournament.id]
    assert tournament_fill(tournament.id) == 10  # the task, run here
    assert tournament_matches_fill(tournament_id=tournament.id) == 0  # again: nothing is added twice
    assert tournaments_unfilled() == []
    # The same matches and seats as a round robin inserted at once, each with a seed of its own.
    plan = round_robin_plan(participants=5, teams=2, games_per_group=1)
    versions = list(tournament.entries.order_by("number").values_list("bot_version_id", flat=True))
    got = [
        (m.index, tuple(m.match_seats.order_by("seat").values_list("bot_version_id", flat=True)))
        for m in tournament.matches.order_by("index")
    ]
    assert got == [(i, tuple(versions[p] for p in game)) for i, game in enumerate(plan)]
    assert len(set(tournament.matches.values_list("seed", flat=True))) == len(plan)
    assert set(tournament.matches.values_list("status", flat=True)) == {Match.Status.QUEUED}


def test_not_finished_while_matches_are_still_to_be_inserted(
    small_batches: None, user: Any, make_bot: Any, play: Any
) -> None:
    tournament = _start(user, [make_bot(owner="new") for _ in range(4)])  # 6 matches
    tournament_matches_insert(tournament=tournament, start=0, stop=4)  # as if the fill stopped after a batch
    for match in tournament.matches.all():
        play(match, [1, 2])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.RUNNING
    assert tournaments_unfilled() == [tournament.id]
    assert tournament_matches_fill(tournament_id=tournament.id) == 2
    for match in tournament.matches.filter(status=Match.Status.QUEUED):
        play(match, [1, 2])
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_a_cancelled_or_withdrawn_fill_adds_nothing_to_play(small_batches: None, user: Any, make_bot: Any) -> None:
    bots = [make_bot(owner="new") for _ in range(5)]
    cancelled = _start(user, bots)
    tournament_cancel(tournament=cancelled, user=user)
    assert tournament_matches_fill(tournament_id=cancelled.id) == 0 and not cancelled.matches.exists()
    running = _start(user, bots)
    bot_deactivate(bot=bots[0], user=bots[0].owner)
    assert tournament_matches_fill(tournament_id=running.id) == 10
    withdrawn = running.matches.filter(match_seats__bot_version__bot=bots[0])
    assert withdrawn.count() == 4 and set(withdrawn.values_list("status", flat=True)) == {Match.Status.CANCELLED}
    assert running.matches.filter(status=Match.Status.QUEUED).count() == 6


def test_small_round_robins_are_still_inserted_at_once(small_batches: None, user: Any, make_bot: Any) -> None:
    tournament = _start(user, [make_bot(owner="new") for _ in range(3)])  # 3 matches
    assert (tournament.planned, tournament.matches.count()) == (3, 3)
    assert tournaments_unfilled() == []
