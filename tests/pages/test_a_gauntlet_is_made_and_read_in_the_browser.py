"""A gauntlet in the browser: made on the form (the match count first), then its report on the tournament page,
equal to a recount of the results recorded."""

from __future__ import annotations

from typing import Any

import pytest

from kit import REFERENCE_BOTS
from tests.gauntlets.conftest import challenger_ranks
from tests.pages.browser import screenshot
from tests.recording import record_for
from tournaments.bots.services import bot_create
from tournaments.competitions.models import Tournament
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_result

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# The challenger's score per game in plan order: rival 1 (a pair), then rival 2 (a pair).
SCORES = [1.0, 0.5, 0.0, 0.0]


def test_a_gauntlet_from_the_form_to_its_report(context_of: Any, alice: Any, bob: Any, games: None) -> None:
    package = (REFERENCE_BOTS / "random_bot.py").read_bytes()
    made = {
        name: bot_create(owner=owner, game_id="gamesup", name=name, package=package, filename="random_bot.py").bot
        for owner, name in ((alice, "mine"), (bob, "rival1"), (bob, "rival2"))
    }
    page = context_of(alice).new_page()
    page.goto("/tournaments/new/?game=gamesup")
    page.fill("#id_name", "browser gauntlet")
    page.select_option("#id_format", "gauntlet")
    page.select_option("#id_challenger", str(made["mine"].id))
    for name in ("rival1", "rival2"):
        page.locator(f"#participants input[value='{made[name].id}']").check()
    page.fill("#id_games_per_pairing", "2")
    page.locator("#id_games_per_pairing").dispatch_event("change")
    page.wait_for_function("document.querySelector('#match-count strong')?.textContent === '4'")
    page.click("button[name=create]")
    page.wait_for_url("**/tournaments/*/")
    tournament = Tournament.objects.get(name="browser gauntlet")
    assert tournament.format == "gauntlet" and tournament.challenger_id == made["mine"].versions.get().id
    assert "Gauntlet: mine v1 against the field" in page.inner_text("#gauntlet-report h2")

    # Results recorded as a worker would; the page's live part shows them.
    for match, score in zip(Match.objects.filter(tournament=tournament).order_by("index"), SCORES, strict=True):
        attempt = match_claim(match_id=match.id, worker="test")
        assert attempt is not None
        ranks = challenger_ranks(match, tournament.challenger_id, score)
        assert match_record_result(match_id=match.id, attempt=attempt, record=record_for(match, ranks))
    page.reload()
    page.wait_for_selector(".live-body[data-status=finished]")
    # 1.5 of 4; against rival 1: a win and a draw (75%); against rival 2: two losses.
    assert page.inner_text("#gauntlet-score") == "1.50 of 4 (38%) · +1 =1 -2"
    assert page.inner_text("#gauntlet-pentanomial") == "2: 1 · 0 · 0 · 1 · 0"
    rows = {
        name: page.locator(f'#gauntlet-opponents tr[data-bot="{made[name].id}"] td').all_inner_texts()
        for name in ("rival1", "rival2")
    }
    assert rows["rival1"][2:7] == ["2", "1", "1", "0", "75"]
    assert rows["rival2"][2:7] == ["2", "0", "0", "2", "0"]
    # Elo of a 37.5% score: -400 log10(1 / 0.375 - 1) = -88.7, over the field's mean Elo.
    assert "-89 (" in page.inner_text("#gauntlet-performance")
    screenshot(page, "gauntlet-report")
