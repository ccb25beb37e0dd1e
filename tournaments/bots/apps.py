"""Bots and their immutable versions (packages)."""

from __future__ import annotations

from django.apps import AppConfig


class BotsConfig(AppConfig):
    name = "tournaments.bots"
    label = "bots"
    default_auto_field = "django.db.models.BigAutoField"
