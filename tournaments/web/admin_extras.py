"""What the pages add to the admin: links to the public pages and a bot's rating chart.

Attached to the admin classes in one delimited block at the end of
``tournaments/admin.py``; reads go through the selectors like the pages'.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString

from tournaments.models import Bot, Match, Tournament
from tournaments.selectors.ratings import rating_history
from tournaments.web.charts import rating_charts

_PAGES = {Tournament: "web-tournament", Bot: "web-bot", Match: "web-match"}


def public_url(obj: Any) -> str | None:
    """The public page of a tournament, bot or match (the admin's "View on site")."""
    name = _PAGES.get(type(obj))
    return reverse(name, args=[obj.pk]) if name and obj.pk else None


@admin.display(description="Public page")
def public_link(model_admin: Any, obj: Any) -> SafeString | str:
    url = public_url(obj)
    return format_html('<a href="{}">{}</a>', url, url) if url else "-"


@admin.display(description="Rating history")
def bot_rating_chart(model_admin: Any, obj: Bot) -> SafeString | str:
    """Every pool's Elo chart of the bot, as on its public page."""
    if obj is None or obj.pk is None:
        return "-"
    charts = rating_charts(rating_history(bot=obj))
    if not charts:
        return "No rated games yet."
    return format_html_join(
        "",
        '<figure style="margin:0 0 1em"><figcaption><code>{}</code>: {} rated games, now {}</figcaption>{}</figure>',
        ((c["pool"], c["changes"], f"{c['last']:.1f}", c["svg"]) for c in charts),
    )
