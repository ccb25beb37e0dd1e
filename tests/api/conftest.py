"""Fixtures for the public-API tests: the service fixtures, clients, and a clean throttle cache."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.api.live import LiveServer, live_server
from tests.service.conftest import _games, make_bot, other, play, staff, user  # noqa: F401


@pytest.fixture(scope="session")
def live_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One real server (runserver on SQLite) for the black-box tests: the doc examples and the fuzzer."""
    var_dir: Path = tmp_path_factory.mktemp("live-api")
    with live_server(var_dir) as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh_throttles() -> Iterator[None]:
    """Throttle counts live in the cache, keyed by user id; ids repeat between tests."""
    cache.clear()
    yield
    cache.clear()


def client_for(who: Any = None) -> APIClient:
    client = APIClient()
    if who is not None:
        client.force_authenticate(who)
    return client


def assert_error(response: Any, status: int, code: str | None = None) -> dict[str, Any]:
    """The response has ``status`` and the one error shape; returns its ``error`` object."""
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert set(body) == {"error"}, body
    assert set(body["error"]) == {"code", "message", "fields"}, body
    assert isinstance(body["error"]["message"], str) and body["error"]["message"]
    if code is not None:
        assert body["error"]["code"] == code, body
    return body["error"]
