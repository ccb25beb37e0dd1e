"""The create form makes a double elimination drawn at random, and its page shows the bracket and the placings."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_the_pages_create_and_show_a_double_elimination(user: Any, make_bot: Any, play: Any) -> None:
    client = Client()
    client.force_login(user)
    bots = [make_bot() for _ in range(4)]
    form = {
        "game": "gamesup", "name": "web ko", "seats": "2", "participants": [str(b.id) for b in bots],
        "format": "double_elimination", "seeding": "random", "games_per_pairing": "1", "move_ms": "1000",
        "game_ms": "60000", "startup_ms": "10000", "rated": "on", "start": "on",
    }  # fmt: skip
    # 2n - 1 = 7 pairings at most (the reset included), each with its game and up to three deciders.
    assert "<strong>28</strong> matches" in client.post("/tournaments/new/", {**form, "count": "1"}).content.decode()
    created = client.post("/tournaments/new/", {**form, "create": "1"})
    tournament = Tournament.objects.get()
    assert created["Location"] == f"/tournaments/{tournament.id}/"
    assert (tournament.format, tournament.seeding, tournament.status) == ("double_elimination", "random", "running")

    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "Double elimination, 1 game per pairing, seeded random draw" in page
    assert "Winners&#x27; bracket" in page and "Losers&#x27; bracket" in page and 'id="crosstable"' not in page
    assert 'data-key="W1-1"' in page and 'data-key="F2"' in page and 'id="placings"' not in page

    while queued := list(Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED)):
        for match in queued:
            assert play(match, [1, 2])
    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert 'id="placings"' in page and page.count('class="winner"') >= 6
