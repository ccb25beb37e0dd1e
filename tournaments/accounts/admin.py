"""Admin of API tokens: staff see who holds which (by prefix), revoke them, and issue one for a user."""

from __future__ import annotations

import contextlib
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.exceptions import NotRegistered
from django.http import HttpRequest
from rest_framework.authtoken.models import TokenProxy

from tournaments.accounts.models import ApiToken
from tournaments.accounts.services import token_create

# DRF's plain tokens are no longer read; only the hashed ones are managed here.
with contextlib.suppress(NotRegistered):
    admin.site.unregister(TokenProxy)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("prefix", "user", "created_at", "expires_at")
    search_fields = ("user__username", "prefix")
    fields = ("user",)
    raw_id_fields = ("user",)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: ApiToken, form: Any, change: bool) -> None:
        """Issue the token through the service and show its key this once."""
        token, key = token_create(user=obj.user)
        obj.pk = token.pk
        messages.warning(request, f"The new token's key (shown only now): {key}")
