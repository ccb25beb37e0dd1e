"""Every game's replay in a real browser: the last move framed, a seat legend, the flip, #ply=N, the download.

The framed cells are checked against the engine: at each ply they are
exactly the cells whose contents the move changed (tests/pages/browser.py
says what each cell must hold, from the rules, not from the renderers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engines import get_engine
from tests.pages.browser import READ_CELLS, expected_cells, screenshot
from tests.pages.support import SHORT_GAMES, finished_tournament, make_bot
from tournaments.matches.models import Match

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

MARKED = "() => Array.from(document.querySelectorAll('#board [data-last-move]')).map(e => e.dataset.cell).sort()"


def _cells(match: Match) -> list[dict[str, str]]:
    """What every cell holds at every ply, from the engine."""
    engine = get_engine(match.game_id)
    state = engine.new_state(match.options, seed=match.seed, seats=match.seats)
    out = [expected_cells(match.game_id, state.public_observation())]
    for entry in match.moves:
        state.apply(entry["move"])
        out.append(expected_cells(match.game_id, state.public_observation()))
    return out


@pytest.mark.parametrize(("game", "seats", "options"), SHORT_GAMES, ids=[g for g, _, _ in SHORT_GAMES])
def test_last_move_legend_flip_link_and_download(
    page: Any, games: None, alice: Any, bob: Any, game: str, seats: int, options: dict
) -> None:
    bots = [make_bot(owner=alice, game=game, name="mine"), make_bot(owner=bob, game=game, name="theirs")]
    tournament = finished_tournament(owner=alice, game=game, seats=seats, options=options, bots=bots, seed=11)
    match = Match.objects.filter(tournament=tournament).get()
    cells = _cells(match)
    last = len(cells) - 1

    page.goto(f"/matches/{match.id}/")
    page.wait_for_selector("#board svg")
    # The legend: one entry per seat, naming the seat and its bot, with a colour.
    legend = page.locator("#seat-legend li")
    assert legend.count() == seats
    for seat in match.match_seats.select_related("bot_version__bot"):
        text = page.locator(f"#seat-legend li[data-seat='{seat.seat}']").inner_text()
        assert f"seat {seat.seat}" in text and seat.bot_version.bot.name in text
    assert page.locator("#seat-legend .swatch").count() == seats

    # The last move: framed cells are exactly those the move changed, at every ply.
    marked_any = 0
    for ply in range(last + 1):
        assert page.evaluate(READ_CELLS)["ply"] == ply
        changed = sorted(c for c in cells[ply] if ply and cells[ply][c] != cells[ply - 1][c])
        assert page.evaluate(MARKED) == changed, f"ply {ply}"
        assert page.locator("#board .last-move-mark").count() == len(changed)
        marked_any += bool(changed)
        if ply < last:
            page.keyboard.press("ArrowRight")
    assert marked_any >= last // 2  # most moves change the board; a replay never lacks the frame
    assert page.url.endswith(f"#ply={last}")
    screenshot(page, f"replay-{game}-last-move")

    # Flip turns the board and says so.
    page.click("#flip-board")
    assert page.get_attribute("#flip-board", "aria-pressed") == "true"
    assert "flipped" in (page.get_attribute("#board", "class") or "")
    screenshot(page, f"replay-{game}-flipped")
    page.click("#flip-board")
    assert page.get_attribute("#flip-board", "aria-pressed") == "false"

    # A link to a ply opens there.
    middle = last // 2
    page.goto(f"/matches/{match.id}/#ply={middle}")
    page.reload()
    page.wait_for_selector("#board svg")
    assert page.evaluate(READ_CELLS)["ply"] == middle
    assert page.evaluate(READ_CELLS)["cells"] == cells[middle]

    # The download: the whole move log and the result, as JSON.
    with page.expect_download() as info:
        page.click("#download")
    body = json.loads(Path(info.value.path()).read_text())
    assert [m["move"] for m in body["moves"]] == [m["move"] for m in match.moves]
    assert body["result_reason"] == match.result_reason and len(body["players"]) == seats
