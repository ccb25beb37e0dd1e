"""Small helpers shared by the API views."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser, User
from rest_framework import exceptions, serializers
from rest_framework.request import Request

from tournaments.errors import NotFoundError


def found(obj: Any, what: str) -> Any:
    """``obj`` or a 404 in the API's error shape."""
    if obj is None:
        raise NotFoundError(f"No such {what}.")
    return obj


def user_of(request: Request) -> Any:
    """The requesting user, anonymous included."""
    return request.user if request.user and request.user.is_authenticated else AnonymousUser()


def signed_in(request: Request) -> User:
    """The requesting user of a view that requires one (NotAuthenticated, a 401, otherwise)."""
    user = request.user
    if not isinstance(user, User):
        raise exceptions.NotAuthenticated()
    return user


MAX_ID = 2**63 - 1


def id_field(**kwargs: Any) -> Any:
    """An integer input that names a database row: 1 to 2**63-1 (larger numbers overflow the column)."""
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


# Keys a game's options may have in a request: every engine has a handful (docs/api.md).
MAX_OPTIONS = 32


class BoundedListField(serializers.ListField):
    """DRF's ListField, with its length checked before any element.

    DRF validates every element first and the length last: a body of a million
    ids would cost seconds of a web worker before its "too many". Every list
    input of the API is one of these, and ``max_length`` is required.
    """

    def __init__(self, *, max_length: int, **kwargs: Any) -> None:
        super().__init__(max_length=max_length, **kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, list) and self.max_length is not None and len(data) > self.max_length:
            self.fail("max_length", max_length=self.max_length)
        return super().to_internal_value(data)


class BoundedDictField(serializers.DictField):
    """DRF's DictField, with its number of keys checked before any value (as ``BoundedListField``)."""

    default_error_messages = {"max_keys": "Ensure this field has no more than {max_keys} keys."}

    def __init__(self, *, max_keys: int, **kwargs: Any) -> None:
        self.max_keys = max_keys
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> Any:
        if isinstance(data, dict) and len(data) > self.max_keys:
            self.fail("max_keys", max_keys=self.max_keys)
        return super().to_internal_value(data)


def options_field() -> BoundedDictField:
    """A request's game options: an object of at most ``MAX_OPTIONS`` keys, checked by the game's engine."""
    return BoundedDictField(max_keys=MAX_OPTIONS, required=False, default=dict)
