"""Each standing names what placed it: points, then Sonneborn-Berger, then wins, then the name."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from tests.pages.support import finished_tournament, make_bot
from tournaments.competitions.selectors.standings import tournament_standings
from tournaments.games.services import game_sync

pytestmark = pytest.mark.django_db


def _expected(row: dict[str, Any], other: dict[str, Any]) -> str:
    for name, key in (("points", "points"), ("Sonneborn-Berger", "sonneborn_berger"), ("wins", "wins")):
        if row[key] != other[key]:
            return name
    return "name"


def test_every_standing_says_which_tie_break_placed_it() -> None:
    game_sync()
    owners = [get_user_model().objects.create_user(username=f"u{n}", password="pw") for n in range(6)]
    bots = [make_bot(owner=o, game="gamesup", name=f"bot{n}") for n, o in enumerate(owners)]
    # Six bots, one game a pairing: equal points are all but certain, and the page must say what split them.
    tournament = finished_tournament(owner=owners[0], game="gamesup", seats=2, options={"target": 13}, bots=bots)
    rows = tournament_standings(tournament=tournament, performance=False)
    assert [r["decided_by"] for r in rows[1:]] == [_expected(r, above) for above, r in itertools.pairwise(rows)]
    assert rows[0]["decided_by"] == _expected(rows[0], rows[1])
    assert any(r["decided_by"] != "points" for r in rows), [(r["points"], r["sonneborn_berger"]) for r in rows]
