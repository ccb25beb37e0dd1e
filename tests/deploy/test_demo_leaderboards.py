"""A fresh `make start` shows ranked bots on every game's leaderboard within three minutes.

The demo is loaded on a fresh embedded var dir (SQLite, the file-system broker), as
`make start` does, with its one worker and beat embedded in it; every game's public
leaderboard page is then read until the three reference bots hold places there that
are no longer marked provisional (docs/ratings.md: the demo's ladders).
"""

from __future__ import annotations

import re
import shutil
import time

import pytest

from engines import all_engines
from tests.ci import need
from tests.live.fixtures import LiveFactory
from tests.waiting import poll

DEADLINE_S = 180
REFERENCE = {"random", "greedy", "search"}
ROW = re.compile(
    r'<tr data-bot="\d+" data-place="(\d+)"( class="provisional")?>\s*<td class="place">.*?</td>\s*'
    r'<td><a href="[^"]*">([^<]+)</a>',
    re.S,
)


@pytest.mark.slow
def test_a_fresh_demo_ranks_the_reference_bots_of_every_game_within_three_minutes(
    live_processes: LiveFactory,
) -> None:
    need(shutil.which("bwrap") is not None, "bubblewrap is not installed (apt-get install bubblewrap)")
    started = time.monotonic()
    procs = live_processes(embedded=True, web="runserver", tag="demo")
    procs.manage("demo")
    # make start's worker: beat embedded, one process per core (two here).
    procs.worker("w1", concurrency=2, beat=True)
    api = procs.api()
    games = [engine.id for engine in all_engines()]

    def settled() -> dict[str, dict[str, int]]:
        """Per game, the bots with a place not marked provisional on its leaderboard page."""
        boards = {}
        for game in games:
            status, _, body = api.raw("GET", f"/games/{game}/leaderboard/")
            assert status == 200, (game, status)
            rows = ROW.findall(body.decode())
            boards[game] = {name: int(place) for place, provisional, name in rows if not provisional}
        return boards

    def all_ranked() -> dict[str, dict[str, int]] | None:
        boards = settled()
        return boards if all(set(board) >= REFERENCE for board in boards.values()) else None

    boards = poll(all_ranked, DEADLINE_S - (time.monotonic() - started), every=2) or settled()
    took = time.monotonic() - started
    assert all(set(board) >= REFERENCE for board in boards.values()), (round(took), boards)
    for board in boards.values():
        assert sorted(board[name] for name in REFERENCE) == [1, 2, 3]
    print(f"every game's leaderboard ranked random, greedy and search {took:.0f} s after the start")
