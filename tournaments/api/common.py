"""Small helpers shared by the API views."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework.request import Request

from tournaments.errors import NotFoundError


def found(obj: Any, what: str) -> Any:
    """``obj`` or a 404 in the API's error shape."""
    if obj is None:
        raise NotFoundError(f"No such {what}.")
    return obj


def user_of(request: Request) -> Any:
    return request.user if request.user and request.user.is_authenticated else AnonymousUser()


def query_int(request: Request, name: str) -> int | None:
    value = request.query_params.get(name)
    if value in (None, ""):
        return None
    try:
        return int(value)
    except ValueError:
        from tournaments.errors import ServiceError

        raise ServiceError(f"{name} must be an integer.", fields={name: ["not an integer"]}) from None


MAX_ID = 2**63 - 1


def id_field(**kwargs: Any) -> Any:
    """An integer input that names a database row: 1 to 2**63-1 (larger numbers overflow the column)."""
    from rest_framework import serializers

    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)
