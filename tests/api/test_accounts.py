"""Accounts: password checks, closed sign-up, lookalike usernames, hashed expiring tokens, login throttles."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.api.conftest import assert_error
from tournaments.accounts.models import ApiToken
from tournaments.accounts.usernames import username_skeleton
from tournaments.dbclock import db_clock

pytestmark = pytest.mark.django_db

RATES = {"uploads": "1000/hour", "challenges": "1000/hour", "login_ip": "1000/hour", "login_user": "1000/hour",
         "signup_ip": "1000/hour"}  # fmt: skip


def _signup(username: str, password: str = "a-long-pass-phrase", address: str = "10.0.0.1") -> Any:
    return APIClient(REMOTE_ADDR=address).post("/api/users/", {"username": username, "password": password})


@override_settings(ARBITER_THROTTLE_RATES=RATES)
@pytest.mark.parametrize("password", ["1234", "password", "12345678901", "carol-smith"])
def test_weak_passwords_are_refused(password: str) -> None:
    error = assert_error(_signup("carol-smith", password), 400, "invalid")
    assert error["fields"]["password"] and all(isinstance(m, str) for m in error["fields"]["password"])


@override_settings(ARBITER_THROTTLE_RATES=RATES, ARBITER_SIGNUP_OPEN=False)
def test_sign_up_can_be_closed() -> None:
    assert_error(_signup("carol"), 403, "signup_closed")


@override_settings(ARBITER_THROTTLE_RATES=RATES)
@pytest.mark.parametrize("lookalike", ["Ada", "ADA", "\u0430da", "\uff41\uff44\uff41", "\u03b1da", "ád\u0430"])
def test_lookalike_usernames_are_taken(lookalike: str) -> None:
    assert _signup("ada").status_code == 201
    assert_error(_signup(lookalike), 409, "conflict")
    assert _signup("adam").status_code == 201


def test_skeletons_fold_what_a_reader_confuses() -> None:
    assert username_skeleton("Bill") == username_skeleton("B1ll") == username_skeleton("bi\u0406l")
    assert username_skeleton("carol") != username_skeleton("karol")


@override_settings(ARBITER_THROTTLE_RATES=RATES)
def test_tokens_are_hashed_and_expire() -> None:
    made = _signup("erin")
    key = made.json()["token"]
    stored = ApiToken.objects.get(user_id=made.json()["id"])
    assert key not in (stored.digest, stored.prefix) and len(stored.digest) == 64
    assert stored.expires_at is not None and stored.expires_at > db_clock() + datetime.timedelta(days=89)
    client = APIClient(HTTP_AUTHORIZATION=f"Token {key}")
    assert client.get("/api/users/me/").status_code == 200
    ApiToken.objects.filter(pk=stored.pk).update(expires_at=db_clock() - datetime.timedelta(seconds=1))
    assert_error(client.get("/api/users/me/"), 401, "authentication_failed")


@override_settings(ARBITER_THROTTLE_RATES=RATES, ARBITER_TOKEN_TTL_DAYS=0)
def test_a_zero_lifetime_means_until_revoked() -> None:
    made = _signup("erin")
    assert ApiToken.objects.get(user_id=made.json()["id"]).expires_at is None


@override_settings(ARBITER_THROTTLE_RATES={**RATES, "login_ip": "5/hour"})
def test_token_requests_are_throttled_per_address(user: Any) -> None:
    wrong = {"username": "alice", "password": "wrong"}
    answers = [APIClient(REMOTE_ADDR="10.0.0.7").post("/api/auth/token/", wrong).status_code for _ in range(8)]
    assert answers == [400] * 5 + [429] * 3
    # Another address still gets its own budget.
    right = {"username": "alice", "password": "alice-pw"}
    assert APIClient(REMOTE_ADDR="10.0.0.8").post("/api/auth/token/", right).status_code == 200


# No per-address allowance past the lock here: the username's own budget alone (test_login_lock.py has both).
@override_settings(ARBITER_THROTTLE_RATES={**RATES, "login_user": "4/hour", "login_user_address": "0/hour"})
def test_token_requests_are_throttled_per_username_from_any_address(user: Any) -> None:
    answers = [
        APIClient(REMOTE_ADDR=f"10.0.1.{n}").post("/api/auth/token/", {"username": name, "password": "x"}).status_code
        for n, name in enumerate(["alice", "Alice", "\u0430lice", "ALICE", "alice", "alice"])
    ]
    assert answers == [400] * 4 + [429] * 2
    error = assert_error(APIClient().post("/api/auth/token/", {"username": "alice", "password": "x"}), 429)
    assert error["code"] == "throttled"


@override_settings(ARBITER_THROTTLE_RATES={**RATES, "signup_ip": "2/hour"})
def test_sign_ups_are_throttled_per_address() -> None:
    assert [_signup(f"user{n}").status_code for n in range(3)] == [201, 201, 429]
    assert _signup("user9", address="10.0.0.2").status_code == 201


@override_settings(ARBITER_THROTTLE_RATES={**RATES, "login_ip": "3/hour"})
def test_the_admin_login_form_shares_the_throttle(staff: Any) -> None:
    browser = Client(REMOTE_ADDR="10.0.0.9")
    answers = [browser.post("/admin/login/", {"username": "root", "password": "no"}).status_code for _ in range(3)]
    assert answers == [200, 200, 200]  # the form again, with its error
    assert browser.post("/admin/login/", {"username": "root", "password": "root-pw"}).status_code == 429
    assert browser.post("/api-auth/login/", {"username": "root", "password": "root-pw"}).status_code == 429


@override_settings(ARBITER_THROTTLE_RATES={**RATES, "login_ip": "2/hour"}, ARBITER_BEHIND_PROXY=True)
def test_behind_a_proxy_the_address_it_forwards_is_counted(user: Any) -> None:
    def attempt(forwarded: str) -> int:
        client = APIClient(REMOTE_ADDR="10.9.9.9", HTTP_X_FORWARDED_FOR=forwarded)
        return client.post("/api/auth/token/", {"username": "alice", "password": "x"}).status_code

    # A client cannot escape by sending its own X-Forwarded-For: the proxy's last entry counts.
    assert [attempt(f"1.2.3.{n}, 203.0.113.5") for n in range(3)] == [400, 400, 429]
    assert attempt("203.0.113.6") == 400


@override_settings(ARBITER_THROTTLE_RATES={**RATES, "signup_ip": "1/hour", "login_ip": "2/hour"})
def test_the_pages_sign_up_and_log_in_share_the_throttles(user: Any) -> None:
    browser = Client(REMOTE_ADDR="10.0.0.10")
    first = browser.post("/signup/", {"username": "page-user", "password": "a-long-pass-phrase"})
    assert first.status_code == 302
    assert (
        Client(REMOTE_ADDR="10.0.0.10").post("/signup/", {"username": "page-two", "password": "x"}).status_code == 429
    )
    other = Client(REMOTE_ADDR="10.0.0.11")
    answers = [other.post("/login/", {"username": "alice", "password": "no"}).status_code for _ in range(3)]
    assert answers == [200, 200, 429]


@override_settings(ARBITER_THROTTLE_RATES=RATES, ARBITER_SIGNUP_OPEN=False)
def test_the_pages_sign_up_is_closed_too() -> None:
    page = Client().post("/signup/", {"username": "page-user", "password": "a-long-pass-phrase"})
    assert page.status_code == 400 and "Sign-up is closed" in page.content.decode()
