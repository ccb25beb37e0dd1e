"""Admin of ratings: history, read-only (the rebuild is ``manage.py ratings_rebuild``)."""

from __future__ import annotations

from django.contrib import admin

from tournaments.admin_kit import HistoryAdmin, ReadOnlyInline
from tournaments.ratings.models import PoolFit, Rating, RatingChange


class RatingChangeInline(ReadOnlyInline):
    model = RatingChange
    readonly_fields = (
        "match",
        "before",
        "after",
        "delta",
        "k",
    )
    fields = readonly_fields


@admin.register(Rating)
class RatingAdmin(HistoryAdmin):
    list_display = ["bot_version", "pool", "elo", "games", "wins", "draws", "losses", "updated"]
    list_filter = ["pool"]
    search_fields = ["bot_version__bot__name", "pool"]
    list_select_related = ["bot_version__bot"]
    inlines = [RatingChangeInline]


@admin.register(RatingChange)
class RatingChangeAdmin(HistoryAdmin):
    list_display = ["id", "rating", "match", "before", "after", "delta", "k", "created"]
    list_filter = ["rating__pool"]
    search_fields = ["rating__bot_version__bot__name"]
    list_select_related = ["rating__bot_version__bot"]


@admin.register(PoolFit)
class PoolFitAdmin(HistoryAdmin):
    """When each pool was last fitted for its error bars, and how long that took."""

    list_display = ["pool", "fitted_at", "matches", "players", "first_move_advantage", "seconds"]
    search_fields = ["pool"]
