"""User accounts: sign-up and API tokens."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.conf import settings
from django.db.models.signals import post_save


def _claim_username(sender: Any, instance: Any, raw: bool = False, **kwargs: Any) -> None:
    if raw:  # loaddata: the claims come with the fixture or from the migration's backfill
        return
    fields = kwargs.get("update_fields")
    if fields is not None and "username" not in fields:  # a login's last_login, say
        return
    from tournaments.accounts.services import username_claim

    username_claim(user=instance)


class AccountsConfig(AppConfig):
    name = "tournaments.accounts"
    label = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every account claims its name's skeleton, however it was made (admin, createsuperuser).
        post_save.connect(_claim_username, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts-claim-username")
