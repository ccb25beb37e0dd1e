"""User accounts: sign-up and API tokens."""

from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "tournaments.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"
