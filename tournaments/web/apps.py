"""Pages for people: leaderboards, tournaments, bots and match replays."""

from __future__ import annotations

from django.apps import AppConfig


class WebConfig(AppConfig):
    name = "tournaments.web"
    label = "web"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        """Brand the admin: its title bar and browser tab say Arbiter, and its "View site" goes to the games."""
        from django.contrib import admin

        admin.site.site_header = "Arbiter administration"
        admin.site.site_title = "Arbiter admin"
        admin.site.index_title = "Games, bots, tournaments and matches"
        admin.site.site_url = "/games/"
