"""Reads of accounts: a user's API tokens, and the token behind a key."""

from __future__ import annotations

from typing import Any

from django.db.models import Q

from tournaments.accounts.models import ApiToken
from tournaments.accounts.services import token_digest
from tournaments.dbclock import db_now


def token_list(*, user: Any) -> list[ApiToken]:
    """``user``'s API tokens, newest first (expired ones included, marked by ``expires_at``)."""
    return list(ApiToken.objects.filter(user=user).order_by("-created_at"))


def token_find(*, key: str) -> ApiToken | None:
    """The live (unexpired) token whose key is ``key``, with its user; None when there is none."""
    live = Q(expires_at__isnull=True) | Q(expires_at__gt=db_now())
    return ApiToken.objects.select_related("user").filter(live, digest=token_digest(key=key)).first()
