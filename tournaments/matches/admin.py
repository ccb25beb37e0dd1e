"""Admin of matches: history (read-only), with a re-queue action for errored ones."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from tournaments.admin_kit import HistoryAdmin, PublicPageMixin, ReadOnlyInline
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.record import matches_requeue_errored

# A documented exception to the apps' order (tests/test_layers.py): a match's page lists its rating changes.
from tournaments.ratings.models import RatingChange


class MatchSeatInline(ReadOnlyInline):
    model = MatchSeat
    readonly_fields = (
        "seat",
        "team",
        "bot_version",
        "rank",
        "score",
        "status",
        "cpu_ms",
        "peak_rss_kb",
        "stderr",
    )
    fields = readonly_fields


class MatchRatingChangeInline(ReadOnlyInline):
    model = RatingChange
    readonly_fields = (
        "rating",
        "before",
        "after",
        "delta",
        "k",
    )
    fields = readonly_fields


@admin.register(Match)
class MatchAdmin(PublicPageMixin, HistoryAdmin):
    list_display = [
        "id", "kind", "game", "tournament", "index", "status", "attempt", "worker", "result_reason", "finished_at",
    ]  # fmt: skip
    list_filter = ["kind", "status", "game", "rated"]
    search_fields = ["id", "tournament__name", "error_reason", "result_reason"]
    list_select_related = ["tournament", "game"]
    readonly_fields = ["public_link"]
    inlines = [MatchSeatInline, MatchRatingChangeInline]
    actions = ["requeue_errored"]
    raw_id_fields = ["tournament"]

    @admin.action(description="Re-queue selected errored matches")
    def requeue_errored(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        count = matches_requeue_errored(match_ids=list(queryset.values_list("id", flat=True)))
        self.message_user(request, f"Re-queued {count} errored match(es).")
