"""Reading bot versions: which one is a bot's current ("latest active") version."""

from __future__ import annotations

from django.db.models import OuterRef, QuerySet, Subquery

from tournaments.models import BotVersion


def versions_active() -> QuerySet[BotVersion]:
    """Versions not retired, without their package bytes."""
    return BotVersion.objects.filter(retirement__isnull=True).defer("package")


def version_latest_active_subquery(bot_ref: str) -> Subquery:
    """Subquery for the id of the newest non-retired version of the bot at ``OuterRef(bot_ref)``."""
    return Subquery(versions_active().filter(bot_id=OuterRef(bot_ref)).order_by("-number").values("id")[:1])


def version_latest_active(*, bot_id: int) -> BotVersion | None:
    """The bot's newest version that is not retired."""
    return versions_active().filter(bot_id=bot_id).order_by("-number").first()


def version_get(*, bot_id: int, number: int) -> BotVersion | None:
    return BotVersion.objects.defer("package").select_related("bot").filter(bot_id=bot_id, number=number).first()
