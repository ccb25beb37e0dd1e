"""Accounts: sign-up and the API token (create, revoke); the API and the pages both call these."""

from __future__ import annotations

import re
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from rest_framework.authtoken.models import Token

from tournaments.errors import ConflictError, ServiceError

USERNAME_RE = re.compile(r"^[\w.@+-]{1,150}$")


def user_create(*, username: str, password: str) -> tuple[Any, Token]:
    """A new user with an API token; ServiceError for a bad name or password, ConflictError if taken."""
    if not USERNAME_RE.match(username):
        raise ServiceError(
            "A username is 1-150 letters, digits and @ . + - _.", fields={"username": ["invalid username"]}
        )
    try:
        validate_password(password)
    except ValidationError as exc:
        raise ServiceError(" ".join(exc.messages), fields={"password": list(exc.messages)}) from exc
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=username, password=password)
            token = Token.objects.create(user=user)
    except IntegrityError as exc:
        raise ConflictError("That username is taken.", fields={"username": ["taken"]}) from exc
    return user, token


def token_create(*, user: Any) -> Token:
    """A new API token for ``user``; any earlier one stops working (one token per user)."""
    with transaction.atomic():
        Token.objects.filter(user=user).delete()
        return Token.objects.create(user=user)


def token_revoke(*, user: Any, key_prefix: str | None = None) -> int:
    """Delete ``user``'s token (only the one starting with ``key_prefix`` if given); how many went."""
    tokens = Token.objects.filter(user=user)
    if key_prefix:
        tokens = tokens.filter(key__startswith=key_prefix)
    deleted, _ = tokens.delete()
    return deleted
