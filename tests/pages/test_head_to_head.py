"""Head to head in the browser: a bot's record against each opponent, and the matchup page of two bots,
both equal to what a recomputation from the API's match list and details gives."""

from __future__ import annotations

import math
from typing import Any

import pytest

from tests.pages.browser import element_screenshot, screenshot
from tests.pages.support import head_to_head_site
from tournaments.ratings.stats import ErrorBar
from tournaments.web.templatetags.arbiter import elo_change

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def _games_between(api: Any, bot: int, opponent: int) -> list[dict[str, Any]]:
    """From the API: every finished match of both bots, with the first bot's score and both Elo changes."""
    listed = api.get(f"/api/matches/?bot={bot}&status=finished&page_size=100").json()
    games = []
    for item in listed["results"]:
        seats = {p["bot"]: p for p in item["players"]}
        if opponent not in seats:
            continue
        mine, theirs = seats[bot], seats[opponent]
        detail = api.get(f"/api/matches/{item['id']}/").json()
        deltas = {c["bot_version"]: c["delta"] for c in detail["rating_changes"]}
        score = 1.0 if mine["rank"] < theirs["rank"] else 0.5 if mine["rank"] == theirs["rank"] else 0.0
        games.append(
            {
                "match": item["id"],
                "score": score,
                "deltas": (deltas.get(mine["bot_version"]), deltas.get(theirs["bot_version"])),
                "seat": mine["seat"],
            }
        )
    assert "next" not in listed or not listed["next"], "more matches than one page"
    return games


def _counts(games: list[dict[str, Any]]) -> tuple[int, int, int]:
    scores = [g["score"] for g in games]
    return scores.count(1.0), scores.count(0.5), scores.count(0.0)


def test_the_bot_page_shows_its_record_against_each_opponent(
    context_of: Any, alice: Any, bob: Any, games: None
) -> None:
    bots = head_to_head_site(alice=alice, bob=bob)
    page = context_of(alice).new_page()
    mine = bots["mine"].id
    page.goto(f"/bots/{mine}/")
    for name in ("rival", "other"):
        opponent = bots[name].id
        expected = _games_between(page.request, mine, opponent)
        assert len(expected) == 3
        wins, draws, losses = _counts(expected)
        row = page.locator(f'#opponents tr[data-opponent="{opponent}"] td')
        cells = row.all_inner_texts()
        assert cells[0] == name
        assert cells[1:5] == [str(len(expected)), str(wins), str(draws), str(losses)]
        seats = {s: _counts([g for g in expected if g["seat"] == s]) for s in sorted({g["seat"] for g in expected})}
        assert cells[6] == "; ".join(f"seat {s}: {'-'.join(map(str, wdl))}" for s, wdl in seats.items())
        assert cells[7] == "0 / 0"  # no forfeits either side
    screenshot(page, "head-to-head-bot-page")
    element_screenshot(page.locator("#opponents"), "head-to-head-records")


def test_the_matchup_page_equals_a_recomputation_from_the_api(
    context_of: Any, alice: Any, bob: Any, games: None
) -> None:
    bots = head_to_head_site(alice=alice, bob=bob)
    mine, rival = bots["mine"].id, bots["rival"].id
    page = context_of(alice).new_page()
    page.goto(f"/bots/{mine}/against/{rival}/")
    expected = _games_between(page.request, mine, rival)
    wins, draws, losses = _counts(expected)

    assert page.locator("#score").inner_text() == f"{wins + draws / 2:g}/{len(expected)}"
    assert [page.locator(f"#{k}").inner_text() for k in ("wins", "draws", "losses")] == [
        str(wins),
        str(draws),
        str(losses),
    ]
    rows = page.locator("#games tbody tr")
    shown = {
        int(rows.nth(i).get_attribute("data-match") or 0): rows.nth(i).locator("td").all_inner_texts()
        for i in range(rows.count())
    }
    assert set(shown) == {g["match"] for g in expected}
    for game in expected:
        cells = shown[game["match"]]
        assert cells[2] == f"{game['score']:g}"
        assert (cells[4], cells[6]) == (elo_change(game["deltas"][0]), elo_change(game["deltas"][1]))
        assert all(d is not None for d in game["deltas"])  # a rated round robin: every game changed both

    score = (wins + draws / 2) / len(expected)
    if 0 < score < 1:
        # The performance is the logistic Elo difference of the score, inside its interval.
        assert page.locator("#performance").inner_text() == elo_change(-400 * math.log10(1 / score - 1))
        bar = ErrorBar.of_score(wins, draws, losses)
        assert bar is not None
        assert page.locator("#performance-low").inner_text() == elo_change(bar.low)
        assert page.locator("#performance-high").inner_text() == elo_change(bar.high)
    else:
        assert page.locator("#performance").inner_text() == elo_change(None)  # a dash
    screenshot(page, "head-to-head-matchup")
    element_screenshot(page.locator("main"), "head-to-head-matchup-main")
