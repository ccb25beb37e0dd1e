"""Text PostgreSQL cannot store (NUL, a lone surrogate) is a 404 in a path and a 400 anywhere else.

The walk reads the OpenAPI schema, so a new route, parameter or body field is
covered without touching this file: every path part, every query parameter and
every top-level body field of every operation gets a NUL, on the test database
(PostgreSQL under CI), as the owner of the objects the ids name.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from tests.api.conftest import assert_error, client_for
from tests.api.test_permissions import url_routes

pytestmark = pytest.mark.django_db

NUL = "a\x00"
SURROGATE_JSON = '"a\\ud800"'


@pytest.fixture
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture
def owner_client(staff: Any, make_bot: Any) -> tuple[APIClient, int]:
    """Staff (who may call every operation) and the id of a bot of theirs, for the walk's ids."""
    return client_for(staff), make_bot(owner=staff).id


def _operations(schema: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in schema["paths"].items() for method, op in item.items()]


def _url(path: str, bot: int, replace: str | None = None) -> str:
    """``path`` with its parameters filled in: ``replace`` gets a NUL, a game a real game, a bot ``bot``."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name == replace:
            return quote(NUL)
        return {"game_id": "gamesup", "bot_id": str(bot)}.get(name, "1")

    return re.sub(r"\{(\w+)\}", fill, path)


def _call(client: APIClient, method: str, url: str, **kwargs: Any) -> Any:
    return getattr(client, method)(url, **kwargs)


def test_a_nul_in_every_path_part_is_a_404(schema: dict[str, Any], owner_client: tuple[APIClient, int]) -> None:
    client, bot = owner_client
    seen = 0
    for path, method, _ in _operations(schema):
        for name in re.findall(r"\{(\w+)\}", path):
            assert_error(_call(client, method, _url(path, bot, name)), 404, "not_found")
            seen += 1
    assert seen > 20, seen  # the walk found the routes


def test_a_nul_in_every_query_parameter_is_a_400(schema: dict[str, Any], owner_client: tuple[APIClient, int]) -> None:
    client, bot = owner_client
    seen = 0
    for path, method, op in _operations(schema):
        for parameter in op.get("parameters", []):
            if parameter["in"] != "query":
                continue
            url = f"{_url(path, bot)}?{parameter['name']}={quote(NUL)}"
            error = assert_error(_call(client, method, url), 400, "invalid")
            assert parameter["name"] in error["fields"], error
            seen += 1
    assert seen > 20, seen


def _body_fields(schema: dict[str, Any], op: dict[str, Any]) -> dict[str, Any]:
    content = op.get("requestBody", {}).get("content", {}).get("application/json")
    if content is None:
        return {}
    ref = content["schema"].get("$ref", "")
    component = schema["components"]["schemas"][ref.rsplit("/", 1)[-1]] if ref else content["schema"]
    return dict(component.get("properties", {}))


def test_a_nul_or_a_lone_surrogate_in_every_json_body_field_is_a_400(
    schema: dict[str, Any], owner_client: tuple[APIClient, int]
) -> None:
    client, bot = owner_client
    seen = 0
    for path, method, op in _operations(schema):
        url = _url(path, bot)
        for name, field in _body_fields(schema, op).items():
            # Objects (game options) get one in a key and in a value; everything else a NUL string.
            bad: Any = {NUL: NUL} if field.get("type") == "object" else NUL
            surrogate = json.dumps({name: "SURROGATE"}).replace('"SURROGATE"', SURROGATE_JSON)
            for body in (json.dumps({name: bad}), surrogate):
                answer = _call(client, method, url, data=body, content_type="application/json")
                # Routes whose ids name nothing here (a tournament 1) answer 404 before reading the body.
                assert_error(answer, 400 if answer.status_code != 404 else 404)
                seen += answer.status_code == 400
    assert seen > 40, seen


def test_an_escaped_astral_character_is_still_text() -> None:
    """A surrogate pair (how ``json.dumps`` writes an emoji) decodes to one character: not refused."""
    body = '{"username": "\\ud83d\\ude00", "password": "x"}'
    error = assert_error(APIClient().post("/api/auth/token/", body, content_type="application/json"), 400, "invalid")
    assert "NUL" not in error["message"]


def _page_routes() -> list[str]:
    """Every page route with a text part, its text parts marked ``{}``."""
    return [
        "/" + re.sub(r"<int:\w+>", "1", re.sub(r"<str:\w+>", "{}", route))
        for route, _ in url_routes()
        if "<str:" in route and not route.startswith("api/")
    ]


def test_pages_refuse_a_nul_in_a_path_part_or_a_query_parameter(user: Any) -> None:
    routes = _page_routes()
    assert "/games/{}/leaderboard/" in routes, routes
    browser = Client()
    browser.force_login(user)
    for route in routes:
        assert browser.get(route.replace("{}", quote(NUL))).status_code == 404, route
        assert browser.post(route.replace("{}", quote(NUL))).status_code == 404, route
    for url in ("/games/", "/games/gamesup/leaderboard/", "/me/bots/", "/admin/", "/login/"):
        assert browser.get(f"{url}?game={quote(NUL)}").status_code == 400, url
        assert browser.get(f"{url}?{quote(NUL)}=1").status_code == 400, url
