"""Throttles hold across web processes: two gunicorns sharing one Redis cache count one budget.

With the default local-memory cache each process would count on its own and let
twice the budget through; these tests would then fail.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.live import Api, random_bot
from tests.live.fixtures import LiveFactory

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _two_webs(live_processes: LiveFactory, **rates: str) -> tuple[Any, list[Api]]:
    """A set with a private Redis and two single-process gunicorns whose cache is that Redis."""
    procs = live_processes(redis="private", tag="throttle", env={"ARBITER_LOG_LEVEL": "WARNING", **rates})
    cache = procs.redis_url.rsplit("/", 1)[0] + "/1"
    for name in ("web1", "web2"):
        procs.web("gunicorn", name=name, processes=1, env={"ARBITER_CACHE_URL": cache})
    procs.wait_ready()
    procs.shell(
        "from django.contrib.auth import get_user_model\n"
        "get_user_model().objects.create_user(username='victim', password='a-long-pass-phrase')\n"
        "from tournaments.games.services import game_sync\ngame_sync()\nprint(1)"
    )
    return procs, [Api(procs.procs[name].url) for name in ("web1", "web2")]


def test_twenty_wrong_passwords_from_one_address_are_throttled_across_two_processes(
    live_processes: LiveFactory,
) -> None:
    _, webs = _two_webs(live_processes, ARBITER_RATE_LOGIN_IP="10/hour", ARBITER_RATE_LOGIN_USER="1000/hour")
    wrong = json.dumps({"username": "victim", "password": "guess"}).encode()
    answers = []
    for n in range(20):
        web = webs[n % 2]
        status, headers, body = web.raw("POST", "/api/auth/token/", wrong, {"Content-Type": "application/json"})
        answers.append((n % 2, status))
        if status == 429:
            assert json.loads(body)["error"]["code"] == "throttled" and int(headers["Retry-After"]) > 0
    assert [status for _, status in answers] == [400] * 10 + [429] * 10, answers
    assert {web for web, status in answers if status == 429} == {0, 1}  # both processes refuse
    # The right password is refused too while the address is over its budget.
    right = json.dumps({"username": "victim", "password": "a-long-pass-phrase"}).encode()
    assert webs[0].raw("POST", "/api/auth/token/", right, {"Content-Type": "application/json"})[0] == 429


def test_uploads_are_counted_across_two_processes(live_processes: LiveFactory) -> None:
    _, webs = _two_webs(live_processes, ARBITER_RATE_UPLOADS="3/hour")
    login = json.dumps({"username": "victim", "password": "a-long-pass-phrase"}).encode()
    _, _, body = webs[0].raw("POST", "/api/auth/token/", login, {"Content-Type": "application/json"})
    token = json.loads(body)["token"]
    answers = []
    for n in range(6):
        web = Api(webs[n % 2].base, token)
        try:
            web.upload_bot("gamesup", f"bot{n}", "random_bot.py", random_bot())
            answers.append(201)
        except AssertionError as exc:
            answers.append(int(str(exc).split(": ", 1)[1].split()[0]))
    assert answers == [201, 201, 201, 429, 429, 429], answers
