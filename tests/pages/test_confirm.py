"""Destructive buttons ask first, in a real browser: dismissing keeps things as they were."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from tests.pages.support import make_bot
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_cancelling_a_tournament_asks_first(page: Any, live_server: Any, games: None, alice: Any) -> None:
    bots = [make_bot(owner=alice, game="gamesup", name=f"c{i}") for i in range(2)]
    tournament = tournament_create(owner=alice, game_id="gamesup", name="to cancel", bot_ids=[b.id for b in bots])
    client = Client()
    client.force_login(alice)
    page.context.add_cookies(
        [{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}]
    )
    page.goto(f"/tournaments/{tournament.id}/")
    assert page.locator("#live button:has-text('Start')").count() == 1
    page.once("dialog", lambda dialog: dialog.dismiss())
    page.click("#live button:has-text('Cancel')")
    # click() waits for any navigation the click starts, so a post sent anyway would have landed by now.
    assert page.locator("text=Cancelled: queued matches will not play.").count() == 0
    assert Tournament.objects.get(pk=tournament.pk).status == "draft"
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#live button:has-text('Cancel')")
    page.wait_for_selector("text=Cancelled: queued matches will not play.")
    assert Tournament.objects.get(pk=tournament.pk).status == "cancelled"
    assert page.locator("#live button:has-text('Cancel')").count() == 0
