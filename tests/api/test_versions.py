"""Bot versions: immutable uploads, retiring, the current version, pinning in tournaments."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile

from tests.api.conftest import assert_error, client_for
from tests.service.conftest import RANDOM_BOT, ranks_by_version
from tournaments.bots.models import BotVersion
from tournaments.competitions.models import Participant
from tournaments.matches.models import Match


def _new_version(client: Any, bot_id: int, tail: bytes) -> dict[str, Any]:
    response = client.post(
        f"/api/bots/{bot_id}/versions/",
        {"package": SimpleUploadedFile("r.py", RANDOM_BOT + tail), "notes": "v"},
        format="multipart",
    )
    assert response.status_code == 201, response.content
    return response.json()


def test_versions_retire_and_current(user: Any, other: Any, make_bot: Any) -> None:
    bot = make_bot(name="mine")
    client = client_for(user)
    v2 = _new_version(client, bot.id, b"\n")
    v3 = _new_version(client, bot.id, b"\n\n")
    assert (v2["number"], v3["number"]) == (2, 3)
    v1_checksum = BotVersion.objects.get(bot=bot, number=1).checksum
    assert v1_checksum != v2["checksum"] != v3["checksum"]

    detail = client.get(f"/api/bots/{bot.id}/").json()
    assert detail["current_version"] == 3 and [v["retired"] for v in detail["versions"]] == [False] * 3

    retired = client.post(f"/api/bots/{bot.id}/versions/3/retire/")
    assert retired.status_code == 200 and retired.json()["retired"] is True
    assert_error(client.post(f"/api/bots/{bot.id}/versions/3/retire/"), 409, "already_retired")
    assert_error(client.post(f"/api/bots/{bot.id}/versions/9/retire/"), 404, "not_found")
    assert_error(client_for(other).post(f"/api/bots/{bot.id}/versions/2/retire/"), 403)
    detail = client.get(f"/api/bots/{bot.id}/").json()
    assert detail["current_version"] == 2 and detail["latest_version"] == 3
    # The version itself did not change.
    assert BotVersion.objects.get(bot=bot, number=3).checksum == v3["checksum"]

    # Tournaments take the newest version that is not retired, unless one is pinned.
    rival = make_bot(owner=other, name="rival")
    made = client.post("/api/tournaments/", {"game": "gamesup", "participants": [bot.id, rival.id]}, format="json")
    assert made.status_code == 201, made.content
    versions = {p["bot"]: p["version"] for p in made.json()["participants"]}
    assert versions == {bot.id: 2, rival.id: 1}
    v1_id = BotVersion.objects.get(bot=bot, number=1).id
    pinned = client.post(
        "/api/tournaments/",
        {"game": "gamesup", "participants": [bot.id, rival.id], "versions": [v1_id]},
        format="json",
    )
    assert pinned.status_code == 201, pinned.content
    assert {p["bot"]: p["version"] for p in pinned.json()["participants"]} == {bot.id: 1, rival.id: 1}
    refused = client.post(
        "/api/tournaments/",
        {"game": "gamesup", "participants": [bot.id, rival.id], "versions": [v3["id"]]},
        format="json",
    )
    assert assert_error(refused, 400)["fields"] == {"versions": ["retired version"]}
    stray = make_bot(name="stray")
    foreign = client.post(
        "/api/tournaments/",
        {"game": "gamesup", "participants": [bot.id, rival.id], "versions": [stray.versions.get().id]},
        format="json",
    )
    assert assert_error(foreign, 400)["fields"] == {"versions": ["bot not a participant"]}
    assert Participant.objects.filter(tournament__name__isnull=False).count() == 4  # two tournaments of two

    # Retiring every version leaves the bot without one to play.
    for n in (1, 2):
        assert client.post(f"/api/bots/{bot.id}/versions/{n}/retire/").status_code == 200
    assert client.get(f"/api/bots/{bot.id}/").json()["current_version"] is None
    none_left = client.post("/api/challenges/", {"bot": bot.id, "opponent": rival.id}, format="json")
    assert assert_error(none_left, 400)["fields"] == {"bot": ["no active version"]}


def test_ratings_per_version_and_leaderboard(user: Any, other: Any, make_bot: Any, play: Any) -> None:
    bot = make_bot(name="mine")
    rival = make_bot(owner=other, name="rival")
    client = client_for(user)
    first = client.post(
        "/api/tournaments/",
        {"game": "gamesup", "participants": [bot.id, rival.id], "games_per_pairing": 1, "start": True},
        format="json",
    ).json()
    match = Match.objects.get(tournament_id=first["id"])
    board_url = f"/api/ratings/?game=gamesup&pool={first['rating_pool']}"  # the organiser's own pool
    v1 = BotVersion.objects.get(bot=bot, number=1)
    play(match, ranks_by_version(match, v1.id))
    v2 = _new_version(client, bot.id, b"\n")
    board = {r["bot"]: r for r in client.get(board_url).json()["results"]}
    assert bot.id not in board  # v2 has no rating yet; v1's rating is history
    detail = client.get(f"/api/bots/{bot.id}/").json()
    assert detail["ratings"] == []
    everything = client.get(f"/api/bots/{bot.id}/?versions=all").json()["ratings"]
    assert [(r["version"], r["games"]) for r in everything] == [(1, 1)]
    assert_error(client.get(f"/api/bots/{bot.id}/?versions=some"), 400)

    # Retire v2: v1 stands for the bot again, with its rating.
    client.post(f"/api/bots/{bot.id}/versions/{v2['number']}/retire/")
    board = {r["bot"]: r for r in client.get(board_url).json()["results"]}
    assert board[bot.id]["version"] == 1 and board[bot.id]["elo"] > 1500
    assert [r["version"] for r in client.get(f"/api/bots/{bot.id}/").json()["ratings"]] == [1]
