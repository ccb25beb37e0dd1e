"""Over the API, a single elimination of six bots seeded by rating: the top two seeds have byes, the bracket
plays five pairings and places 1, 2, 3, 3, 5, 5."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import client_for
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.models import Rating

pytestmark = pytest.mark.django_db


def test_single_elimination_gives_the_byes_to_the_top_seeds(user: Any, make_bot: Any, play: Any) -> None:
    client = client_for(user)
    bots = [make_bot() for _ in range(6)]
    body = {"game": "gamesup", "participants": [b.id for b in bots], "format": "knockout", "games_per_pairing": 1}
    created = client.post("/api/tournaments/", body, format="json")
    assert created.status_code == 201, created.json()
    tournament = created.json()
    # Rated bots are seeded by their rating in the tournament's pool: the last two entered are the best.
    versions = [p["bot_version"] for p in tournament["participants"]]
    for elo, version in ((1900.0, versions[5]), (1800.0, versions[4]), (1700.0, versions[3])):
        Rating.objects.create(pool=tournament["rating_pool"], bot_version_id=version, elo=elo)
    started = client.post(f"/api/tournaments/{tournament['id']}/start/", format="json").json()
    assert started["seeding"] == "rating" and started["planned"] == 2  # two first-round pairings; two byes

    bracket = client.get(f"/api/tournaments/{tournament['id']}/bracket/").json()
    byes = [n for n in bracket["nodes"] if n["bye"]]
    assert sorted(n["winner"]["bot_version"] for n in byes) == sorted([versions[5], versions[4]])
    assert {n["winner"]["seed"] for n in byes} == {1, 2}
    seeds = {e["bot_version"]: e["seed"] for n in bracket["nodes"] for e in (n["first"], n["second"]) if e}
    assert seeds[versions[3]] == 3

    while queued := list(Match.objects.filter(tournament_id=tournament["id"], status=Match.Status.QUEUED)):
        for match in queued:
            seats = list(
                MatchSeat.objects.filter(match=match).order_by("seat").values_list("bot_version_id", flat=True)
            )
            assert play(
                match, [1 if seeds[seats[0]] < seeds[seats[1]] else 2, 1 if seeds[seats[1]] < seeds[seats[0]] else 2]
            )
    bracket = client.get(f"/api/tournaments/{tournament['id']}/bracket/").json()
    assert sum(1 for n in bracket["nodes"] if n["matches"]) == 5
    assert [(p["place"], p["seed"]) for p in bracket["placings"]] == [(1, 1), (2, 2), (3, 3), (3, 4), (5, 5), (5, 6)]
    assert client.get(f"/api/tournaments/{tournament['id']}/").json()["status"] == "finished"
