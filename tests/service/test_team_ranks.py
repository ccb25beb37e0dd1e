"""Team games' stored ranks count teams ([1, 2, 1, 2]); the data migration renumbers older results."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from django.apps import apps as real_apps

from tests.recording import record_for
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.models import MatchSeat
from tournaments.matches.record import match_record_result

pytestmark = pytest.mark.django_db

migration = importlib.import_module("tournaments.matches.migrations.0006_team_ranks")


def _team_match(user: Any, make_bot: Any) -> Any:
    bots = [make_bot(game="sequence") for _ in range(2)]
    tournament = tournament_create(
        owner=user, game_id="sequence", name="t", bot_ids=[b.id for b in bots], seats=4, options={"teams": 2},
        games_per_pairing=1,
    )  # fmt: skip
    return tournament_start(tournament=tournament, user=user).matches.order_by("index").first()


def test_a_forfeit_in_a_team_game_ranks_teams(user: Any, make_bot: Any) -> None:
    match = _team_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    # The referee's forfeit numbering (workers.referee.play.forfeit_ranks) for seat 1's team losing:
    from workers.referee.play import forfeit_ranks

    ranks = forfeit_ranks([[0, 2], [1, 3]], 4, {1})
    assert ranks == [1, 2, 1, 2]
    assert match_record_result(match_id=match.id, attempt=attempt, record=record_for(match, ranks))
    stored = list(MatchSeat.objects.filter(match=match).order_by("seat").values_list("rank", flat=True))
    assert stored == [1, 2, 1, 2]


def test_the_migration_renumbers_seat_counted_ranks_once(user: Any, make_bot: Any) -> None:
    match = _team_match(user, make_bot)
    attempt = match_claim(match_id=match.id, worker="w")
    assert match_record_result(match_id=match.id, attempt=attempt, record=record_for(match, [1, 2, 1, 2]))
    MatchSeat.objects.filter(match=match, seat__in=[1, 3]).update(rank=3)  # as stored before
    migration.ranks_by_team(real_apps, None)
    stored = list(MatchSeat.objects.filter(match=match).order_by("seat").values_list("rank", flat=True))
    assert stored == [1, 2, 1, 2]
    migration.ranks_by_team(real_apps, None)  # twice changes nothing
    assert list(MatchSeat.objects.filter(match=match).order_by("seat").values_list("rank", flat=True)) == stored
