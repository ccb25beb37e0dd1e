"""Writes of accounts: sign-up, username claims, API tokens issued and revoked."""

from __future__ import annotations

import datetime
import hashlib
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from tournaments.accounts.models import ApiToken, UsernameClaim
from tournaments.accounts.usernames import username_normalise, username_skeleton
from tournaments.errors import ConflictError


def token_digest(*, key: str) -> str:
    """What is stored of a token key: its SHA-256 (keys are random, so no salt is needed)."""
    return hashlib.sha256(key.encode()).hexdigest()


def token_issue(*, user: Any) -> tuple[ApiToken, str]:
    """A new API token for ``user`` and its key; the key is returned once and never stored."""
    key = secrets.token_hex(20)
    ttl = settings.ARBITER_TOKEN_TTL_DAYS
    expires = timezone.now() + datetime.timedelta(days=ttl) if ttl > 0 else None
    token = ApiToken.objects.create(user=user, digest=token_digest(key=key), prefix=key[:8], expires_at=expires)
    return token, key


def token_revoke(*, user: Any, token: ApiToken | None) -> None:
    """Revoke ``token`` (the one a request used), or every token of ``user`` when there is none."""
    if token is not None:
        ApiToken.objects.filter(pk=token.pk, user=user).delete()
    else:
        ApiToken.objects.filter(user=user).delete()


def username_claim(*, user: AbstractBaseUser) -> bool:
    """Claim the skeleton of ``user``'s (possibly changed) name; False when another account has it.

    For accounts made outside sign-up (the admin, ``createsuperuser``), which are not refused.
    """
    skeleton = username_skeleton(user.get_username())
    UsernameClaim.objects.filter(user_id=user.pk).exclude(skeleton=skeleton).delete()
    UsernameClaim.objects.bulk_create([UsernameClaim(user_id=user.pk, skeleton=skeleton)], ignore_conflicts=True)
    return UsernameClaim.objects.filter(user_id=user.pk, skeleton=skeleton).exists()


def user_create(*, username: str, password: str) -> tuple[Any, str]:
    """A new account and its first API token; ConflictError when the name, or a lookalike, is taken.

    The caller has checked the password against the validators.
    """
    name = username_normalise(username)
    try:
        with transaction.atomic():
            user = get_user_model().objects.create_user(username=name, password=password)
            # The signal that claims names for admin-made users skips conflicts; here one is an error.
            UsernameClaim.objects.filter(user=user).delete()
            UsernameClaim.objects.create(user=user, skeleton=username_skeleton(name))
            _, key = token_issue(user=user)
    except IntegrityError as exc:
        raise ConflictError(
            "That username, or one that looks like it, is taken.", fields={"username": ["taken"]}
        ) from exc
    return user, key
