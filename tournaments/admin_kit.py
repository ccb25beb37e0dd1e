"""What every app's admin shares: read-only history, small tables, links to the public pages.

A toolkit below the apps: it imports none of them (``tests/test_layers.py``).  An
object's public page is its model's ``get_absolute_url()``.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import admin
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from tournaments.errors import ServiceError


def public_url(obj: Any) -> str:
    """The public page of an object whose model has one (the admin's "View on site"); "" otherwise."""
    page = getattr(obj, "get_absolute_url", None)
    return str(page()) if page is not None and obj.pk else ""


class ReadOnlyInline(admin.TabularInline):
    """Rows shown under their parent, never added, edited or deleted here."""

    extra = 0
    can_delete = False
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class HistoryAdmin(admin.ModelAdmin):
    """History is written by services only: viewable, never edited or deleted here."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class PublicPageMixin:
    """The admin's "View on site" and a read-only link, both to the object's public page."""

    def get_view_on_site_url(self, obj: Any = None) -> str | None:
        return (public_url(obj) or None) if obj is not None else None

    @admin.display(description="Public page")
    def public_link(self, obj: Any) -> SafeString | str:
        url = public_url(obj)
        return format_html('<a href="{}">{}</a>', url, url) if url else "-"


def html_table(headers: list[str], rows: list[list[Any]]) -> SafeString:
    """A plain HTML table of already-formatted cells (escaped)."""
    head = format_html_join("", "<th>{}</th>", ((h,) for h in headers))
    body = format_html_join(
        "", "<tr>{}</tr>", ((format_html_join("", "<td>{}</td>", ((c,) for c in row)),) for row in rows)
    )
    return format_html('<table class="arbiter-table"><thead><tr>{}</tr></thead><tbody>{}</tbody></table>', head, body)


class ServiceCheckedForm(forms.ModelForm):
    """A model form whose instance is also checked by a service (``service_check``) once it is built."""

    def service_check(self) -> None:
        """Raise ServiceError when the service refuses the instance."""

    def validate_unique(self) -> None:
        # Django calls this last, with the instance built from the cleaned data.
        super().validate_unique()
        if not self.errors:
            try:
                self.service_check()
            except ServiceError as exc:
                service_errors(self, exc)


def service_errors(form: forms.ModelForm, exc: ServiceError) -> None:
    """Show a service's refusal on the form, next to the field it names when the form has it."""
    named = [f for f in exc.fields if f in form.fields]
    form.add_error(named[0] if named else None, exc.message)
