"""Filter fields shared by the lists' query-string filters (django-filter); invalid values are a 400."""

from __future__ import annotations

from typing import Any

import django_filters as filters
from django import forms


class IdFilter(filters.NumberFilter):
    """A whole number that fits a database id (django-filter's NumberFilter takes any decimal)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)
