"""A new password revokes every API token of its user.

Django calls ``password_changed`` of each entry of ``AUTH_PASSWORD_VALIDATORS``
whenever a user saved after ``set_password`` (the password page, a reset, the
admin, ``manage.py changepassword``), and not when a login only re-hashes the
same password with newer parameters: the one hook that sees every change and
nothing else. Whoever held a token made with the old password (a leaked key, a
former laptop) loses it with the password.
"""

from __future__ import annotations

from typing import Any

from tournaments.accounts.services import token_revoke


class TokensRevokedOnChange:
    """Not a check (any password passes): on a change, the user's tokens go."""

    def validate(self, password: str, user: Any = None) -> None:
        """Every password passes this entry."""

    def password_changed(self, password: str, user: Any = None) -> None:
        """Revoke every token of ``user`` (a user not saved yet has none)."""
        if user is not None and user.pk is not None:
            token_revoke(user=user)

    def get_help_text(self) -> str:
        """Said beside the password checks' rules."""
        return "Changing your password revokes your API tokens."
