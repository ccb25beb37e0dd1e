"""Standings and crosstable are served from the cache until one of their inputs changes, never older."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache

from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.standings import tournament_table
from tournaments.competitions.services.tournaments import tournament_create, tournament_start


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def _started(owner: Any, bots: list) -> Tournament:
    tournament = tournament_create(owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in bots])
    return tournament_start(tournament=tournament, user=owner)


def _recomputed(tournament: Tournament) -> dict[str, Any]:
    cache.clear()
    return tournament_table(tournament=tournament)


def test_a_recorded_result_shows_in_the_next_read(staff: Any, make_bot: Any, play: Any) -> None:
    tournament = _started(staff, [make_bot(owner="new") for _ in range(3)])
    before = tournament_table(tournament=tournament)
    assert tournament_table(tournament=tournament) == before  # served again
    play(tournament.matches.order_by("index").first(), [1, 2])
    after = tournament_table(tournament=tournament)
    assert after != before
    assert sum(row["games"] for row in after["standings"]) == 2
    assert after == _recomputed(tournament)


def test_a_rating_changed_by_another_tournament_shows(staff: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(owner="new") for _ in range(2)]
    watched, other = _started(staff, bots), _started(staff, bots)
    before = tournament_table(tournament=watched)
    assert {row["elo"] for row in before["standings"]} == {None}
    play(other.matches.order_by("index").first(), [1, 2])  # rated in the same public pool
    after = tournament_table(tournament=watched)
    assert {row["elo"] for row in after["standings"]} != {None}
    assert after == _recomputed(watched)
