"""The REST API: auth, permissions (owner / other / anonymous), uploads, one error shape."""

from __future__ import annotations

import io
import zipfile
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test.utils import override_settings
from rest_framework.test import APIClient

from tests.service.conftest import RANDOM_BOT
from tournaments.bots.models import Bot, BotVersion


def _client(user: Any = None) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def _zip(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _upload(client: APIClient, data: bytes, filename: str, game: str = "gamesup", name: str = "b") -> Any:
    return client.post(
        "/api/bots/",
        {"game": game, "name": name, "package": SimpleUploadedFile(filename, data)},
        format="multipart",
    )


def _assert_error(response: Any, status: int, code: str | None = None) -> dict:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message", "fields"}
    assert body["error"]["message"]
    if code:
        assert body["error"]["code"] == code
    return body["error"]


def test_signup_token_and_me() -> None:
    client = APIClient()
    response = client.post("/api/users/", {"username": "carol", "password": "carol-pass-phrase"}, format="json")
    assert response.status_code == 201
    taken = {"username": "carol", "password": "another-pass-phrase"}
    _assert_error(client.post("/api/users/", taken, format="json"), 409)
    login = {"username": "carol", "password": "carol-pass-phrase"}
    token = client.post("/api/auth/token/", login, format="json").json()["token"]
    assert token != response.json()["token"]  # a new token; the first keeps working
    _assert_error(client.post("/api/auth/token/", {"username": "carol", "password": "nope"}, format="json"), 400)
    for key in (token, response.json()["token"]):
        client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
        assert client.get("/api/users/me/").json()["username"] == "carol"


def test_games_are_listed_with_details() -> None:
    client = APIClient()
    games = client.get("/api/games/").json()
    assert {"count", "next", "previous", "results"} <= set(games)
    ids = {g["id"] for g in games["results"]}
    assert {"gamesup", "sequence"} <= ids
    detail = client.get("/api/games/sequence/").json()
    assert 4 in detail["seat_counts"] and detail["options"] and detail["rating_pools"]
    assert any(c["seats"] == 4 and len(c["teams"]) == 2 for c in detail["configs"])
    assert client.get(detail["rules_url"]).json()["text"]
    _assert_error(client.get("/api/games/nope/"), 404, "not_found")
    _assert_error(client.get("/api/nothing-here/"), 404, "not_found")


def test_upload_and_owner_permissions(user: Any, other: Any, staff: Any) -> None:
    anonymous = APIClient()
    _assert_error(_upload(anonymous, RANDOM_BOT, "random_bot.py"), 401)
    owner = _client(user)
    created = _upload(owner, RANDOM_BOT, "random_bot.py")
    assert created.status_code == 201, created.content
    bot_id = created.json()["id"]
    assert created.json()["version"]["number"] == 1 and "package" not in created.json()["version"]
    _assert_error(_upload(owner, RANDOM_BOT, "random_bot.py"), 409)  # same name again

    intruder = _client(other)
    new_version = {"package": SimpleUploadedFile("r.py", RANDOM_BOT + b"\n")}
    _assert_error(intruder.post(f"/api/bots/{bot_id}/versions/", new_version, format="multipart"), 403)
    _assert_error(intruder.post(f"/api/bots/{bot_id}/deactivate/"), 403)
    _assert_error(intruder.patch(f"/api/bots/{bot_id}/", {"visibility": "private"}, format="json"), 403)
    _assert_error(anonymous.post(f"/api/bots/{bot_id}/deactivate/"), 401)

    new_version = {"package": SimpleUploadedFile("r.py", RANDOM_BOT + b"\n")}
    response = owner.post(f"/api/bots/{bot_id}/versions/", new_version, format="multipart")
    assert response.status_code == 201 and response.json()["number"] == 2

    # Private: invisible to others, visible to its owner and staff.
    assert owner.patch(f"/api/bots/{bot_id}/", {"visibility": "private"}, format="json").status_code == 200
    _assert_error(intruder.get(f"/api/bots/{bot_id}/"), 404)
    _assert_error(anonymous.get(f"/api/bots/{bot_id}/"), 404)
    assert bot_id not in [b["id"] for b in anonymous.get("/api/bots/").json()["results"]]
    assert owner.get(f"/api/bots/{bot_id}/").status_code == 200
    assert _client(staff).get(f"/api/bots/{bot_id}/").status_code == 200
    assert owner.post(f"/api/bots/{bot_id}/deactivate/").json()["active"] is False


def _bad_zip_bomb() -> bytes:
    return _zip({"main.py": b"print('hi')\n", "big.bin": b"\0" * (60 * 1024 * 1024)})


@pytest.mark.parametrize(
    "data,filename,game,fragment",
    [
        (b"this is not a zip file at all", "bot.zip", "gamesup", ""),
        (_bad_zip_bomb(), "bomb.zip", "gamesup", ""),
        (_zip({"../evil.py": b"x", "main.py": b"x"}), "evil.zip", "gamesup", ""),
        (_zip({"README.txt": b"hello"}), "noentry.zip", "gamesup", "entry point"),
        (RANDOM_BOT, "random_bot.py", "no-such-game", "game"),
        (b"", "empty.py", "gamesup", "empty"),
    ],
    ids=["not-an-archive", "zip-bomb", "traversal", "no-entry-point", "wrong-game", "empty"],
)
def test_bad_uploads_store_nothing(user: Any, data: bytes, filename: str, game: str, fragment: str) -> None:
    error = _assert_error(_upload(_client(user), data, filename, game=game), 400)
    assert fragment.lower() in error["message"].lower()
    assert error["fields"]
    assert not Bot.objects.exists() and not BotVersion.objects.exists()


@override_settings(ARBITER_MAX_PACKAGE_BYTES=1000)
def test_too_large_upload(user: Any) -> None:
    error = _assert_error(_upload(_client(user), b"#" * 2000 + b"\n", "big.py"), 400, "package_too_large")
    assert "limit" in error["message"]
    assert not Bot.objects.exists()


def test_tournament_flow_and_stderr_privacy(user: Any, other: Any, staff: Any, make_bot: Any, play: Any) -> None:
    mine = make_bot(name="mine")
    theirs = make_bot(owner=other, name="theirs")
    private = make_bot(owner=other, name="hidden", visibility="private")
    owner = _client(user)
    body = {"game": "gamesup", "participants": [mine.id, private.id], "games_per_pairing": 1}
    _assert_error(owner.post("/api/tournaments/", body, format="json"), 400)  # not visible to alice
    _assert_error(owner.post("/api/tournaments/", {**body, "participants": [mine.id]}, format="json"), 400)
    bad_options = {**body, "participants": [mine.id, theirs.id], "options": {"bogus": 1}}
    assert _assert_error(owner.post("/api/tournaments/", bad_options, format="json"), 400)["code"] == "invalid_options"
    response = owner.post("/api/tournaments/", {**body, "participants": [mine.id, theirs.id]}, format="json")
    assert response.status_code == 201, response.content
    tid = response.json()["id"]
    assert response.json()["status"] == "draft"
    _assert_error(_client(other).post(f"/api/tournaments/{tid}/start/"), 403)
    _assert_error(APIClient().post(f"/api/tournaments/{tid}/start/"), 401)
    started = owner.post(f"/api/tournaments/{tid}/start/").json()
    assert started["status"] == "running" and started["progress"]["queued"] == 1
    _assert_error(owner.post(f"/api/tournaments/{tid}/start/"), 409)

    from tournaments.matches.models import Match

    match = Match.objects.get(tournament_id=tid)
    play(match, [1, 2])
    assert owner.get(f"/api/tournaments/{tid}/").json()["status"] == "finished"
    standings = APIClient().get(f"/api/tournaments/{tid}/standings/").json()["standings"]
    assert [r["games"] for r in standings] == [1, 1]
    assert APIClient().get(f"/api/tournaments/{tid}/crosstable/").json()["rows"]
    listed = APIClient().get(f"/api/matches/?tournament={tid}&status=finished").json()
    # Matches come in cursor pages: no count, only next/previous links.
    assert len(listed["results"]) == 1 and "stderr" not in listed["results"][0]["players"][0]
    _assert_error(APIClient().get("/api/matches/?status=bogus"), 400)

    def stderr_seen(client: APIClient) -> dict[str, bool]:
        detail = client.get(f"/api/matches/{match.id}/").json()
        assert detail["moves"] and detail["rating_changes"]
        return {p["bot_name"]: "stderr" in p for p in detail["players"]}

    assert stderr_seen(owner) == {"mine": True, "theirs": False}
    assert stderr_seen(_client(other)) == {"mine": False, "theirs": True}
    assert stderr_seen(APIClient()) == {"mine": False, "theirs": False}
    assert stderr_seen(_client(staff)) == {"mine": True, "theirs": True}

    # The organiser's own tournament is rated in the organiser's own pool.
    assert APIClient().get("/api/ratings/?game=gamesup").json()["results"] == []
    board = APIClient().get(f"/api/ratings/?game=gamesup&organiser={user.username}").json()
    winner = match.match_seats.get(seat=0).bot_version.bot_id  # ranks [1, 2]: seat 0 won
    assert len(board["results"]) == 2 and board["results"][0]["bot"] == winner
    assert {r["games"] for r in board["results"]} == {1}
    history = APIClient().get(f"/api/bots/{mine.id}/ratings/").json()
    assert history["count"] == 1 and history["results"][0]["before"] == 1500.0
    assert owner.post(f"/api/tournaments/{tid}/cancel/").status_code == 409
