"""The project package as an app: it keeps the migrations written before the domain split."""

from __future__ import annotations

from django.apps import AppConfig


class ProjectConfig(AppConfig):
    """Holds ``tournaments/migrations``: the history up to the split into domain apps, and the split itself.

    It has no models of its own any more; its last migration hands every
    table to the domain app that now owns it (``tournaments.<domain>``).
    """

    name = "tournaments"
    label = "tournaments"
    verbose_name = "Arbiter"
    default_auto_field = "django.db.models.BigAutoField"
