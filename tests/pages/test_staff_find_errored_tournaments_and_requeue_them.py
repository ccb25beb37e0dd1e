"""In a real browser, staff filter the tournament list to those with errored matches, follow a tournament's count
to its page and re-queue them there; everyone sees the counts, and a filter value outside the choices is a 400
page that names the field."""

from __future__ import annotations

from typing import Any

import pytest

from tests.errored import started_tournament
from tests.pages.browser import screenshot
from tests.pages.support import make_bot
from tournaments.matches.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _rows(page: Any) -> dict[str, str]:
    """The listed tournaments' names with their errored counts."""
    names = page.locator("#tournaments tbody td:nth-child(2)").all_inner_texts()
    counts = page.locator("#tournaments tbody td.errored").all_inner_texts()
    return dict(zip(names, counts, strict=True))


def test_staff_find_errored_tournaments_and_requeue_them(context_of: Any, games: None, alice: Any, staff: Any) -> None:
    bots = [make_bot(owner=alice, game="gamesup", name=f"b{i}") for i in range(2)]
    started_tournament(owner=alice, bots=bots, name="clean")
    broken = started_tournament(owner=alice, bots=bots, name="broken", errored=2)

    anyone = context_of(None).new_page()
    anyone.goto("/tournaments/")
    assert _rows(anyone) == {"broken": "2", "clean": "0"}
    assert anyone.locator("td.errored a").count() == 0  # the re-queue is staff's

    page = context_of(staff).new_page()
    page.goto("/games/")
    page.click("#errored-tournaments")
    page.wait_for_url("**/tournaments/?errored=yes")
    assert page.input_value("#id_errored") == "yes"
    assert _rows(page) == {"broken": "2"}
    screenshot(page, "tournaments-errored-1280x800")
    page.select_option("#id_errored", "no")
    page.click("#tournament-filters button[type=submit]")
    page.wait_for_url("**/tournaments/?*errored=no*")
    assert _rows(page) == {"clean": "0"}

    page.goto("/tournaments/?errored=yes")
    page.click(f"tr[data-tournament='{broken.id}'] td.errored a")
    page.wait_for_url(f"**/tournaments/{broken.id}/#requeue-errored")
    page.click("#requeue-errored")
    page.wait_for_selector("text=Re-queued 2 errored matches.")
    assert set(Match.objects.filter(tournament=broken).values_list("status", flat=True)) == {"queued"}
    page.goto("/tournaments/?errored=yes")
    assert page.inner_text("#tournaments tbody") == "No tournament matches these filters."

    response = page.goto("/tournaments/?errored=maybe")
    assert response is not None and response.status == 400
    assert "maybe is not one of the available choices" in page.inner_text("#tournament-filters .error")
    assert page.locator("#tournaments").count() == 0
