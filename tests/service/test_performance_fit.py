"""The cached performance table: refit service, debounced requests, selector freshness, standings API fields."""

from __future__ import annotations

import html
import itertools
import re
from datetime import timedelta
from typing import Any

import pytest
from django.test import Client
from rest_framework.test import APIClient

from tests.service.conftest import ranks_by_version
from tournaments.competitions.models import PerformanceFit, Tournament
from tournaments.competitions.selectors.performance import tournament_performance
from tournaments.competitions.selectors.standings import tournament_standings
from tournaments.competitions.services import performance as service
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.dbclock import db_clock


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch, settings: Any) -> list[tuple[int, float]]:
    """Refit tasks that would have been sent: (tournament id, countdown)."""
    settings.ARBITER_PERFORMANCE_DEBOUNCE_S = 30
    calls: list[tuple[int, float]] = []
    monkeypatch.setattr(service, "_send", lambda *, tournament_id, countdown: calls.append((tournament_id, countdown)))
    return calls


def _tournament(user: Any, bots: list, **kwargs: Any) -> Tournament:
    kwargs.setdefault("game_id", "gamesup")
    tournament = tournament_create(owner=user, name="t", bot_ids=[b.id for b in bots], **kwargs)
    return tournament_start(tournament=tournament, user=user)


def _play_all(tournament: Tournament, play: Any, strongest: int, limit: int | None = None) -> None:
    """The strongest bot wins all its games; other games go to seat 0."""
    for k, match in enumerate(tournament.matches.order_by("index")):
        if limit is not None and k >= limit:
            return
        versions = {s.bot_version_id for s in match.match_seats.all()}
        play(match, ranks_by_version(match, strongest) if strongest in versions else [1] + [2] * (match.seats - 1))


def test_standings_api_carries_the_fit(user: Any, make_bot: Any, play: Any, sent: list) -> None:
    bots = [make_bot(owner="new") for _ in range(4)]
    tournament = _tournament(user, bots, games_per_pairing=2)
    strongest = bots[0].versions.get().id
    _play_all(tournament, play, strongest)
    body = APIClient().get(f"/api/tournaments/{tournament.id}/standings/").json()
    rows = body["standings"]
    assert rows[0]["bot_version"] == strongest
    for row in rows:
        assert row["ci_low"] < row["perf_elo"] < row["ci_high"]
    assert rows[0]["perf_elo"] == max(r["perf_elo"] for r in rows)
    assert all(0.0 <= r["los_next"] <= 1.0 for r in rows[:-1]) and rows[-1]["los_next"] is None
    mean_elo = sum(r["elo"] for r in rows) / len(rows)
    assert abs(sum(r["perf_elo"] for r in rows) / len(rows) - mean_elo) < 0.5
    assert body["performance_fit"]["first_move_advantage"] is not None


def test_refresh_stores_a_table_the_selector_uses_while_fresh(user: Any, make_bot: Any, play: Any, sent: list) -> None:
    bots = [make_bot(owner="new") for _ in range(3)]
    tournament = _tournament(user, bots, games_per_pairing=2)
    strongest = bots[0].versions.get().id
    total = tournament.matches.count()
    _play_all(tournament, play, strongest, limit=total - 1)
    row = service.performance_refresh(tournament_id=tournament.id)
    assert row.computed_at is not None and row.requested_at is None
    assert row.matches == total - 1
    order = [r["bot_version"] for r in tournament_standings(tournament=tournament)]
    cached = tournament_performance(tournament=tournament, order=order)
    assert cached["computed_at"] == row.computed_at.isoformat()
    assert set(cached["players"]) == {str(b.versions.get().id) for b in bots}
    # Another result: the stored table is stale, so the selector fits on the spot.
    last = tournament.matches.order_by("-index").first()
    play(last, [1, 2])
    order = [r["bot_version"] for r in tournament_standings(tournament=tournament)]
    fresh = tournament_performance(tournament=tournament, order=order)
    assert fresh["computed_at"] is None and fresh["matches"] == total
    # A different table order also bypasses the cache (LOS depends on it).
    service.performance_refresh(tournament_id=tournament.id)
    assert tournament_performance(tournament=tournament, order=order)["computed_at"] is not None
    assert tournament_performance(tournament=tournament, order=order[::-1])["computed_at"] is None


def test_requests_are_debounced_per_tournament(user: Any, make_bot: Any, sent: list) -> None:
    one = _tournament(user, [make_bot(owner="new") for _ in range(2)])
    two = _tournament(user, [make_bot(owner="new") for _ in range(2)])
    now = db_clock()
    assert service.performance_request_refit(tournament_id=one.id, now=now)
    assert not service.performance_request_refit(tournament_id=one.id, now=now + timedelta(seconds=10))
    assert service.performance_request_refit(tournament_id=two.id, now=now + timedelta(seconds=10))
    assert service.performance_request_refit(tournament_id=one.id, now=now + timedelta(seconds=31))
    assert sent == [(one.id, 30.0), (two.id, 30.0), (one.id, 30.0)]
    # The refit clears the pending request: the next result asks again at once.
    service.performance_refresh(tournament_id=two.id)
    assert service.performance_request_refit(tournament_id=two.id, now=now + timedelta(seconds=11))
    assert PerformanceFit.objects.count() == 2


