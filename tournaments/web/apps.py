"""Pages for people: leaderboards, tournaments, bots and match replays."""

from __future__ import annotations

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "tournaments.web"
    label = "web"
    default_auto_field = "django.db.models.BigAutoField"
