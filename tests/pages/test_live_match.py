"""A match watched live, in each of the five games, in Debian's Chromium against the real service.

A web server and a Celery worker (tests/live) play one match per game between
two bots that take a moment over every move, all five at once: four games on
PostgreSQL and Redis, the fifth on the embedded set (SQLite, the live view in files).  A spectator (not signed in)
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
PLIES = 40
# A random bot slow enough to watch.
SLOW_BOT = b"""import json, random, sys, time
rng = random.Random(0)
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "start":
        reply = {"type": "ready", "name": "slow", "version": "1"}
    elif message["type"] == "turn":
        # Half a second a move: 15 to 20 s a match, while ten pages are opened one after another (a second or
        # two each on a busy machine) and each must still find its match being played and draw three boards.
        time.sleep(0.5)  # bot code, asleep (its clock charges CPU time only)
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
# Every board the live viewer draws, with its cells, while the page is live; kept in the tab's session
# storage, which outlives the reload that turns the page into the whole replay (pages are watched at once).
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
    sessionStorage.setItem('liveBoards', JSON.stringify(window.liveBoards));
  }).observe(document.getElementById('board'), {childList: true});
}"""
LIVE_BOARDS = "JSON.parse(sessionStorage.getItem('liveBoards') || '[]')"


class Watcher:
    """A spectator's browser on one process set, and the round robins' pages it leaves open."""

    def __init__(self, browser: Any, procs: Any, user: str) -> None:
        self.api = procs.api()
        self.api.token = self.api.post_json("/api/users/", {"username": user, "password": f"{user}-pass-phrase"})[
            "token"
        ]
        self.context = browser.new_context(viewport=DESKTOP, base_url=procs.url)
        self.errors: list[str] = []
        self.tables: list[Any] = []  # each round robin's page, left open to bring itself up to date

    def new_page(self) -> Any:
        page = self.context.new_page()
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        return page

    def start(self, game: str, options: dict[str, Any]) -> int:
        """A round robin of one match between two slow bots, started: its id."""
        bots = [self.api.upload_bot(game, f"slow-{game}-{n}", "slow.py", SLOW_BOT)["id"] for n in (1, 2)]
        tournament = self.api.post_json(
            "/api/tournaments/",
            {"game": game, "participants": bots, "options": options, "games_per_pairing": 1, "move_ms": 2000,
             "game_ms": 60000, "start": True},
        )  # fmt: skip
        return int(tournament["id"])

    def open(self, game: str, tournament_id: int) -> tuple[Any, int]:
        """Once the round robin's match runs: its page, recording every board it draws, and the match's id."""

        def running() -> int | None:
            found = self.api.get(f"/api/matches/?tournament={tournament_id}&status=running")["results"]
            return found[0]["id"] if found else None

        match_id = wait_for(running, WAIT_MS / 1000, "the match to start")
        page = self.new_page()
        page.goto(f"/matches/{match_id}/")
        assert page.get_attribute("#replay", "data-live") == "running"
        page.evaluate(RECORD_BOARDS)
        assert page.locator("#hand-toggles input").count() == 0  # a spectator: no hand to show
        return page, match_id

    def standings(self, game: str, tournament_id: int, match_id: int) -> None:
        """The round robin's page lists the match as being played; it is left open to take in the end."""
        standings = self.new_page()
        standings.goto(f"/tournaments/{tournament_id}/")
        assert standings.locator(f"#running-matches a[href='/matches/{match_id}/']").count() == 1
        if not self.tables:
            screenshot(standings, f"live-tournament-{game}-1280x800")
        self.tables.append(standings)

    def watch(self, game: str, page: Any) -> None:
        """The match watched live to its end: at least three boards between its first and last ply, each
        the replay's board at that ply."""
        from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

        page.wait_for_function(f"{LIVE_BOARDS}.length >= 3", timeout=WAIT_MS)
        page.bring_to_front()  # a tab behind others draws no frame to take a screenshot of
        # The screenshot shows the live board, so it is taken only while the match runs: on a busy
        # machine the first match watched may have ended while the ten pages were being opened (its
        # boards were recorded all the same), and in CI a full-page capture of the replay it had
        # turned into hung for 30 s.
        try:
            if page.get_attribute("#replay", "data-live") == "running":
                screenshot(page, f"live-{game}-1280x800")
        except PlaywrightTimeoutError:
            if page.get_attribute("#replay", "data-live") == "running":
                raise  # not the match's end: a page that would not draw

        # The end: the page loads the whole replay by itself, at its last ply.
        page.wait_for_selector("#replay:not([data-live]) #download", timeout=WAIT_MS)
        page.wait_for_selector("#board svg")
        live = page.evaluate(LIVE_BOARDS)
        last = page.locator("#move-list li").count()
        assert page.evaluate(READ_CELLS)["ply"] == last
        assert [b["ply"] for b in live if 0 < b["ply"] < last][2:], (game, last, [b["ply"] for b in live])
        for board in live:  # each live board is the replay's board at that ply
            page.evaluate(f"window.location.hash = '#ply={board['ply']}'")
            page.wait_for_function(f"document.querySelector('#board svg').dataset.ply === '{board['ply']}'")
            assert page.evaluate(READ_CELLS)["cells"] == board["cells"], (game, board["ply"])

    def close(self) -> None:
        """Every round robin's page took in its match's end by itself; no page had a script error."""
        for standings in self.tables:
            standings.wait_for_selector(".live-body[data-status=finished]", timeout=WAIT_MS)
            assert standings.locator("#running-matches").count() == 0
            wins = sorted(standings.locator("#standings tbody td.wins").all_inner_texts())
            assert wins in (["0", "1"], ["0", "0"])
        self.context.close()
        assert not self.errors, self.errors


def test_a_match_watched_live_shows_its_boards_as_they_are_played_in_every_game(
    browser: Any, live_processes: LiveFactory
) -> None:
    # Production's path (PostgreSQL, Redis) for four games, the embedded one (SQLite, files) for the fifth.
    # The five matches are played at once (a worker process per match), each watched in a page of its own.
    production = Watcher(browser, live_processes(web="runserver", workers=1, concurrency=4, tag="livematch"), "lea")
    embedded = Watcher(browser, live_processes(web="runserver", workers=1, embedded=True, tag="livefiles"), "max")
    watchers = {game: production for game in ("gamesup", "flagstacks", "pileup", "sequence")}
    watchers["hexstacks"] = embedded
    started = {game: watcher.start(game, GAMES[game]) for game, watcher in watchers.items()}
    opened = {}
    for game, watcher in watchers.items():
        # The round robin's page right after the match's: it must find the match still being played.
        opened[game] = watcher.open(game, started[game])
        watcher.standings(game, started[game], opened[game][1])
    for game, watcher in watchers.items():
        watcher.watch(game, opened[game][0])
    production.close()
    embedded.close()
