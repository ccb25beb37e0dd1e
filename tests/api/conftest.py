"""Fixtures for the public-API tests: the service fixtures, clients, and a clean throttle cache."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from tests.ci import need
from tests.live.fixtures import LiveFactory
from tests.service.conftest import _games, make_bot, other, play, staff, user  # noqa: F401

SETUP = """
import json
from django.contrib.auth import get_user_model
from tournaments.accounts.services import token_create
from tournaments.games.services import game_sync
from tournaments.bots.services import bot_create
game_sync()
users = get_user_model().objects
user = users.create_user(username="tester", password="tester-pw")
rival = users.create_user(username="rival", password="rival-pw")
random_bot = open("kit/bots/random_bot.py", "rb").read()
mine = bot_create(owner=user, game_id="gamesup", name="mine", package=random_bot, filename="random_bot.py").bot
theirs = bot_create(owner=rival, game_id="gamesup", name="theirs", package=random_bot, filename="random_bot.py").bot
print(json.dumps({"token": token_create(user=user)[1], "bot": mine.id, "rival_bot": theirs.id}))
"""


@dataclass
class LiveServer:
    base: str
    token: str
    bot: int
    rival_bot: int
    env: dict[str, str]
    log: Path  # the server's stdout and stderr


@pytest.fixture(scope="session")
def live_api(live_processes_session: LiveFactory) -> Iterator[LiveServer]:
    """One real server for the black-box tests: the doc examples and the fuzzer.

    On PostgreSQL, as in production: it refuses text SQLite stores (a NUL), so the
    fuzzer finds what would be a 500 there. A user with a token and two bots are added first.
    """
    missing = [name for name in ("ARBITER_TEST_DATABASE_URL", "ARBITER_TEST_REDIS_URL") if not os.environ.get(name)]
    need(not missing, f"the live API server runs on PostgreSQL and Redis: set {' and '.join(missing)}")
    procs = live_processes_session(
        web="runserver",
        tag="api",
        env={
            # Messages to workers go nowhere: these tests look at the API, not at games being played.
            "CELERY_BROKER_URL": "memory://",
            "ARBITER_RATE_UPLOADS": "100000/hour",
            "ARBITER_RATE_CHALLENGES": "100000/hour",
            "ARBITER_CHALLENGES_PER_DAY": "100000",
            "ARBITER_RATE_LOGIN_IP": "100000/hour",
            "ARBITER_RATE_LOGIN_USER": "100000/hour",
            "ARBITER_RATE_SIGNUP_IP": "100000/hour",
            "ARBITER_LOG_LEVEL": "WARNING",
            # The development settings, as a developer runs the server: no secret key, DEBUG and hosts defaulted.
            "SECRET_KEY": None,
            "DEBUG": None,
            "ALLOWED_HOSTS": None,
        },
    )
    ids = procs.shell(SETUP)
    yield LiveServer(procs.url, ids["token"], ids["bot"], ids["rival_bot"], procs.env(), procs.procs["web"].log_path)


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
