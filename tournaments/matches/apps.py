"""Matches: a match's life from queued to recorded."""

from __future__ import annotations

from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "tournaments.matches"
    label = "matches"
    default_auto_field = "django.db.models.BigAutoField"
