"""Reads of accounts: a user's API tokens."""

from __future__ import annotations

from typing import Any

from rest_framework.authtoken.models import Token


def token_list(*, user: Any) -> list[Token]:
    """``user``'s API tokens, newest first."""
    return list(Token.objects.filter(user=user).order_by("-created"))
