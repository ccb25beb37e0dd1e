"""A match watched live, in each of the five games, in Debian's Chromium against the real service.

A web server and a Celery worker (tests/live) play one match per game between
two bots that take a moment over every move.  A spectator (not signed in)
opens the match page while it runs: the board must change at least three
times before the match ends, each board the one the finished replay shows at
that ply, and then the page turns into the whole replay by itself.  Beside it
the tournament page lists the match as being played and, once it ended, shows
it in the standings.  One screenshot per game under test-artifacts/pages/.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.live.fixtures import LiveFactory
from tests.pages.browser import READ_CELLS, screenshot
from tests.waiting import wait_for

pytestmark = [pytest.mark.slow, pytest.mark.services, pytest.mark.django_db(transaction=False)]

WAIT_MS = 60_000  # one short match on a busy machine
DESKTOP = {"width": 1280, "height": 800}
PLIES = 30
# A random bot slow enough to watch.
SLOW_BOT = b"""import json, random, sys, time
rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        reply = {"type": "ready", "name": "slow", "version": "1"}
    elif message["type"] == "turn":
        # bot code: a quarter of a second a move, asleep (its clock charges CPU time only)
        time.sleep(0.25)
        reply = {"move": rng.choice(message["legal_moves"])}
    else:
        break
    sys.stdout.write(json.dumps(reply) + "\\n")
    sys.stdout.flush()
"""
GAMES = {
    "gamesup": {"max_plies": PLIES},
    "flagstacks": {"max_plies": PLIES},
    "pileup": {"max_plies": PLIES},
    "sequence": {"max_plies": PLIES},
    "hexstacks": {"max_plies": PLIES, "diabolical": True},
}
# Every board the live viewer draws, with its cells, while the page is live.
RECORD_BOARDS = """() => {
  window.liveBoards = [];
  const root = document.getElementById('replay');
  new MutationObserver(() => {
    const svg = document.querySelector('#board svg');
    if (!svg || root.dataset.live !== 'running') return;
    const ply = Number(svg.dataset.ply);
    if (window.liveBoards.some(b => b.ply === ply)) return;
    const cells = {};
    svg.querySelectorAll('[data-cell]').forEach(e => { cells[e.dataset.cell] = e.dataset.content; });
    window.liveBoards.push({ply: ply, cells: cells});
  }).observe(document.getElementById('board'), {childList: true});
}"""


def _running_match(api: Any, tournament_id: int) -> int:
    def running() -> int | None:
        found = api.get(f"/api/matches/?tournament={tournament_id}&status=running")["results"]
        return found[0]["id"] if found else None

    return wait_for(running, WAIT_MS / 1000, "the match to start")


def test_a_match_watched_live_shows_its_boards_as_they_are_played_in_every_game(
    browser: Any, live_processes: LiveFactory
) -> None:
    procs = live_processes(web="runserver", workers=1, concurrency=1, tag="livematch")
    api = procs.api()
    api.token = api.post_json("/api/users/", {"username": "lea", "password": "lea-pass-phrase"})["token"]
    context = browser.new_context(viewport=DESKTOP, base_url=procs.url)
    page, standings = context.new_page(), context.new_page()
    errors: list[str] = []
    for p in (page, standings):
        p.on("pageerror", lambda exc: errors.append(str(exc)))
        p.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)

    for game, options in GAMES.items():
        bots = [api.upload_bot(game, f"slow-{game}-{n}", "slow.py", SLOW_BOT)["id"] for n in (1, 2)]
        tournament = api.post_json(
            "/api/tournaments/",
            {"game": game, "participants": bots, "options": options, "games_per_pairing": 1, "move_ms": 2000,
             "game_ms": 60000, "start": True},
        )  # fmt: skip
        match_id = _running_match(api, tournament["id"])
        page.goto(f"/matches/{match_id}/")
        assert page.get_attribute("#replay", "data-live") == "running"
        page.evaluate(RECORD_BOARDS)
        standings.goto(f"/tournaments/{tournament['id']}/")
        assert standings.locator(f"#running-matches a[href='/matches/{match_id}/']").count() == 1
        page.wait_for_function("window.liveBoards.length >= 3", timeout=WAIT_MS)
        screenshot(page, f"live-{game}-1280x800")
        assert page.locator("#hand-toggles input").count() == 0  # a spectator: no hand to show
        live = page.evaluate("window.liveBoards")

        # The end: the page loads the whole replay by itself, at its last ply.
        page.wait_for_selector("#replay:not([data-live]) #download", timeout=WAIT_MS)
        page.wait_for_selector("#board svg")
        last = page.locator("#move-list li").count()
        assert page.evaluate(READ_CELLS)["ply"] == last
        assert [b["ply"] for b in live if 0 < b["ply"] < last][2:], (game, last, [b["ply"] for b in live])
        for board in live:  # each live board is the replay's board at that ply
            page.evaluate(f"window.location.hash = '#ply={board['ply']}'")
            page.wait_for_function(f"document.querySelector('#board svg').dataset.ply === '{board['ply']}'")
            assert page.evaluate(READ_CELLS)["cells"] == board["cells"], (game, board["ply"])

        standings.wait_for_selector(".live-body[data-status=finished]", timeout=WAIT_MS)
        assert standings.locator("#running-matches").count() == 0
        assert standings.locator("#standings tbody td.wins").all_inner_texts() in (["1", "0"], ["0", "0"])
    context.close()
    assert not errors, errors
