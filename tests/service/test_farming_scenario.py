"""The farming scenario of issue 31, replayed through the API against real workers: a user with a
second account feeds a copy of the random bot wins from a bot that quits on its first turn, then
plays one game against a third user's public bot.  No public rank moves; the organiser's own pool
shows every game."""

from __future__ import annotations

from typing import Any

import pytest

from tests.live import Api, greedy_zip, random_bot
from tests.live.fixtures import LiveFactory

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=False)]

GAME = "gamesup"
WAIT_S = 180
# Answers the start, then leaves the game the first time it is asked for a move.
RESIGNER = b"""import json, sys
for line in sys.stdin:
    if json.loads(line).get("type") != "start":
        sys.exit(0)
    print(json.dumps({"type": "ready", "name": "resigner", "version": "1"}), flush=True)
"""
STAFF = """
import json
from django.contrib.auth import get_user_model
from tournaments.accounts.services import token_create
staff = get_user_model().objects.create_user(username="referee", password="referee-pw-1", is_staff=True)
print(json.dumps({"token": token_create(user=staff)[1]}))
"""
ROUND_ROBIN = {"game": GAME, "move_ms": 1000, "game_ms": 30000, "startup_ms": 10000, "start": True}


def _sign_up(api: Api, username: str) -> str:
    return api.post_json("/api/users/", {"username": username, "password": f"{username}-pass-phrase"})["token"]


def _upload(api: Api, token: str, name: str, filename: str, data: bytes) -> int:
    api.token = token
    return int(api.upload_bot(GAME, name, filename, data)["id"])


def _play(api: Api, token: str, participants: list[int], **shape: Any) -> dict[str, Any]:
    """A round robin organised by the token's user, played to the end."""
    api.token = token
    made = api.post_json("/api/tournaments/", {**ROUND_ROBIN, "participants": participants, **shape})
    done = api.wait_tournament(made["id"], WAIT_S)
    assert done["status"] == "finished" and done["progress"]["finished"] == done["progress"]["total"], done
    return done


def _public_board(api: Api) -> list[tuple[Any, ...]]:
    api.token = ""
    rows = api.all_pages(f"/api/ratings/?game={GAME}")
    return [(r["place"], r["bot_name"], r["owner"], r["elo"], r["games"], r["provisional"]) for r in rows]


@pytest.fixture
def service(live_processes: LiveFactory) -> tuple[Api, str]:
    """The web server and a worker; the API client and a staff user's token."""
    # Leaderboard answers are not reused: a stale page would hide a change.
    procs = live_processes(
        web="runserver", workers=1, concurrency=2, tag="farming", env={"ARBITER_LEADERBOARD_CACHE_S": "0"}
    )
    return procs.api(), procs.shell(STAFF)["token"]


def test_a_second_accounts_feeder_moves_no_public_rank(service: tuple[Api, str]) -> None:
    api, staff_token = service
    # Three honest owners' bots, ranked publicly by a staff-run round robin: 20 games each.
    honest = [
        _upload(api, _sign_up(api, "tess"), "third-random", "random_bot.py", random_bot()),
        _upload(api, _sign_up(api, "uma"), "honest-greedy", "greedy.zip", greedy_zip()),
        _upload(api, _sign_up(api, "vic"), "honest-random", "random_bot.py", random_bot()),
    ]
    _play(api, staff_token, honest, format="double", games_per_pairing=5)
    before = _public_board(api)
    assert [(row[1], row[4], row[5]) for row in sorted(before, key=lambda r: r[1])] == [
        ("honest-greedy", 20, False),
        ("honest-random", 20, False),
        ("third-random", 20, False),
    ]

    # The farmer and the farmer's second account: a copy of random and a bot that quits at once.
    farmer = _sign_up(api, "mallory")
    copy = _upload(api, farmer, "copy-of-random", "random_bot.py", random_bot())
    feeder = _upload(api, _sign_up(api, "mallory2"), "feeder", "resigner.py", RESIGNER)
    farmed = _play(api, farmer, [copy, feeder], format="double", games_per_pairing=10)
    _play(api, farmer, [copy, honest[0]], games_per_pairing=1)

    assert _public_board(api) == before  # not one place, Elo or game count moved

    # The farmer's own pool has every game: 20 wins against the feeder, and the one game more.
    api.token = ""
    own = {r["bot_name"]: r for r in api.all_pages(f"/api/ratings/?game={GAME}&organiser=mallory")}
    assert own == {r["bot_name"]: r for r in api.all_pages(f"/api/ratings/?game={GAME}&pool={farmed['rating_pool']}")}
    assert {name: (row["games"], row["wins"]) for name, row in own.items() if name != "third-random"} == {
        "copy-of-random": (21, own["copy-of-random"]["wins"]),
        "feeder": (20, 0),
    }
    assert own["copy-of-random"]["wins"] >= 20 and own["third-random"]["games"] == 1
    assert own["copy-of-random"]["place"] == 1 and own["copy-of-random"]["elo"] > 1600
    matches = api.all_pages(f"/api/matches/?tournament={farmed['id']}")
    assert len(matches) == 20 and {m["rated"] for m in matches} == {True}
    assert {m["rating_pool"] for m in matches} == {farmed["rating_pool"]}
    assert farmed["rating_pool"].startswith("gamesup:target=21@")  # the game's public pool, then the organiser
