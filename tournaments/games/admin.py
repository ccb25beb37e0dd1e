"""Admin of games: mirrored from the engine registry, read-only."""

from __future__ import annotations

from django.contrib import admin

from tournaments.admin_kit import HistoryAdmin
from tournaments.games.models import Game


@admin.register(Game)
class GameAdmin(HistoryAdmin):
    list_display = ["id", "name", "version", "seat_counts", "available", "synced_at"]
    list_filter = ["available"]
    search_fields = ["id", "name"]
