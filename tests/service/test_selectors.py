"""Standings and crosstable: values on a small case, and a constant number of queries."""

from __future__ import annotations

from typing import Any

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.service.conftest import ranks_by_version
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.standings import tournament_crosstable, tournament_standings
from tournaments.competitions.services.tournaments import tournament_create, tournament_start


def _tournament(user: Any, bots: list, **kwargs: Any) -> Tournament:
    kwargs.setdefault("game_id", "gamesup")
    tournament = tournament_create(owner=user, name="t", bot_ids=[b.id for b in bots], **kwargs)
    return tournament_start(tournament=tournament, user=user)


def test_standings_by_hand(user: Any, make_bot: Any, play: Any) -> None:
    a, b, c = (make_bot(owner="new", name=n) for n in "abc")
    tournament = _tournament(user, [a, b, c], games_per_pairing=1)
    version = {bot.name: bot.versions.get().id for bot in (a, b, c)}
    for match in tournament.matches.order_by("index"):
        pair = {s.bot_version_id for s in match.match_seats.all()}
        if pair == {version["a"], version["b"]}:
            play(match, ranks_by_version(match, version["a"]))  # a beats b
        elif pair == {version["a"], version["c"]}:
            play(match, ranks_by_version(match, None))  # a draws c
        else:
            # b beats c because c forfeits on time.
            seats = list(match.match_seats.order_by("seat"))
            statuses = ["timeout" if s.bot_version_id == version["c"] else "ok" for s in seats]
            play(match, ranks_by_version(match, version["b"]), statuses)
    rows = {r["bot_name"]: r for r in tournament_standings(tournament=tournament)}
    assert [r["bot_name"] for r in tournament_standings(tournament=tournament)] == ["a", "b", "c"]
    assert (rows["a"]["points"], rows["a"]["wins"], rows["a"]["draws"], rows["a"]["losses"]) == (1.5, 1, 1, 0)
    assert (rows["b"]["points"], rows["c"]["points"]) == (1.0, 0.5)
    assert rows["a"]["score_percent"] == 75.0
    # S-B: a = 1 x b(1.0) + 0.5 x c(0.5) = 1.25; b = 1 x c(0.5); c = 0.5 x a(1.5).
    assert (rows["a"]["sonneborn_berger"], rows["b"]["sonneborn_berger"], rows["c"]["sonneborn_berger"]) == (
        1.25,
        0.5,
        0.75,
    )
    assert rows["c"]["forfeits"] == {"timeout": 1} and rows["a"]["forfeits"] == {}
    assert rows["a"]["elo"] > 1500 > rows["c"]["elo"]
    table = tournament_crosstable(tournament=tournament)
    assert [p["bot_name"] for p in table["participants"]] == ["a", "b", "c"]
    assert table["rows"][0]["cells"] == [None, {"points": 1.0, "games": 1}, {"points": 0.5, "games": 1}]
    assert table["rows"][2]["cells"][1] == {"points": 0.0, "games": 1}


def _queries(tournament: Tournament, performance: bool = False) -> int:
    with CaptureQueriesContext(connection) as ctx:
        tournament_standings(tournament=tournament, performance=performance)
        tournament_crosstable(tournament=tournament)
    return len(ctx.captured_queries)


@pytest.mark.parametrize("seats,options,game", [(2, {}, "gamesup"), (4, {"teams": 2}, "sequence")])
def test_query_count_is_constant(user: Any, make_bot: Any, play: Any, seats: int, options: dict, game: str) -> None:
    small = _tournament(user, [make_bot(game=game) for _ in range(2)], game_id=game, seats=seats, options=options)
    large = _tournament(user, [make_bot(game=game) for _ in range(7)], game_id=game, seats=seats, options=options)
    for tournament in (small, large):
        for i, match in enumerate(tournament.matches.order_by("index")):
            ranks = [1] * seats if i % 3 == 0 else [1 + (s % 2) for s in range(seats)]
            play(match, ranks)
    assert large.matches.count() > 10 * small.matches.count()
    cache.clear()
    # Computed: the inputs' stamp, the results (4) and the fit (a few more), once for both selectors.
    assert _queries(small) == _queries(large)
    # Served from the cache: the stamp, one statement per selector.
    assert _queries(small) == _queries(large) == 2
    # With the performance table (fitted on the spot: no stored fit yet), still a constant count.
    cache.clear()
    assert _queries(small, performance=True) == _queries(large, performance=True)


def test_standings_carry_performance(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(owner="new") for _ in range(3)]
    tournament = _tournament(user, bots, games_per_pairing=2)
    strongest = bots[0].versions.get().id
    for match in tournament.matches.order_by("index"):
        seats = list(match.match_seats.order_by("seat"))
        if strongest in {s.bot_version_id for s in seats}:
            play(match, ranks_by_version(match, strongest))
        else:
            play(match, [1, 2])
    rows = tournament_standings(tournament=tournament)
    assert rows[0]["bot_version"] == strongest
    # One performance rating per row (the whole-tournament fit), no older duplicate.
    assert all("performance" not in r for r in rows)
    assert rows[0]["perf_elo"] > rows[1]["perf_elo"] and rows[0]["ci_low"] < rows[0]["perf_elo"] < rows[0]["ci_high"]
    assert 0.5 < rows[0]["los_next"] <= 1 and rows[-1]["los_next"] is None
    mean_elo = sum(r["elo"] for r in rows) / 3
    assert abs(sum(r["perf_elo"] for r in rows) / 3 - mean_elo) < 0.2
