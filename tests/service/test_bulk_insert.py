"""Matches made in bulk are the rows Django would have saved one by one, in the lineups' order, over many batches."""

from __future__ import annotations

from typing import Any

import pytest

from tournaments.matches import bulk
from tournaments.matches.life import Lineup, MatchConfig, matches_create
from tournaments.matches.models import Match, MatchSeat
from workers.match import Clock


def test_matches_and_seats_are_whole_rows_in_lineup_order(
    user: Any, make_bot: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bulk, "BATCH", 3)  # seven matches and fourteen seats: several statements each
    a, b, c = (make_bot(owner="new").versions.get().id for _ in range(3))
    config = MatchConfig(
        kind=Match.Kind.CHALLENGE, game_id="gamesup", options={"size": 3}, seats=2, teams=[[0], [1]],
        rating_pool="gamesup", rated=True, clock=Clock(move_ms=700, game_ms=9000, startup_ms=3000),
        owner_id=user.id, priority=2,
    )  # fmt: skip
    pairs = [(a, b), (b, c), (c, a), (a, c), (b, a), (c, b), (a, b)]
    lineups = [Lineup(versions=pair, seed=1000 + n, index=n) for n, pair in enumerate(pairs)]

    ids = matches_create(config=config, lineups=lineups)

    assert len(set(ids)) == 7
    matches = Match.objects.in_bulk(ids)
    for n, match_id in enumerate(ids):
        match = matches[match_id]
        assert (match.index, match.seed, match.rated) == (n, 1000 + n, True)
        assert (match.kind, match.owner_id, match.priority, match.options) == ("challenge", user.id, 2, {"size": 3})
        assert (match.move_ms, match.game_ms, match.startup_ms) == (700, 9000, 3000)
        # The model's defaults, as a save would have written them.
        assert (match.status, match.attempt, match.moves, match.worker) == ("queued", 0, [], "")
        assert match.created is not None and match.tournament_id is None
        seats = list(MatchSeat.objects.filter(match_id=match_id).order_by("seat"))
        assert [(s.seat, s.team, s.bot_version_id) for s in seats] == [(0, 0, pairs[n][0]), (1, 1, pairs[n][1])]
        assert all(s.rank is None and s.status == "" for s in seats)
