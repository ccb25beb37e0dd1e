"""Leaderboard error bars: each pool's whole-history fit, refreshed when its ratings move, shown around live Elo."""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.service.conftest import ranks_by_version
from tournaments.bots.models import Bot
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.fits import pool_fits_refresh, pool_games
from tournaments.ratings.models import PoolFit, PoolFitEntry
from tournaments.ratings.stats import Game, fit

POOL = "gamesup:target=21"


@pytest.fixture(autouse=True)
def _empty_cache() -> None:
    cache.clear()


def _bots(make_bot: Callable[..., Bot], n: int) -> list[Bot]:
    # One owner each: games between one owner's bots may be unrated.
    owners = [get_user_model().objects.create_user(username=f"owner{k}") for k in range(n)]
    return [make_bot(owner=owner) for owner in owners]


def _play(bots: list[Bot], play: Callable[..., bool], games_per_pairing: int) -> list[Match]:
    """A staff-run round robin (rated in the public pool) where the first bot wins, the second draws the third..."""
    owner, _ = get_user_model().objects.get_or_create(username="referee", defaults={"is_staff": True})
    tournament = tournament_create(
        owner=owner, game_id="gamesup", name="t", bot_ids=[b.id for b in bots], games_per_pairing=games_per_pairing
    )
    tournament_start(tournament=tournament, user=owner)
    matches = list(tournament.matches.order_by("index"))
    strongest = bots[0].versions.get().id
    for k, match in enumerate(matches):
        versions = set(MatchSeat.objects.filter(match=match).values_list("bot_version_id", flat=True))
        winner = strongest if strongest in versions else (None if k % 3 else min(versions))
        play(match, ranks_by_version(match, winner))
    return matches


def _board(client: APIClient) -> dict[int, dict[str, Any]]:
    return {row["bot_version"]: row for row in client.get(f"/api/ratings/?game=gamesup&pool={POOL}").json()["results"]}


def test_error_bars_come_from_the_pools_fit_and_surround_live_elo(
    make_bot: Callable[..., Bot], play: Callable[..., bool]
) -> None:
    bots = _bots(make_bot, 4)
    _play(bots, play, games_per_pairing=6)
    client = APIClient()
    before = _board(client)
    assert {row["elo_stderr"] for row in before.values()} == {None}
    unfitted = client.get(f"/games/gamesup/leaderboard/?pool={POOL}").content.decode()
    assert unfitted.count('<td class="num margin">\u2013</td>') == 4

    assert pool_fits_refresh() == [POOL]
    board = _board(client)

    # A recomputation from the stored matches with the statistics module's exact fit
    # (at most 150 players the pool fit is that fit).
    seats = MatchSeat.objects.filter(match__rating_pool=POOL).order_by("match_id", "seat")
    by_match: dict[int, list[MatchSeat]] = {}
    for seat in seats:
        by_match.setdefault(seat.match_id, []).append(seat)
    games = [Game(tuple(s.bot_version_id for s in row), tuple(s.rank for s in row)) for row in by_match.values()]
    assert len(games) == 36 and games == pool_games(pool=POOL)
    expected = fit(games, players=sorted(board), anchor=1500.0, first_mover=True)
    stderr = {row.player: row.stderr for row in expected.table}
    for version, row in board.items():
        assert row["elo_stderr"] == pytest.approx(stderr[version], rel=1e-9)
        assert row["elo_low"] == pytest.approx(row["elo"] - 1.959964 * row["elo_stderr"], abs=1e-4)
        assert row["elo_high"] == pytest.approx(row["elo"] + 1.959964 * row["elo_stderr"], abs=1e-4)
        # 18 games each: an interval of some tens of Elo, draws narrowing it.
        assert 40 < row["elo_stderr"] < 200
    fitted = PoolFit.objects.get(pool=POOL)
    assert (fitted.matches, fitted.players, fitted.games_total) == (36, 4, 72)

    # The page shows half the interval beside each Elo, rounded to whole points.
    page = client.get(f"/games/gamesup/leaderboard/?pool={POOL}").content.decode()
    margins = re.findall(r'<td class="num margin">([^<]*)</td>', page)
    half = sorted(round((row["elo_high"] - row["elo_low"]) / 2) for row in board.values())
    assert sorted(int(m) for m in margins) == half


def test_a_pool_is_refitted_only_when_its_ratings_have_moved(
    make_bot: Callable[..., Bot], play: Callable[..., bool]
) -> None:
    bots = _bots(make_bot, 3)
    _play(bots[:2], play, games_per_pairing=2)
    assert pool_fits_refresh() == [POOL]
    first = PoolFit.objects.get(pool=POOL)
    assert pool_fits_refresh() == []

    _play(bots, play, games_per_pairing=2)
    assert pool_fits_refresh() == [POOL]
    second = PoolFit.objects.get(pool=POOL)
    assert second.fitted_at > first.fitted_at
    assert (second.matches, second.players) == (8, 3)
    # Every version with games has one entry; a second refit replaces rather than adds.
    assert PoolFitEntry.objects.filter(pool=POOL).count() == 3


def test_matches_that_are_not_rated_are_not_in_the_fit(make_bot: Callable[..., Bot], play: Callable[..., bool]) -> None:
    bots = _bots(make_bot, 2)
    rated = _play(bots, play, games_per_pairing=2)
    unrated = tournament_create(
        owner=bots[0].owner, game_id="gamesup", name="u", bot_ids=[b.id for b in bots], rated=False
    )
    tournament_start(tournament=unrated, user=bots[0].owner)
    for match, winner in zip(unrated.matches.order_by("index"), itertools.cycle([1, 2]), strict=False):
        play(match, [winner, 3 - winner])
    assert len(pool_games(pool=POOL)) == len(rated)
