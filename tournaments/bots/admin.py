"""Admin of bots and versions: versions are history (read-only); a bot's visibility and activity are editable."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html_join
from django.utils.safestring import SafeString

from tournaments.admin_kit import HistoryAdmin, PublicPageMixin, ReadOnlyInline
from tournaments.bots.models import Bot, BotVersion, BotVersionRetirement

# A documented exception to the apps' order (tests/test_layers.py): a bot's page shows its ratings.
from tournaments.ratings.charts import rating_charts
from tournaments.ratings.selectors import rating_history


class BotVersionInline(ReadOnlyInline):
    model = BotVersion
    readonly_fields = (
        "number",
        "filename",
        "size",
        "checksum",
        "kind",
        "command",
        "created",
    )
    fields = readonly_fields


@admin.register(Bot)
class BotAdmin(PublicPageMixin, admin.ModelAdmin):
    list_display = ["name", "game", "owner", "visibility", "active", "created"]
    list_filter = ["game", "visibility", "active"]
    search_fields = ["name", "owner__username"]
    list_select_related = ["game", "owner"]
    readonly_fields = ["owner", "game", "name", "created", "public_link", "rating_chart"]
    fields = ["name", "game", "owner", "visibility", "active", "description", "created", "public_link", "rating_chart"]
    inlines = [BotVersionInline]

    @admin.display(description="Rating history")
    def rating_chart(self, obj: Bot) -> SafeString | str:
        """Every pool's Elo chart of the bot, as on its public page."""
        if obj is None or obj.pk is None:
            return "-"
        charts = rating_charts(rating_history(bot=obj))
        if not charts:
            return "No rated games yet."
        return format_html_join(
            "",
            '<figure style="margin:0 0 1em">'
            "<figcaption><code>{}</code>: {} rated games, now {}</figcaption>{}</figure>",
            ((c["pool"], c["changes"], f"{c['last']:.1f}", c["svg"]) for c in charts),
        )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # bots come with a package: upload through the API

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(BotVersion)
class BotVersionAdmin(HistoryAdmin):
    list_display = ["__str__", "bot", "number", "size", "kind", "checksum", "created"]
    list_filter = ["bot__game", "kind"]
    search_fields = ["bot__name", "checksum", "filename"]
    exclude = ["package"]
    list_select_related = ["bot__game"]

    def get_queryset(self, request: HttpRequest) -> QuerySet[BotVersion]:
        return super().get_queryset(request).defer("package")


@admin.register(BotVersionRetirement)
class BotVersionRetirementAdmin(HistoryAdmin):
    list_display = ["bot_version", "retired_by", "retired_at"]
    list_select_related = ["bot_version__bot", "retired_by"]
