"""The admin shows standings and crosstable, links to the public pages, and the bot's rating chart."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.pages.support import finished_tournament, make_bot
from tournaments.models import Match

pytestmark = pytest.mark.django_db


def test_admin_pages_link_to_the_public_ones(client: Client, games: None, alice: Any, bob: Any) -> None:
    admin = get_user_model().objects.create_superuser(username="boss", password="boss-pw")
    bots = [make_bot(owner=alice, game="hexstacks", name="one"), make_bot(owner=bob, game="hexstacks", name="two")]
    tournament = finished_tournament(owner=alice, game="hexstacks", seats=2, options={"size": 3}, bots=bots)
    match = Match.objects.filter(tournament=tournament).get()
    client.force_login(admin)

    page = client.get(f"/admin/tournaments/tournament/{tournament.id}/change/").content.decode()
    assert "Standings" in page and "Crosstable" in page and "one v1" in page
    assert f'href="/tournaments/{tournament.id}/"' in page

    page = client.get(f"/admin/tournaments/bot/{bots[0].id}/change/").content.decode()
    assert 'class="rating-chart"' in page and "<polyline" in page
    assert f'href="/bots/{bots[0].id}/"' in page

    page = client.get(f"/admin/tournaments/match/{match.id}/change/").content.decode()
    assert f'href="/matches/{match.id}/"' in page

    # The "View on site" button of the change form goes there too.
    assert f'href="/matches/{match.id}/" class="viewsitelink"' in page
