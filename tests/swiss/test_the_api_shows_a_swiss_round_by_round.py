"""Over the API a Swiss is created with its rounds, and shows each round's pairings, results and bye."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import assert_error, client_for
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_the_api_shows_a_swiss_round_by_round(user: Any, make_bot: Any, play: Any) -> None:
    client = client_for(user)
    bots = [make_bot().id for _ in range(5)]
    body = {"game": "gamesup", "participants": bots, "format": "swiss", "games_per_pairing": 2, "start": True}
    too_many = client.post("/api/tournaments/", {**body, "rounds": 3}, format="json")
    assert assert_error(too_many, 400, "too_many_rounds")["fields"] == {"rounds": ["too many rounds"]}
    created = client.post("/api/tournaments/", {**body, "rounds": 2}, format="json")
    assert created.status_code == 201, created.json()
    tournament = created.json()
    assert (tournament["format"], tournament["rounds"], tournament["current_round"]) == ("swiss", 2, 1)
    assert tournament["planned"] == 2 * 2  # two pairings of two games; the fifth bot rests

    for match in Match.objects.filter(tournament_id=tournament["id"]).order_by("index"):
        assert play(match, [1, 2])  # the first seat wins: each pairing ends 1-1
    shown = client.get(f"/api/tournaments/{tournament['id']}/rounds/").json()
    assert (shown["rounds"], shown["current_round"]) == (2, 2)
    first, second = shown["round_list"]
    assert [len(first["pairings"]), len(second["pairings"])] == [2, 2]
    assert first["bye"] is not None and first["bye"] != second["bye"]
    assert all(p["first_points"] == p["second_points"] == 1.0 and p["done"] for p in first["pairings"])
    assert all(len(p["matches"]) == 2 for p in first["pairings"])
    # The bye's rest is worth a pairing won: two points, as many as anyone else has.
    standings = client.get(f"/api/tournaments/{tournament['id']}/standings/").json()["standings"]
    bye_row = next(r for r in standings if r["bot_version"] == first["bye"])
    assert (bye_row["byes"], bye_row["points"], bye_row["games"]) == (1, 2.0, 0)
