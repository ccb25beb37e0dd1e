"""Tokens, the one error shape for every status, filters, ordering and cursor pages."""

from __future__ import annotations

from typing import Any

from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import RequestFactory, override_settings
from rest_framework.test import APIClient

from tests.api.conftest import assert_error, client_for
from tests.service.conftest import RANDOM_BOT
from tournaments.api.errors import exception_handler, server_error
from tournaments.matches.models import Match


def test_token_create_and_revoke(user: Any) -> None:
    anonymous = APIClient()
    token = anonymous.post("/api/auth/token/", {"username": "alice", "password": "alice-pw"}, format="json")
    assert token.status_code == 200
    key = token.json()["token"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/users/me/").json()["username"] == "alice"
    # Each request issues another token; revoking one leaves the others working.
    other = anonymous.post("/api/auth/token/", {"username": "alice", "password": "alice-pw"}).json()["token"]
    assert other != key
    assert client.delete("/api/auth/token/").status_code == 204
    assert_error(client.get("/api/users/me/"), 401, "authentication_failed")
    assert APIClient(HTTP_AUTHORIZATION=f"Token {other}").get("/api/users/me/").status_code == 200
    assert_error(anonymous.delete("/api/auth/token/"), 401, "not_authenticated")
    assert_error(anonymous.post("/api/auth/token/", {"username": "alice", "password": "wrong"}), 400, "invalid")


def test_session_auth_for_the_browser(user: Any) -> None:
    browser = APIClient(enforce_csrf_checks=True)
    assert browser.login(username="alice", password="alice-pw")
    assert browser.get("/api/users/me/").json()["username"] == "alice"
    # A write without the CSRF token is refused in the error shape.
    assert_error(browser.post("/api/bots/1/deactivate/"), 403)


def test_every_error_status_has_the_shape(user: Any, make_bot: Any) -> None:
    anonymous = APIClient()
    assert_error(anonymous.get("/api/no/such/thing/"), 404, "not_found")
    assert_error(anonymous.get("/api/bots/999999/"), 404, "not_found")
    assert_error(anonymous.delete("/api/games/"), 405, "method_not_allowed")
    assert_error(anonymous.post("/api/bots/"), 401, "not_authenticated")
    bad_token = APIClient()
    bad_token.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert_error(bad_token.get("/api/games/"), 401, "authentication_failed")
    bot = make_bot(name="mine")
    from django.contrib.auth import get_user_model

    stranger = get_user_model().objects.create_user(username="stranger", password="x-pw-1")
    assert_error(client_for(stranger).post(f"/api/bots/{bot.id}/deactivate/"), 403, "permission_denied")
    assert_error(anonymous.get("/api/matches/?status=bogus"), 400, "invalid")
    assert_error(anonymous.get("/api/tournaments/?ordering=bogus"), 400, "invalid")
    assert_error(
        client_for(user).generic("POST", "/api/tournaments/", "{not json", content_type="application/json"),
        400,
        "parse_error",
    )
    with override_settings(ARBITER_THROTTLE_RATES={"uploads": "1/hour", "challenges": "1/hour"}):
        owner = client_for(user)
        package = {"game": "gamesup", "name": "a", "package": SimpleUploadedFile("r.py", RANDOM_BOT)}
        assert owner.post("/api/bots/", package, format="multipart").status_code == 201
        package = {"game": "gamesup", "name": "b", "package": SimpleUploadedFile("r.py", RANDOM_BOT)}
        assert_error(owner.post("/api/bots/", package, format="multipart"), 429, "throttled")
    # A body past DATA_UPLOAD_MAX_MEMORY_SIZE (2.5 MB; files do not count), as JSON or multipart.
    huge = "x" * 3_000_000
    too_big = client_for(user).post("/api/tournaments/", {"game": "gamesup", "name": huge}, format="json")
    assert "2621440 bytes" in assert_error(too_big, 413, "request_too_large")["message"]
    too_big = client_for(user).post(
        "/api/bots/",
        {"game": "gamesup", "name": "c", "description": huge, "package": SimpleUploadedFile("r.py", RANDOM_BOT)},
        format="multipart",
    )
    assert_error(too_big, 413, "request_too_large")
    # A fault in a view, and one outside the views, are JSON 500s in the same shape.
    response = exception_handler(RuntimeError("boom"), {})
    assert response.status_code == 500 and response.data["error"]["code"] == "server_error"
    page = server_error(RequestFactory().get("/api/bots/"))
    assert page.status_code == 500 and b'"server_error"' in page.content
    assert b"server_error" not in server_error(RequestFactory().get("/admin/")).content


def test_filters_and_ordering(user: Any, other: Any, make_bot: Any) -> None:
    a = make_bot(name="alpha")
    b = make_bot(name="beta", visibility="private")
    c = make_bot(owner=other, name="gamma")
    make_bot(owner=other, name="seq", game="sequence")
    client = client_for(user)

    def ids(query: str) -> list[int]:
        return [x["id"] for x in client.get(f"/api/bots/?{query}").json()["results"]]

    assert ids("game=gamesup&ordering=name") == [a.id, b.id, c.id]
    assert ids("game=gamesup&ordering=-name") == [c.id, b.id, a.id]
    assert ids("mine=true&ordering=name") == [a.id, b.id]
    assert ids("owner=bob") == sorted(ids("owner=bob")) and len(ids("owner=bob")) == 2
    assert ids("visibility=private") == [b.id]
    assert ids("search=AMM") == [c.id]
    assert [x["id"] for x in APIClient().get("/api/bots/?game=gamesup").json()["results"]] == [a.id, c.id]


def test_matches_come_in_cursor_pages(user: Any, other: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(name=f"b{i}") for i in range(3)] + [make_bot(owner=other, name="o")]
    client = client_for(user)
    made = client.post(
        "/api/tournaments/",
        {"game": "gamesup", "participants": [b.id for b in bots], "games_per_pairing": 1, "start": True},
        format="json",
    ).json()
    matches = list(Match.objects.filter(tournament_id=made["id"]).order_by("id"))
    assert len(matches) == 6
    for m in matches[::2]:
        play(m, [1, 2])

    def walk(url: str) -> list[int]:
        seen: list[int] = []
        while url:
            page = client.get(url).json()
            assert "count" not in page
            seen += [m["id"] for m in page["results"]]
            url = page["next"]
        return seen

    everything = walk(f"/api/matches/?tournament={made['id']}&page_size=2")
    assert everything == [m.id for m in reversed(matches)]
    assert walk(f"/api/matches/?tournament={made['id']}&page_size=2&ordering=id") == [m.id for m in matches]
    finished = walk(f"/api/matches/?tournament={made['id']}&page_size=1&ordering=finished_at")
    assert finished == [m.id for m in matches[::2]]
    assert walk(f"/api/matches/?tournament={made['id']}&order=finished") == finished
    assert walk(f"/api/matches/?bot={bots[3].id}&status=finished&page_size=1") == sorted(
        [m.id for m in matches[::2] if m.match_seats.filter(bot_version__bot=bots[3]).exists()], reverse=True
    )
    # A new match does not shift the pages being read.
    first = client.get(f"/api/matches/?tournament={made['id']}&page_size=3&ordering=id").json()
    client.post(
        "/api/tournaments/",
        {"game": "gamesup", "participants": [bots[0].id, bots[1].id], "games_per_pairing": 1, "start": True},
        format="json",
    )
    rest = client.get(first["next"]).json()
    assert [m["id"] for m in rest["results"]] == [m.id for m in matches[3:]]
