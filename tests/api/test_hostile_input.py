"""Input a hostile client sends is a 400 or 404 in the error shape, never a 500.

Forged match cursors, JSON nested a thousand deep, unknown filter values, and a
path that climbs out of /static/ on the development server.
"""

from __future__ import annotations

import base64
import http.client
import json
from typing import Any
from urllib.parse import urlparse

import pytest
from rest_framework.test import APIClient

from tests.api.conftest import LiveServer, assert_error, client_for

pytestmark = pytest.mark.django_db


def _cursor(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


@pytest.mark.parametrize(
    "query",
    [
        f"cursor={_cursor(b'p=abc')}",
        f"ordering=finished_at&cursor={_cursor(b'p=not-a-time')}",
        f"cursor={_cursor(b'o=-5&p=1')}",
    ],
)
def test_a_forged_match_cursor_is_a_404(query: str) -> None:
    assert_error(APIClient().get(f"/api/matches/?{query}"), 404, "not_found")


@pytest.mark.parametrize("path", ["/api/auth/token/", "/api/users/", "/api/tournaments/", "/api/challenges/"])
def test_json_nested_a_thousand_deep_is_a_400(user: Any, path: str) -> None:
    body = "[" * 1000 + "]" * 1000
    error = assert_error(client_for(user).post(path, body, content_type="application/json"), 400, "parse_error")
    assert "nested" in error["message"]
    deep_object = '{"a":' * 40 + "1" + "}" * 40
    assert_error(client_for(user).post(path, deep_object, content_type="application/json"), 400, "parse_error")


def test_json_nested_a_few_levels_is_read(user: Any) -> None:
    body = json.dumps({"game": "gamesup", "name": "t", "participants": [], "options": {"a": [[[1]]]}})
    response = client_for(user).post("/api/tournaments/", body, content_type="application/json")
    assert response.status_code != 400 or response.json()["error"]["code"] != "parse_error"


@pytest.mark.parametrize(
    "query",
    [
        "/api/bots/?game=no-such-game",
        "/api/bots/?owner=nobody-at-all",
        "/api/bots/?active=maybe",
        "/api/bots/?mine=perhaps",
        "/api/bots/?ordering=bogus",
        "/api/tournaments/?game=no-such-game",
        "/api/tournaments/?owner=nobody-at-all",
        "/api/tournaments/?rated=2",
        "/api/matches/?game=no-such-game",
        "/api/matches/?status=bogus",
        "/api/matches/?rated=sometimes",
        "/api/matches/?ordering=bogus",
    ],
)
def test_unknown_filter_values_are_a_400(query: str) -> None:
    error = assert_error(APIClient().get(query), 400, "invalid")
    assert error["fields"] and all(isinstance(m, str) for messages in error["fields"].values() for m in messages), error


def test_known_filter_values_still_filter(user: Any, make_bot: Any) -> None:
    make_bot(name="mine")
    assert APIClient().get("/api/bots/?game=gamesup&owner=alice&active=true").json()["count"] == 1
    assert APIClient().get("/api/bots/?active=false").json()["count"] == 0


@pytest.mark.parametrize("path", ["/static/../x", "/static/..%2f..%2fetc/passwd", "/static/%2e%2e/x"])
def test_the_development_server_answers_paths_out_of_static_with_a_404(live_api: LiveServer, path: str) -> None:
    """The live server is runserver with DEBUG on, as a developer runs it."""
    address = urlparse(live_api.base)
    connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=30)
    connection.request("GET", path)  # sent as written: no client-side normalisation
    response = connection.getresponse()
    assert response.status == 404, (response.status, response.read()[:300])


@pytest.mark.parametrize(
    "path",
    [
        f"/api/matches/?cursor={_cursor(b'p=abc')}",
        "/api/bots/?game=no-such-game",
        # Text PostgreSQL refuses (the live server runs on it): 404 in a path, 400 in a query.
        "/api/games/a%00/",
        "/api/ratings/?game=gamesup%00",
        "/api/bots/1/ratings/?pool=a%00",
        "/api/games/gamesup/leaderboard/?pool=%00",
    ],
)
def test_the_live_server_answers_hostile_queries_in_the_error_shape(live_api: LiveServer, path: str) -> None:
    address = urlparse(live_api.base)
    connection = http.client.HTTPConnection(address.hostname or "127.0.0.1", address.port, timeout=30)
    connection.request("GET", path, headers={"Accept": "application/json"})
    response = connection.getresponse()
    assert response.status in (400, 404) and set(json.loads(response.read())) == {"error"}
    body = "[" * 1000 + "]" * 1000
    connection.request("POST", "/api/auth/token/", body=body, headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    assert response.status == 400 and json.loads(response.read())["error"]["code"] == "parse_error"


@pytest.mark.parametrize(
    "body",
    [
        {"game": "gamesup", "name": "t", "participants": ["x", {"a": 1}, None]},
        {"game": "gamesup", "name": "t", "participants": [1, 2], "options": [[{"deep": ["x"]}]]},
        {"game": ["gamesup"], "name": {"n": 1}, "participants": "x", "clock": {"move_ms": "soon"}},
    ],
)
def test_error_fields_always_hold_lists_of_strings(user: Any, body: dict[str, Any]) -> None:
    error = assert_error(client_for(user).post("/api/tournaments/", body, format="json"), 400)
    for name, messages in error["fields"].items():
        assert isinstance(name, str) and isinstance(messages, list) and messages, error
        for message in messages:
            assert isinstance(message, str) and "{" not in message and "ErrorDetail" not in message, error


def test_error_fields_name_nested_items() -> None:
    from rest_framework.exceptions import ErrorDetail

    from tournaments.api.errors import error_fields

    nested = {"participants": {1: [ErrorDetail("A valid integer is required.")]}, "options": {"teams": ["bad"]}}
    assert error_fields(nested) == {
        "participants.1": ["A valid integer is required."],
        "options.teams": ["bad"],
    }


def test_a_300_mb_upload_is_refused_before_it_is_sent(live_api: LiveServer) -> None:
    """The server answers after the first megabyte of a 300 MB upload: it reads no further.

    (Were it to read the whole body first, this would wait for bytes that never come and fail
    at the socket's timeout.)
    """
    import socket

    address = urlparse(live_api.base)
    boundary = "b0undary"
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="game"\r\n\r\ngamesup\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="name"\r\n\r\nhuge\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="package"; filename="huge.py"\r\n\r\n'
    ).encode()
    length = len(head) + 300 * 1024 * 1024
    request = (
        f"POST /api/bots/ HTTP/1.1\r\nHost: {address.hostname}:{address.port}\r\n"
        f"Authorization: Token {live_api.token}\r\nAccept: application/json\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()
    with socket.create_connection((address.hostname or "127.0.0.1", address.port or 80), timeout=60) as sock:
        sock.sendall(request + head + b"#" * (1024 * 1024))
        answer = b""
        while b"\r\n\r\n" not in answer or not answer.rstrip().endswith(b"}"):
            chunk = sock.recv(65536)
            if not chunk:
                break
            answer += chunk
    status_line, _, rest = answer.partition(b"\r\n")
    assert b" 400 " in status_line, answer[:500]
    body = json.loads(rest.split(b"\r\n\r\n", 1)[1])
    assert body["error"]["code"] == "package_too_large"


def test_an_api_path_with_an_encoded_newline_is_a_json_404() -> None:
    response = APIClient().get("/api/bots/x%0Ay/version-tests/")
    assert_error(response, 404, "not_found")
