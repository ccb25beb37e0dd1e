"""Replays a person can read: no developer captions, a stack's height legible at 1280 px and on a phone,
and Sequence's cards legible with the move list beside the board at 1280 px."""

from __future__ import annotations

from typing import Any

import pytest

from tests.pages.browser import element_screenshot
from tests.pages.support import SHORT_GAMES, finished_tournament, make_bot
from tournaments.matches.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MIN_TEXT_PX = 11  # the smallest rendered text height we call legible
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
# The rendered height of the stack badges' numbers (0 while no stack is on the board).
BADGE_PX = """() => Math.min(...Array.from(document.querySelectorAll('#board .stack-badge text'))
  .map(e => e.getBoundingClientRect().height), Infinity)"""
CARD_PX = """() => Math.min(...Array.from(document.querySelectorAll('#board [data-card] text'))
  .map(e => e.getBoundingClientRect().height))"""


def _match(alice: Any, bob: Any, game: str) -> Match:
    _, seats, options = next(g for g in SHORT_GAMES if g[0] == game)
    bots = [make_bot(owner=alice, game=game, name="mine"), make_bot(owner=bob, game=game, name="theirs")]
    tournament = finished_tournament(owner=alice, game=game, seats=seats, options=options, bots=bots, seed=11)
    return Match.objects.filter(tournament=tournament).get()


def test_stack_heights_are_legible_and_captions_are_for_people(
    context_of: Any, alice: Any, bob: Any, games: None
) -> None:
    match = _match(alice, bob, "gamesup")
    for size, (width, height) in SIZES.items():
        page = context_of(None, width, height).new_page()
        page.goto(f"/matches/{match.id}/")
        page.wait_for_selector("#board svg")
        badge = float("inf")
        for _ in range(len(match.moves)):
            assert "quarter turn(s)" not in page.locator("#board").inner_text()
            if (badge := page.evaluate(BADGE_PX)) != float("inf"):
                break
            page.keyboard.press("ArrowRight")
        assert MIN_TEXT_PX <= badge < float("inf"), (size, badge)  # a stack appeared, its height legible
        element_screenshot(page.locator("#board"), f"replay-readable-gamesup-{size}")


def test_sequence_reads_at_1280_with_the_move_list_beside_the_board(
    context_of: Any, alice: Any, bob: Any, games: None
) -> None:
    match = _match(alice, bob, "sequence")
    page = context_of(None, 1280, 800).new_page()
    page.goto(f"/matches/{match.id}/")
    page.wait_for_selector("#board svg")
    board = page.locator("#board").bounding_box()
    moves = page.locator("#move-list").bounding_box()
    assert board is not None and moves is not None
    assert moves["x"] >= board["x"] + board["width"] and moves["y"] < board["y"] + board["height"]
    assert page.evaluate(CARD_PX) >= MIN_TEXT_PX + 2
    element_screenshot(page.locator("#replay"), "replay-readable-sequence")
