"""The create form makes a Swiss, and its page shows the rounds (pairings, results, bye) and Buchholz."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_the_pages_create_and_show_a_swiss(user: Any, make_bot: Any, play: Any) -> None:
    client = Client()
    client.force_login(user)
    bots = [make_bot() for _ in range(5)]
    form = {
        "game": "gamesup", "name": "web swiss", "seats": "2", "participants": [str(b.id) for b in bots],
        "format": "swiss", "rounds": "2", "games_per_pairing": "1", "move_ms": "1000", "game_ms": "60000",
        "startup_ms": "10000", "rated": "on", "start": "on",
    }  # fmt: skip
    # Two rounds of two pairings, one game each: at most four matches.
    assert "<strong>4</strong> matches" in client.post("/tournaments/new/", {**form, "count": "1"}).content.decode()
    created = client.post("/tournaments/new/", {**form, "create": "1"})
    tournament = Tournament.objects.get()
    assert created["Location"] == f"/tournaments/{tournament.id}/"
    assert (tournament.format, tournament.rounds, tournament.status) == ("swiss", 2, "running")

    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "Swiss, 1 game per pairing, 2 rounds" in page
    assert "Round 1 of 2" in page and 'data-round="1"' in page and 'data-round="2"' not in page
    assert "Bye: " in page and "Buch." in page and 'id="crosstable"' not in page

    for match in Match.objects.filter(tournament=tournament):
        assert play(match, [1, 2])
    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "Round 2 of 2" in page and 'data-round="2"' in page
    assert page.count('class="pairing done"') == 2  # round 1's, played; round 2's wait
