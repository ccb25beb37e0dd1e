"""A new password revokes every API token of its user, wherever it is set, and the page says so.

A login that only re-hashes the same password (newer hasher parameters) is not a change.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import make_password
from django.core.management import call_command
from django.test import Client, override_settings
from rest_framework.test import APIClient

from tests.api.conftest import assert_error
from tournaments.accounts.models import ApiToken
from tournaments.accounts.services import token_create

pytestmark = pytest.mark.django_db

NEW = "a-brand-new-pass-phrase"


def _works(key: str) -> bool:
    return APIClient(HTTP_AUTHORIZATION=f"Token {key}").get("/api/users/me/").status_code == 200


def test_the_password_page_revokes_every_token_and_says_so(user: Any, other: Any) -> None:
    keys = [token_create(user=user)[1] for _ in range(2)]
    theirs = token_create(user=other)[1]
    browser = Client()
    browser.force_login(user)
    form = browser.get("/me/password/").content.decode()
    assert "revokes your API tokens" in form
    done = browser.post(
        "/me/password/", {"old_password": "alice-pw", "new_password1": NEW, "new_password2": NEW}, follow=True
    )
    assert done.status_code == 200 and "every API token you had is revoked" in done.content.decode()
    assert not any(_works(key) for key in keys)
    error = assert_error(APIClient(HTTP_AUTHORIZATION=f"Token {keys[0]}").get("/api/users/me/"), 401)
    assert error["code"] == "authentication_failed"
    assert _works(theirs)  # another user's tokens stay
    # A token made after the change works.
    assert _works(token_create(user=user)[1])


def test_the_admin_and_changepassword_revoke_them_too(user: Any, monkeypatch: Any) -> None:
    key = token_create(user=user)[1]
    admin = Client()
    admin.force_login(get_user_model().objects.create_superuser(username="root-admin", password="root-pw"))
    url = f"/admin/auth/user/{user.pk}/password/"
    page = admin.post(url, {"password1": NEW, "password2": NEW, "usable_password": "true"})
    assert page.status_code == 302, page.content[:2000]
    assert not _works(key)
    key = token_create(user=user)[1]
    answers = iter([NEW + "2", NEW + "2"])
    monkeypatch.setattr("getpass.getpass", lambda *a, **k: next(answers))
    call_command("changepassword", "alice", stdout=None)
    assert not _works(key)


@override_settings(
    PASSWORD_HASHERS=[
        "django.contrib.auth.hashers.PBKDF2PasswordHasher",
        "django.contrib.auth.hashers.MD5PasswordHasher",
    ]
)
def test_a_login_that_rehashes_the_same_password_keeps_the_tokens(user: Any) -> None:
    # Stored with another hasher: the next login re-hashes it with the first of PASSWORD_HASHERS.
    stored = get_user_model().objects.get(pk=user.pk)
    stored.password = make_password("alice-pw", hasher="md5")
    stored.save(update_fields=["password"])
    key = token_create(user=user)[1]
    assert APIClient().post("/api/auth/token/", {"username": "alice", "password": "alice-pw"}).status_code == 200
    assert get_user_model().objects.get(pk=user.pk).password.startswith("pbkdf2_sha256$")
    assert _works(key) and ApiToken.objects.filter(user=user).count() == 2
