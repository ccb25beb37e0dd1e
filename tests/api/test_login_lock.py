"""A stranger who spends a username's login budget does not lock its owner out.

Past the username's budget each address keeps a small allowance of its own for
that name, so the owner's address still gets its tries; and a request that
carries a valid token of the name is not counted against it at all.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.api.conftest import assert_error
from tournaments.accounts.services import token_create

pytestmark = pytest.mark.django_db

RATES = {"login_ip": "1000/hour", "login_user": "3/hour", "login_user_address": "2/hour", "signup_ip": "1000/hour"}
WRONG = {"username": "alice", "password": "guess"}
RIGHT = {"username": "alice", "password": "alice-pw"}


def _from(address: str) -> APIClient:
    return APIClient(REMOTE_ADDR=address)


@override_settings(ARBITER_THROTTLE_RATES=RATES)
def test_the_owners_address_still_gets_its_tries_when_a_stranger_spent_the_username(user: Any) -> None:
    stranger = _from("203.0.113.66")
    # The username's 3, then the stranger's own allowance of 2, then nothing more from that address.
    answers = [stranger.post("/api/auth/token/", WRONG).status_code for _ in range(7)]
    assert answers == [400] * 5 + [429] * 2
    assert_error(stranger.post("/api/auth/token/", RIGHT), 429, "throttled")
    # The owner, elsewhere: their address's allowance lets them in, on the API and on the page.
    assert _from("198.51.100.7").post("/api/auth/token/", RIGHT).status_code == 200
    page = Client(REMOTE_ADDR="198.51.100.7").post("/login/", {"username": "alice", "password": "alice-pw"})
    assert page.status_code == 302


@override_settings(ARBITER_THROTTLE_RATES=RATES)
def test_a_token_of_the_username_lets_its_holder_past_the_lock(user: Any) -> None:
    _, key = token_create(user=user)
    home = _from("198.51.100.8")
    # The username's budget and this address's allowance both spent (a stranger behind the same address).
    assert [home.post("/api/auth/token/", WRONG).status_code for _ in range(6)] == [400] * 5 + [429]
    home.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert home.post("/api/auth/token/", RIGHT).status_code == 200
    # The token proves only its own user: another locked username stays locked for its holder.
    bob = {"username": "bob", "password": "x"}
    assert [home.post("/api/auth/token/", bob).status_code for _ in range(6)] == [400] * 5 + [429]
