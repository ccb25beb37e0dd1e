"""Pagination: page numbers for most lists, a cursor for matches (a list that grows while you read it)."""

from __future__ import annotations

from django.core.exceptions import ValidationError
from django.db import DataError
from rest_framework.exceptions import NotFound
from rest_framework.pagination import CursorPagination, PageNumberPagination


class Pagination(PageNumberPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500


class MatchCursorPagination(CursorPagination):
    """Stable pages over matches: new matches never shift what the next page holds.

    ``?ordering=`` picks the order: ``-id`` (newest first, the default), ``id``,
    ``finished_at`` (the order results were recorded in) or ``-finished_at``;
    the two ``finished_at`` orders list only matches that have ended.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 500
    ordering = "-id"
    ORDERINGS = ("-id", "id", "finished_at", "-finished_at")

    def get_ordering(self, request, queryset, view):  # type: ignore[no-untyped-def]
        value = request.query_params.get("ordering") or ""
        if not value and request.query_params.get("order") == "finished":
            value = "finished_at"
        if value in self.ORDERINGS:
            return (value, "-id" if value.startswith("-") else "id")
        return ("-id",)

    def paginate_queryset(self, queryset, request, view=None):  # type: ignore[no-untyped-def]
        # A cursor is only base64 the client can forge: a position that is not a value of the
        # ordering field fails in the query, and is the same "invalid cursor" as a garbled one.
        try:
            return super().paginate_queryset(queryset, request, view)
        except (ValueError, TypeError, OverflowError, ValidationError, DataError) as exc:
            raise NotFound(self.invalid_cursor_message) from exc