def test_finished_match_hook(user: Any, make_bot: Any, play: Any, sent: list) -> None:
    tournament = _tournament(user, [make_bot(owner="new") for _ in range(2)])
    match = tournament.matches.order_by("index").first()
    play(match, [1, 2])
    assert service.performance_request_refit(tournament_id=match.tournament_id)
    assert not service.performance_request_refit(tournament_id=match.tournament_id)  # within the debounce window
    assert sent == [(tournament.id, 30.0)]


def test_three_player_sequence_table(user: Any, make_bot: Any, play: Any, sent: list) -> None:
    bots = [make_bot(owner="new", game="sequence") for _ in range(4)]
    tournament = _tournament(user, bots, game_id="sequence", seats=3, options={}, games_per_pairing=1)
    strongest = bots[0].versions.get().id
    _play_all(tournament, play, strongest)
    row = service.performance_refresh(tournament_id=tournament.id)
    players = row.payload["players"]
    assert max(players, key=lambda v: players[v]["perf_elo"]) == str(strongest)
    assert all(p["ci_low"] < p["perf_elo"] < p["ci_high"] for p in players.values())


def test_large_field_serves_the_stale_table_marked(
    user: Any, make_bot: Any, play: Any, sent: list, settings: Any
) -> None:
    settings.ARBITER_PERFORMANCE_LIVE_MAX_PLAYERS = 2  # make three bots count as "large"
    bots = [make_bot(owner="new") for _ in range(3)]
    tournament = _tournament(user, bots, games_per_pairing=2)
    strongest = bots[0].versions.get().id
    total = tournament.matches.count()
    # No table yet: fitted on the spot even for a large field.
    assert tournament_performance(tournament=tournament, order=[])["computed_at"] is None
    _play_all(tournament, play, strongest, limit=total - 1)
    row = service.performance_refresh(tournament_id=tournament.id)
    play(tournament.matches.order_by("-index").first(), [1, 2])
    order = row.payload["order"]
    stale = tournament_performance(tournament=tournament, order=order)
    assert stale["stale"] and stale["computed_at"] == row.computed_at.isoformat()
    assert stale["players"] == row.payload["players"]
    # Shown in another order: LOS over the next row comes from the stored matrix, the last row has none.
    swapped = [order[1], order[0], order[2]]
    shown = tournament_performance(tournament=tournament, order=swapped)
    assert shown["stale"] and shown["players"][str(swapped[2])]["los_next"] is None
    matrix = row.payload["los"]
    at = {v: k for k, v in enumerate(matrix["players"])}
    for here, below in itertools.pairwise(swapped):
        assert shown["players"][str(here)]["los_next"] == matrix["los"][at[here]][at[below]]
    assert shown["players"][str(order[0])]["perf_elo"] == row.payload["players"][str(order[0])]["perf_elo"]


def test_the_los_matrix_covers_every_pair_and_agrees_with_itself(user: Any, make_bot: Any, play: Any) -> None:
    from tournaments.competitions.selectors.standings import tournament_los, tournament_standings

    bots = [make_bot(owner="new") for _ in range(3)]
    tournament = _tournament(user, bots, games_per_pairing=2)
    strongest = bots[0].versions.get().id
    _play_all(tournament, play, strongest, limit=tournament.matches.count())
    table = tournament_los(tournament=tournament)
    order = [p["bot_version"] for p in table["participants"]]
    assert order == [r["bot_version"] for r in tournament_standings(tournament=tournament)]
    los = table["los"]
    for r in range(3):
        assert los[r][r] is None
        for c in range(3):
            if r != c:
                assert abs(los[r][c] + los[c][r] - 1.0) < 1e-3
    assert order[0] == strongest and los[0][1] > 0.5 and los[0][2] > 0.5
    # The standings' "LOS over the next row" is the matrix's entry for that pair.
    rows = tournament_standings(tournament=tournament)
    assert rows[0]["los_next"] == round(los[0][1], 4)
    # The tournament page shows the same matrix in percent.
    page = Client().get(f"/tournaments/{tournament.id}/").content.decode()
    shown = re.search(r'<table class="data crosstable" id="los">(.*?)</table>', page, re.S)
    assert shown is not None
    cells = re.findall(r'<td class="(?:num|self)">([^<]*)</td>', shown.group(1))
    expected = [("\u00d7" if value is None else f"{100 * value:.0f}") for row in los for value in row]
    assert [html.unescape(cell) for cell in cells] == expected
