"""A double elimination in the browser: made on the form (the match count first), then its bracket and placings on
the tournament page, as the recorded results make them."""

from __future__ import annotations

from typing import Any

import pytest

from kit import REFERENCE_BOTS
from tests.pages.browser import screenshot
from tests.recording import record_for
from tournaments.bots.services import bot_create
from tournaments.competitions.models import Tournament
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.record import match_record_result

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_knockout_from_the_form_to_its_bracket(context_of: Any, alice: Any, bob: Any, games: None) -> None:
    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    names = ["ko-a", "ko-b", "ko-c"]
    for owner, name in zip((alice, bob, bob), names, strict=True):
        bot_create(owner=owner, game_id="gamesup", name=name, package=package, filename="random_bot.py")
    page = context_of(alice).new_page()
    page.goto("/tournaments/new/?game=gamesup")
    page.fill("#id_name", "browser knockout")
    page.select_option("#id_format", "double_elimination")
    for label in names:
        page.locator("#participants li", has_text=label).locator("input").check()
    page.fill("#id_games_per_pairing", "1")
    page.locator("#id_games_per_pairing").dispatch_event("change")
    # Three bots: at most 2n - 1 = 5 pairings, each one game and up to three deciders.
    page.wait_for_function("document.querySelector('#match-count strong')?.textContent === '20'")
    page.click("button[name=create]")
    page.wait_for_url("**/tournaments/*/")
    tournament = Tournament.objects.get(name="browser knockout")
    assert tournament.format == "double_elimination" and tournament.status == "running"
    seeds = list(tournament.entries.order_by("number").values_list("bot_version__bot__name", flat=True))
    # Seed 1 has the bye in winners' round 1.
    bye = page.locator('#bracket tr[data-key="W1-1"]')
    assert "bye" in bye.inner_text() and f"(1) {seeds[0]}" in bye.inner_text()

    # The higher seed (the first seat of a pairing's first game) wins every game, recorded as a worker would.
    while queued := list(Match.objects.filter(tournament=tournament, status=Match.Status.QUEUED).order_by("index")):
        for match in queued:
            attempt = match_claim(match_id=match.id, worker="test")
            assert attempt is not None
            assert match_record_result(match_id=match.id, attempt=attempt, record=record_for(match, [1, 2]))
    page.reload()
    page.wait_for_selector(".live-body[data-status=finished]")
    assert page.locator("#placings li").all_inner_texts() == [
        f"{seeds[0]} (seed 1)",
        f"{seeds[1]} (seed 2)",
        f"{seeds[2]} (seed 3)",
    ]
    assert page.locator('#bracket tr[data-key="F1"] .winner').inner_text() == f"(1) {seeds[0]}"
    # The winners' bracket winner took the grand final: no reset.
    assert "not needed" in page.locator('#bracket tr[data-key="F2"]').inner_text()
    assert (
        Match.objects.filter(tournament=tournament).count()
        == MatchSeat.objects.filter(match__tournament=tournament, seat=0).count()
        == 4
    )
    screenshot(page, "knockout-bracket")
