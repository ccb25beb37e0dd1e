"""Every main page at 1280x800 and at a phone's 390x844: never wider than the window, no element wider
than it (a wide table scrolls inside its own frame), a header no taller than 64 px on a phone, and no
serious or critical accessibility violation as axe-core (from npm, tests/pages/node) finds them.

Screenshots of each page at both sizes go to test-artifacts/pages/.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.ci import need
from tests.pages.browser import screenshot
from tests.pages.support import finished_tournament, make_bot
from tournaments.matches.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
AXE = Path(__file__).resolve().parent / "node" / "node_modules" / "axe-core" / "axe.min.js"
WIDTHS = "() => ({scroll: document.documentElement.scrollWidth, window: window.innerWidth})"
NAV_MAX_PX = 64
# Elements reaching past the window's edges, except inside a frame that scrolls or clips them.
OVERFLOWING = """() => {
  const width = window.innerWidth, found = [];
  for (const el of document.body.querySelectorAll('*')) {
    const r = el.getBoundingClientRect();
    if ((r.width === 0 && r.height === 0) || (r.left >= -0.5 && r.right <= width + 0.5)) continue;
    let framed = false;
    for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
      if (['auto', 'scroll', 'hidden'].includes(getComputedStyle(a).overflowX)) { framed = true; break; }
    }
    if (!framed) found.push(el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + ' ' + Math.round(r.right));
  }
  return found.slice(0, 8);
}"""
HEADER_HEIGHT = "() => document.querySelector('header.site').getBoundingClientRect().height"
# All of axe's default rules (WCAG 2 A/AA and best practices); what it rates serious or critical fails the test.
RUN_AXE = """async () => {
  const result = await axe.run(document);
  return result.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
    .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.slice(0, 3).map(n => n.target.join(' '))}));
}"""


@pytest.fixture
def site(games: None, alice: Any, bob: Any) -> dict[str, str]:
    """Named paths of the main pages, with finished tournaments (13x13 flag game included) behind them."""
    pages = {
        "games": "/games/",
        "tournaments": "/tournaments/",
        "signup": "/signup/",
        "login": "/login/",
        "my-bots": "/me/bots/",
        "bot-new": "/bots/new/",
        "tournament-new": "/tournaments/new/?game=gamesup",
        "tokens": "/me/tokens/",
    }
    for game, options in [("gamesup", {"target": 13}), ("flagstacks", {"max_plies": 40})]:
        bots = [make_bot(owner=alice, game=game, name=f"{game}-a"), make_bot(owner=bob, game=game, name=f"{game}-b")]
        tournament = finished_tournament(owner=alice, game=game, seats=2, options=options, bots=bots, seed=2)
        match = Match.objects.filter(tournament=tournament).first()
        assert match is not None
        pages[f"leaderboard-{game}"] = f"/games/{game}/leaderboard/"
        pages[f"tournament-{game}"] = f"/tournaments/{tournament.id}/"
        pages[f"bot-{game}"] = f"/bots/{bots[0].id}/"
        pages[f"match-{game}"] = f"/matches/{match.id}/"
        pages[f"matchup-{game}"] = f"/bots/{bots[0].id}/against/{bots[1].id}/"
    return pages


@pytest.fixture
def signed_in_context(context_of: Any, alice: Any) -> Any:
    """A browser context signed in as alice, resized per test."""
    return context_of(alice)


@pytest.mark.parametrize("size", list(SIZES))
def test_no_page_or_element_is_wider_than_the_window_and_the_phone_header_is_one_row(
    signed_in_context: Any, site: dict[str, str], size: str
) -> None:
    width, height = SIZES[size]
    page = signed_in_context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    too_wide = {}
    for name, path in site.items():
        page.goto(path)
        page.wait_for_load_state("load")
        if name.startswith("match-"):
            page.wait_for_selector("#board svg")
            board = page.locator("#board svg").bounding_box()
            assert board is not None and board["x"] + board["width"] <= width, name  # the whole board in view
        measured = page.evaluate(WIDTHS)
        if measured["scroll"] > measured["window"]:
            too_wide[name] = measured
        if overflowing := page.evaluate(OVERFLOWING):
            too_wide[f"{name} elements"] = overflowing
        if size == "phone" and (header := page.evaluate(HEADER_HEIGHT)) > NAV_MAX_PX:
            too_wide[f"{name} header height"] = header
        screenshot(page, f"layout-{name}-{size}")
    assert not too_wide, too_wide


def test_main_pages_have_no_serious_accessibility_violation(signed_in_context: Any, site: dict[str, str]) -> None:
    need(AXE.is_file(), f"axe-core is not installed at {AXE} (npm install --prefix tests/pages/node)")
    page = signed_in_context.new_page()
    page.set_viewport_size({"width": 1280, "height": 800})
    found = {}
    for name, path in site.items():
        page.goto(path)
        page.wait_for_load_state("load")
        page.add_script_tag(path=str(AXE))
        violations = page.evaluate(RUN_AXE)
        if violations:
            found[name] = violations
    assert not found, found
