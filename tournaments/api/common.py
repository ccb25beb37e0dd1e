"""Small helpers shared by the API views."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from rest_framework.request import Request

from tournaments.services.errors import NotFoundError


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
        from tournaments.services.errors import ServiceError

        raise ServiceError(f"{name} must be an integer.", fields={name: ["not an integer"]}) from None
