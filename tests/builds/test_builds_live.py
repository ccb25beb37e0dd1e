"""Server-side builds on a live service (web server, PostgreSQL, Redis, Celery workers, the real sandbox).

A C bot uploaded as sources only is built by a worker and then rated; one that does
not compile fails with the compiler's words and never plays; a worker killed
mid-build does not leave its version building for ever.
"""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from tests.live import Api, random_bot
from tests.live.fixtures import LiveFactory
from tests.waiting import poll, wait_for

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

GAME = "gamesup"
WAIT_S = 240
GCC = ["gcc", "-O2", "-o", "bot", "bot.c"]
# A gamesup bot in C: ready at start, then the first legal move of each turn.
BOT_C = r"""
#include <stdio.h>
#include <string.h>
int main(void) {
    static char line[1 << 20];
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"type\": \"start\"") || strstr(line, "\"type\":\"start\"")) {
            printf("{\"type\": \"ready\"}\n");
            continue;
        }
        char *legal = strstr(line, "\"legal_moves\"");
        if (!legal) continue;
        char *open = strchr(legal, '[');
        char *first = open ? strchr(open, '"') : NULL;
        char *end = first ? strchr(first + 1, '"') : NULL;
        if (!end) continue;
        *end = 0;
        printf("{\"move\": \"%s\"}\n", first + 1);
    }
    return 0;
}
"""


def c_package(source: str, build: list[str] | None = None) -> bytes:
    """A zip of sources only: bot.c and a bot.json that names the build; no program in it."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("bot.json", json.dumps({"command": ["./bot"], "build": build or GCC}))
        archive.writestr("bot.c", source)
    return out.getvalue()


def wait_built(api: Api, bot_id: int, timeout: float = WAIT_S) -> dict[str, Any]:
    """The bot's newest version once its build has ended (ready or failed), or as it stands after ``timeout`` s."""

    def newest() -> dict[str, Any]:
        return dict(api.get(f"/api/bots/{bot_id}/")["versions"][-1])

    def ended() -> dict[str, Any] | None:
        version = newest()
        return version if version["state"] != "building" else None

    return poll(ended, timeout, every=0.5) or newest()


def test_sources_are_built_then_rated_and_a_failed_build_never_plays(live_processes: LiveFactory) -> None:
    api = live_processes(web="runserver", workers=1, concurrency=2, tag="builds").api()
    api.token = api.post_json("/api/users/", {"username": "rival", "password": "a-long-password"})["token"]
    opponent = api.upload_bot(GAME, "random", "random_bot.py", random_bot())
    api.token = api.post_json("/api/users/", {"username": "author", "password": "a-long-password"})["token"]

    mine = api.upload_bot(GAME, "c-bot", "bot.zip", c_package(BOT_C))
    assert mine["version"]["state"] == "building"
    built = wait_built(api, mine["id"])
    assert built["state"] == "ready", built
    assert api.get(f"/api/bots/{mine['id']}/")["current_version"] == 1

    tournament = api.post_json(
        "/api/tournaments/",
        {
            "game": GAME, "name": "built", "participants": [mine["id"], opponent["id"]], "format": "double",
            "games_per_pairing": 1, "move_ms": 1000, "game_ms": 30000, "startup_ms": 10000, "start": True,
        },
    )  # fmt: skip
    tournament = api.wait_tournament(tournament["id"], WAIT_S)
    assert tournament["status"] == "finished", tournament
    for match in api.all_pages(f"/api/matches/?tournament={tournament['id']}"):
        seats = api.get(f"/api/matches/{match['id']}/")["players"]
        assert all(p["status"] == "ok" for p in seats), seats
    detail = api.get(f"/api/bots/{mine['id']}/")
    assert [(r["version"], r["games"]) for r in detail["ratings"]] == [(1, 2)], detail["ratings"]

    broken = api.upload_bot(GAME, "c-broken", "bot.zip", c_package("int main(void) { return 0 }\n"))
    failed = wait_built(api, broken["id"])
    assert failed["state"] == "failed", failed
    assert failed["build_log"].startswith("the build failed (exit status 1):")
    assert "error: expected" in failed["build_log"]
    assert api.get(f"/api/bots/{broken['id']}/")["current_version"] is None
    status, _, page = api.raw("GET", f"/bots/{broken['id']}/", headers={"Accept": "text/html"})
    assert status == 200 and b"build-failed" in page and b"error: expected" in page
    status, _, body = api.raw(
        "POST",
        "/api/tournaments/",
        json.dumps({"game": GAME, "name": "never", "participants": [broken["id"], opponent["id"]],
                    "format": "double", "games_per_pairing": 1, "start": True}).encode(),
        {"Content-Type": "application/json"},
    )  # fmt: skip
    assert status == 400 and "no active version" in body.decode(), body


def test_a_worker_killed_mid_build_does_not_leave_it_building(live_processes: LiveFactory) -> None:
    quick = {
        "ARBITER_BUILD_SECONDS": "20",
        "ARBITER_LEASE_S": "2",
        "ARBITER_SWEEP_EVERY_S": "1",
        "ARBITER_BUILD_RESEND_S": "2",
    }
    procs = live_processes(web="runserver", workers=1, beat=True, tag="buildkill", env=quick)
    api = procs.api()
    api.token = api.post_json("/api/users/", {"username": "author", "password": "a-long-password"})["token"]
    slow = ["sh", "-c", "sleep 4; exec gcc -O2 -o bot bot.c"]
    bot = api.upload_bot(GAME, "slow", "bot.zip", c_package(BOT_C, slow))
    version_id = bot["version"]["id"]
    wait_for(
        lambda: procs.scalar("SELECT worker FROM bots_botbuild WHERE version_id = %s", [version_id]),
        60,
        "a worker to claim the build",
        every=0.2,
    )
    procs.kill("w1")  # mid-build: its sleep has seconds to go
    assert procs.scalar("SELECT status FROM bots_botbuild WHERE version_id = %s", [version_id]) == "building"
    procs.worker("w2")
    procs.wait_ready("w2")
    built = wait_built(api, bot["id"], timeout=120)
    assert built["state"] == "ready", built
    assert procs.scalar("SELECT attempt FROM bots_botbuild WHERE version_id = %s", [version_id]) == 2
