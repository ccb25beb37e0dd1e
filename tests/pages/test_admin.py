"""The admin shows standings and crosstable, links to the public pages, and the bot's rating chart."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.pages.support import finished_tournament, make_bot
from tournaments.matches.models import Match

pytestmark = pytest.mark.django_db


def test_admin_pages_link_to_the_public_ones(client: Client, games: None, alice: Any, bob: Any) -> None:
    admin = get_user_model().objects.create_superuser(username="boss", password="boss-pw")
    bots = [make_bot(owner=alice, game="hexstacks", name="one"), make_bot(owner=bob, game="hexstacks", name="two")]
    tournament = finished_tournament(owner=alice, game="hexstacks", seats=2, options={"size": 3}, bots=bots)
    match = Match.objects.filter(tournament=tournament).get()
    client.force_login(admin)

    page = client.get(f"/admin/competitions/tournament/{tournament.id}/change/").content.decode()
    assert "Standings" in page and "Crosstable" in page and "one v1" in page
    assert f'href="/tournaments/{tournament.id}/"' in page

    page = client.get(f"/admin/bots/bot/{bots[0].id}/change/").content.decode()
    assert 'class="rating-chart"' in page and "<polyline" in page
    assert f'href="/bots/{bots[0].id}/"' in page

    page = client.get(f"/admin/matches/match/{match.id}/change/").content.decode()
    assert f'href="/matches/{match.id}/"' in page

    # The "View on site" button of the change form goes there too.
    assert f'href="/matches/{match.id}/" class="viewsitelink"' in page


def test_admin_addresses_from_before_the_split_redirect(client: Client, admin_user: Any) -> None:
    client.force_login(admin_user)
    moved = client.get("/admin/tournaments/match/12/change/?a=1")
    assert moved.status_code == 301 and moved["Location"] == "/admin/matches/match/12/change/?a=1"
    assert client.get("/admin/tournaments/tournamentschedule/")["Location"] == "/admin/competitions/tournamentschedule/"
    assert client.get("/admin/tournaments/nosuchmodel/").status_code == 404
