"""Reading bots: what a user may see, and which version of a bot plays.

A bot plays its *current* version: the newest one that is not retired.
Every kind of match (round robins, schedules, ladders, challenges, version
tests) asks ``versions_current`` or ``version_current``; the leaderboard
applies the same rule in SQL (``ratings.selectors.leaderboard``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import Max, Q, QuerySet

from tournaments.bots.models import Bot, BotVersion


def bot_list(
    *, user: Any, game_id: str | None = None, owner_id: int | None = None, mine: bool = False
) -> QuerySet[Bot]:
    """Public bots plus the user's own; staff see all."""
    bots = Bot.objects.select_related("owner", "game").annotate(latest_version=Max("versions__number"))
    if not getattr(user, "is_staff", False):
        visible = Q(visibility=Bot.Visibility.PUBLIC)
        if user is not None and user.is_authenticated:
            visible |= Q(owner_id=user.id)
        bots = bots.filter(visible)
    if mine and user is not None and user.is_authenticated:
        bots = bots.filter(owner_id=user.id)
    if game_id:
        bots = bots.filter(game_id=game_id)
    if owner_id:
        bots = bots.filter(owner_id=owner_id)
    return bots.order_by("game_id", "name", "id")


def bots_private_to_others(*, user: Any, path: str) -> Q:
    """Rows whose bot (reached through ``path``, e.g. ``bot_version__bot``) is private and not the user's.

    Staff see every bot: for them the condition matches nothing.
    """
    if getattr(user, "is_staff", False):
        return Q(pk__in=[])
    hidden = Q(**{f"{path}__visibility": Bot.Visibility.PRIVATE})
    if user is not None and user.is_authenticated:
        hidden &= ~Q(**{f"{path}__owner_id": user.id})
    return hidden


def bot_get(*, user: Any, bot_id: int) -> Bot | None:
    """The bot if the user may see it."""
    return bot_list(user=user).filter(id=bot_id).first()


def bot_versions(*, bot: Bot) -> QuerySet[BotVersion]:
    """A bot's versions without their package bytes."""
    return BotVersion.objects.filter(bot=bot).defer("package").order_by("number")


def bot_version_package(*, version_id: int) -> tuple[bytes, str, str]:
    """Package bytes, filename and checksum of one version (for the worker only)."""
    version = BotVersion.objects.only("package", "filename", "checksum").get(id=version_id)
    return bytes(version.package), version.filename, version.checksum


def versions_current(*, bot_ids: Iterable[int]) -> dict[int, int]:
    """The current version of each bot: bot id -> version id (bots with no version left out)."""
    current: dict[int, int] = {}
    rows = (
        BotVersion.objects.filter(bot_id__in=bot_ids, retirement__isnull=True)
        .order_by("bot_id", "number")
        .values_list("bot_id", "id")
    )
    for bot_id, version_id in rows:
        current[bot_id] = version_id
    return current


def version_current(*, bot_id: int) -> BotVersion | None:
    """The bot's current version (newest not retired), without its package bytes."""
    return (
        BotVersion.objects.filter(bot_id=bot_id, retirement__isnull=True).defer("package").order_by("-number").first()
    )


def version_get(*, bot_id: int, number: int) -> BotVersion | None:
    """One version of a bot by its number, without its package bytes."""
    return BotVersion.objects.defer("package").select_related("bot").filter(bot_id=bot_id, number=number).first()
