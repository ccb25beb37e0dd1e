"""Every error status a view documents (beyond the generic ones) is the status the API answers.

Each documented 403/409/429 has a reproduction here; a status documented without one
fails ``test_every_specific_status_has_a_reproduction``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from drf_spectacular.generators import SchemaGenerator

from tests.api.conftest import assert_error, client_for
from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_version_create

pytestmark = pytest.mark.django_db

GENERIC_403 = "Authenticated, but not allowed"
OPEN = {"uploads": "1000/hour", "challenges": "1000/hour", "login_ip": "1000/hour", "login_user": "1000/hour",
        "signup_ip": "1000/hour"}  # fmt: skip


def _package(name: str = "random_bot.py") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, RANDOM_BOT)


def _upload_twice_same_name(f: Any) -> Any:
    f.make_bot(name="taken")
    return client_for(f.user).post("/api/bots/", {"game": "gamesup", "name": "taken", "package": _package()})


def _upload_over_rate(f: Any) -> Any:
    with override_settings(ARBITER_THROTTLE_RATES={**OPEN, "uploads": "1/hour"}):
        client = client_for(f.user)
        client.post("/api/bots/", {"game": "gamesup", "name": "one", "package": _package()})
        return client.post("/api/bots/", {"game": "gamesup", "name": "two", "package": _package()})


def _version_of_deactivated(f: Any) -> Any:
    bot = f.make_bot(name="old")
    client_for(f.user).post(f"/api/bots/{bot.id}/deactivate/")
    return client_for(f.user).post(f"/api/bots/{bot.id}/versions/", {"package": _package()})


def _version_over_rate(f: Any) -> Any:
    bot = f.make_bot(name="busy")
    with override_settings(ARBITER_THROTTLE_RATES={**OPEN, "uploads": "1/hour"}):
        client = client_for(f.user)
        client.post(f"/api/bots/{bot.id}/versions/", {"package": _package()})
        return client.post(f"/api/bots/{bot.id}/versions/", {"package": _package()})


def _retire_twice(f: Any) -> Any:
    bot = f.make_bot(name="twice")
    bot_version_create(bot=bot, user=f.user, package=RANDOM_BOT + b"#2", filename="random_bot.py")
    client_for(f.user).post(f"/api/bots/{bot.id}/versions/2/retire/")
    return client_for(f.user).post(f"/api/bots/{bot.id}/versions/2/retire/")


def _cancel_version_test_twice(f: Any) -> Any:
    bot = f.make_bot(name="tested")
    bot_version_create(bot=bot, user=f.user, package=RANDOM_BOT + b"#2", filename="random_bot.py")
    made = client_for(f.user).post(f"/api/bots/{bot.id}/version-tests/", {"baseline": 1}, format="json").json()
    url = f"/api/bots/{bot.id}/version-tests/{made['id']}/cancel/"
    client_for(f.user).post(url)
    return client_for(f.user).post(url)


def _version_test_of_anothers_bot(f: Any) -> Any:
    bot = f.make_bot(name="theirs")
    bot_version_create(bot=bot, user=f.user, package=RANDOM_BOT + b"#2", filename="random_bot.py")
    return client_for(f.other).post(f"/api/bots/{bot.id}/version-tests/", {"baseline": 1}, format="json")


def _challenges_over_the_day(f: Any) -> Any:
    mine, theirs = f.make_bot(name="mine"), f.make_bot(owner=f.other, name="theirs")
    with override_settings(ARBITER_CHALLENGES_PER_DAY=0):
        return client_for(f.user).post("/api/challenges/", {"bot": mine.id, "opponent": theirs.id}, format="json")


def _challenge_url(f: Any) -> str:
    mine, theirs = f.make_bot(name="mine"), f.make_bot(owner=f.other, name="theirs")
    made = client_for(f.user).post("/api/challenges/", {"bot": mine.id, "opponent": theirs.id}, format="json")
    assert made.status_code == 201, made.content
    return f"/api/challenges/{made.json()['id']}/cancel/"


def _cancel_challenge_twice(f: Any) -> Any:
    url = _challenge_url(f)
    client_for(f.user).post(url)
    return client_for(f.user).post(url)


def _answer_ones_own_challenge(f: Any, answer: str) -> Any:
    return client_for(f.user).post(_challenge_url(f).replace("/cancel/", f"/{answer}/"))  # the challenger's


def _answer_a_challenge_never_asked(f: Any, answer: str) -> Any:
    return client_for(f.other).post(_challenge_url(f).replace("/cancel/", f"/{answer}/"))  # played at once


def _cancel_a_challenge_against_ones_bot(f: Any) -> Any:
    return client_for(f.other).post(_challenge_url(f))  # the opponent's owner sees it, but it is not theirs


def _schedule_by_a_user(f: Any) -> Any:
    return client_for(f.user).post("/api/schedules/", {"name": "x", "game": "gamesup"}, format="json")


def _schedule_changed_by_a_user(f: Any) -> Any:
    return client_for(f.user).patch("/api/schedules/1/", {"name": "x"}, format="json")


def _tournament(f: Any, start: bool) -> str:
    bots = [f.make_bot(name="a").id, f.make_bot(name="b").id]
    body = {"game": "gamesup", "name": "t", "participants": bots, "start": start}
    made = client_for(f.user).post("/api/tournaments/", body, format="json")
    assert made.status_code == 201, made.content
    return f"/api/tournaments/{made.json()['id']}"


def _start_twice(f: Any) -> Any:
    url = _tournament(f, start=True)
    return client_for(f.user).post(f"{url}/start/")


def _tournaments_over_the_hour(f: Any) -> Any:
    bots = [f.make_bot(name="a").id, f.make_bot(owner=f.other, name="b").id]
    with override_settings(ARBITER_TOURNAMENTS_PER_HOUR=0):
        body = {"game": "gamesup", "name": "t", "participants": bots}
        return client_for(f.user).post("/api/tournaments/", body, format="json")


def _start_over_the_queue(f: Any) -> Any:
    url = _tournament(f, start=False)
    with override_settings(ARBITER_QUEUED_MATCHES_PER_USER=0):
        return client_for(f.user).post(f"{url}/start/")


def _cancel_twice(f: Any) -> Any:
    url = _tournament(f, start=True)
    client_for(f.user).post(f"{url}/cancel/")
    return client_for(f.user).post(f"{url}/cancel/")


def _signup_closed(f: Any) -> Any:
    with override_settings(ARBITER_SIGNUP_OPEN=False):
        return client_for().post("/api/users/", {"username": "newcomer", "password": "a-long-pass-phrase"})


def _signup_taken(f: Any) -> Any:
    return client_for().post("/api/users/", {"username": "ALICE", "password": "a-long-pass-phrase"})


def _signup_over_rate(f: Any) -> Any:
    with override_settings(ARBITER_THROTTLE_RATES={**OPEN, "signup_ip": "1/hour"}):
        client_for().post("/api/users/", {"username": "first", "password": "a-long-pass-phrase"})
        return client_for().post("/api/users/", {"username": "second", "password": "a-long-pass-phrase"})


def _token_over_rate(f: Any) -> Any:
    with override_settings(ARBITER_THROTTLE_RATES={**OPEN, "login_ip": "1/hour"}):
        client_for().post("/api/auth/token/", {"username": "alice", "password": "x"})
        return client_for().post("/api/auth/token/", {"username": "alice", "password": "x"})


REPRODUCTIONS: dict[tuple[str, str, str], Callable[[Any], Any]] = {
    ("post", "/api/bots/", "409"): _upload_twice_same_name,
    ("post", "/api/bots/", "429"): _upload_over_rate,
    ("post", "/api/bots/{bot_id}/versions/", "409"): _version_of_deactivated,
    ("post", "/api/bots/{bot_id}/versions/", "429"): _version_over_rate,
    ("post", "/api/bots/{bot_id}/versions/{number}/retire/", "409"): _retire_twice,
    ("post", "/api/bots/{bot_id}/version-tests/{test_id}/cancel/", "409"): _cancel_version_test_twice,
    ("post", "/api/bots/{bot_id}/version-tests/", "403"): _version_test_of_anothers_bot,
    ("post", "/api/challenges/", "429"): _challenges_over_the_day,
    ("post", "/api/challenges/{challenge_id}/cancel/", "403"): _cancel_a_challenge_against_ones_bot,
    ("post", "/api/challenges/{challenge_id}/cancel/", "409"): _cancel_challenge_twice,
    **{
        ("post", f"/api/challenges/{{challenge_id}}/{answer}/", code): functools.partial(reproduce, answer=answer)
        for answer in ("accept", "decline")
        for code, reproduce in (("403", _answer_ones_own_challenge), ("409", _answer_a_challenge_never_asked))
    },
    ("post", "/api/schedules/", "403"): _schedule_by_a_user,
    ("patch", "/api/schedules/{schedule_id}/", "403"): _schedule_changed_by_a_user,
    ("post", "/api/tournaments/", "429"): _tournaments_over_the_hour,
    ("post", "/api/tournaments/{tournament_id}/start/", "409"): _start_twice,
    ("post", "/api/tournaments/{tournament_id}/start/", "429"): _start_over_the_queue,
    ("post", "/api/tournaments/{tournament_id}/cancel/", "409"): _cancel_twice,
    ("post", "/api/users/", "403"): _signup_closed,
    ("post", "/api/users/", "409"): _signup_taken,
    ("post", "/api/users/", "429"): _signup_over_rate,
    ("post", "/api/auth/token/", "429"): _token_over_rate,
}


def _specific_statuses() -> set[tuple[str, str, str]]:
    schema = SchemaGenerator().get_schema(request=None, public=True)
    found = set()
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            for code, response in operation["responses"].items():
                generic_403 = code == "403" and response.get("description", "").startswith(GENERIC_403)
                if code in ("403", "409", "429") and not generic_403:
                    found.add((method, path, code))
    return found


def test_every_specific_status_has_a_reproduction() -> None:
    assert _specific_statuses() == set(REPRODUCTIONS)


class _Fixtures:
    def __init__(self, user: Any, other: Any, make_bot: Any) -> None:
        self.user, self.other, self.make_bot = user, other, make_bot


@override_settings(ARBITER_THROTTLE_RATES=OPEN)
@pytest.mark.parametrize("key", sorted(REPRODUCTIONS), ids=lambda k: f"{k[0]} {k[1]} {k[2]}")
def test_the_documented_status_is_answered(key: tuple[str, str, str], user: Any, other: Any, make_bot: Any) -> None:
    response = REPRODUCTIONS[key](_Fixtures(user, other, make_bot))
    assert_error(response, int(key[2]))
