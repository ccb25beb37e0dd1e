"""Filter fields shared by the lists' query-string filters (django-filter); invalid values are a 400."""

from __future__ import annotations

from typing import Any

import django_filters as filters
from django import forms
from django.contrib.auth import get_user_model
from rest_framework.exceptions import ValidationError


class IdFilter(filters.NumberFilter):
    """A whole number that fits a database id (django-filter's NumberFilter takes any decimal)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)


class StrictBooleanField(forms.Field):
    """``true``/``false`` (or 1/0, yes/no); anything else is invalid (Django's own reads it as "no filter")."""

    TRUE = frozenset({"true", "1", "yes", "on"})
    FALSE = frozenset({"false", "0", "no", "off"})

    def to_python(self, value: Any) -> bool | None:
        if value in (None, ""):
            return None
        text = str(value).strip().lower()
        if text in self.TRUE:
            return True
        if text in self.FALSE:
            return False
        raise forms.ValidationError(f"{str(value)[:50]!r} is not true or false.", code="invalid")


class BoolFilter(filters.BooleanFilter):
    """A yes/no filter that refuses other values with a 400."""

    field_class = StrictBooleanField


class OwnerFilter(filters.CharFilter):
    """A username; a name of no user is a 400 rather than an empty list."""

    def filter(self, qs: Any, value: Any) -> Any:
        if value and not get_user_model().objects.filter(username=value).exists():
            raise invalid_value(self.field_name, "user", value)
        return super().filter(qs, value)


def invalid_value(field: str, what: str, value: str) -> Exception:
    """The 400 for a filter value that names nothing (``No game is called ...``)."""
    name = field.split("__")[0].removesuffix("_id")
    return ValidationError({name: [f"No {what} is called {value[:50]!r}."]})
