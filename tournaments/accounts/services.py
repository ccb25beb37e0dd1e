"""Writes of accounts: sign-up, username claims, API tokens issued and revoked (the API and the pages call these)."""

from __future__ import annotations

import datetime
import hashlib
import re
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from tournaments.accounts.models import ApiToken, UsernameClaim
from tournaments.accounts.usernames import username_normalise, username_skeleton
from tournaments.dbclock import db_clock
from tournaments.errors import ConflictError, ForbiddenError, ServiceError

USERNAME_RE = re.compile(r"^[\w.@+-]{1,150}$")


def token_digest(*, key: str) -> str:
    """What is stored of a token key: its SHA-256 (keys are random, so no salt is needed)."""
    return hashlib.sha256(key.encode()).hexdigest()


def token_create(*, user: Any) -> tuple[ApiToken, str]:
    """A new API token for ``user`` and its key; the key is returned once and never stored.

    Earlier tokens keep working until they expire or are revoked.
    """
    key = secrets.token_hex(20)
    ttl = settings.ARBITER_TOKEN_TTL_DAYS
    expires = db_clock() + datetime.timedelta(days=ttl) if ttl > 0 else None
    token = ApiToken.objects.create(user=user, digest=token_digest(key=key), prefix=key[:8], expires_at=expires)
    return token, key


def token_revoke(*, user: Any, token: ApiToken | None = None, key_prefix: str | None = None) -> int:
    """Revoke ``token`` (the one a request used), or ``user``'s tokens whose key starts with
    ``key_prefix``, or else all of ``user``'s tokens; how many went."""
    tokens = ApiToken.objects.filter(user=user)
    if token is not None:
        tokens = tokens.filter(pk=token.pk)
    elif key_prefix:
        # Only the stored prefix is known: a longer start must agree with it.
        tokens = (
            tokens.filter(prefix=key_prefix[:8])
            if len(key_prefix) >= 8
            else tokens.filter(prefix__startswith=key_prefix)
        )
    deleted, _ = tokens.delete()
    return deleted


def username_claim(*, user: AbstractBaseUser) -> bool:
    """Claim the skeleton of ``user``'s (possibly changed) name; False when another account has it.

    For accounts made outside sign-up (the admin, ``createsuperuser``), which are not refused.
    """
    skeleton = username_skeleton(user.get_username())
    UsernameClaim.objects.filter(user_id=user.pk).exclude(skeleton=skeleton).delete()
    UsernameClaim.objects.bulk_create([UsernameClaim(user_id=user.pk, skeleton=skeleton)], ignore_conflicts=True)
    return UsernameClaim.objects.filter(user_id=user.pk, skeleton=skeleton).exists()


def user_create(*, username: str, password: str) -> tuple[Any, str]:
    """A new account and its first API token's key.

    ForbiddenError when sign-up is closed; ServiceError for a bad name or a password the
    validators refuse; ConflictError when the name, or a lookalike of it, is taken.
    """
    if not settings.ARBITER_SIGNUP_OPEN:
        raise ForbiddenError("Sign-up is closed on this server; ask its staff for an account.", code="signup_closed")
    if not USERNAME_RE.match(username):
        raise ServiceError(
            "A username is 1-150 letters, digits and @ . + - _.", fields={"username": ["invalid username"]}
        )
    name = username_normalise(username)
    try:
        # An unsaved user, so the similarity check compares the password with the chosen name.
        validate_password(password, user=get_user_model()(username=name))
    except ValidationError as exc:
        raise ServiceError(" ".join(exc.messages), fields={"password": list(exc.messages)}) from exc
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=name, password=password)
            # The signal that claims names for admin-made users skips conflicts; here one is an error.
            UsernameClaim.objects.filter(user=user).delete()
            UsernameClaim.objects.create(user=user, skeleton=username_skeleton(name))
            _, key = token_create(user=user)
    except IntegrityError as exc:
        raise ConflictError(
            "That username, or one that looks like it, is taken.", fields={"username": ["taken"]}
        ) from exc
    return user, key
