"""``Authorization: Token <key>`` checked against the hashed tokens (accounts.models.ApiToken)."""

from __future__ import annotations

from typing import Any

from rest_framework import exceptions
from rest_framework.authentication import TokenAuthentication

from tournaments.accounts.selectors import token_find


class HashedTokenAuthentication(TokenAuthentication):
    """DRF's token header, looked up by digest; an expired or revoked key is refused."""

    def authenticate_credentials(self, key: str) -> tuple[Any, Any]:
        token = token_find(key=key)
        if token is None:
            raise exceptions.AuthenticationFailed("Invalid, expired or revoked token.")
        if not token.user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return token.user, token
