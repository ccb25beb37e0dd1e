"""Reading bots: what a user may see, and which version of a bot plays.

A bot plays its *current* version: the newest *playable* one, that is not
retired and, when its bot.json names a ``build``, built (``BotBuild`` READY).
Every kind of match (round robins, schedules, ladders, challenges, version
tests) asks ``versions_current`` or ``version_current``, or for a version named
by hand ``version_unplayable``; all apply ``versions_playable``, and the
leaderboard the same rule in SQL (``ratings.selectors.leaderboard``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db.models import F, Max, Q, QuerySet

from tournaments.bots.models import Bot, BotBuild, BotVersion
from workers.packages.build import BUILT_FILENAME


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
    """A bot's versions without their package bytes, each with ``build_state`` and ``build_log``.

    ``build_state`` is None for a version that needs no build (it is ready as uploaded).
    """
    return (
        BotVersion.objects.filter(bot=bot)
        .defer("package")
        .annotate(build_state=F("build__status"), build_log=F("build__log"))
        .order_by("number")
    )


def bot_version_package(*, version_id: int) -> tuple[bytes, str, str]:
    """Package bytes, filename and checksum of one version as matches run it (for the worker only).

    A built version plays its built archive: the same bytes on every worker.
    """
    built = BotBuild.objects.filter(version_id=version_id, status=BotBuild.Status.READY).only("archive", "checksum")
    build = built.first()
    if build is not None:
        return bytes(build.archive), BUILT_FILENAME, build.checksum
    version = BotVersion.objects.only("package", "filename", "checksum").get(id=version_id)
    return bytes(version.package), version.filename, version.checksum


def bot_version_sources(*, version_id: int) -> tuple[bytes, str]:
    """The uploaded package of one version, as its author sent it (what a build starts from)."""
    version = BotVersion.objects.only("package", "filename").get(id=version_id)
    return bytes(version.package), version.filename


def versions_built(*, path: str = "") -> Q:
    """Versions that need no build or whose build is READY (reached through ``path``, e.g. ``bot_version__``)."""
    return Q(**{f"{path}build__isnull": True}) | Q(**{f"{path}build__status": BotBuild.Status.READY})


def versions_playable(*, path: str = "") -> Q:
    """Versions that may play (reached through ``path``, e.g. ``bot_version__``): not retired, built if built."""
    return Q(**{f"{path}retirement__isnull": True}) & versions_built(path=path)


def version_unplayable(*, version: BotVersion) -> str | None:
    """Why this version may not play (retired, building, its build failed), or None when it may."""
    if BotVersion.objects.filter(id=version.id).filter(versions_playable()).exists():
        return None
    if hasattr(version, "retirement") or BotVersion.objects.filter(id=version.id, retirement__isnull=False).exists():
        return f"version {version.number} is retired"
    status = BotBuild.objects.filter(version_id=version.id).values_list("status", flat=True).first()
    if status == BotBuild.Status.FAILED:
        return f"version {version.number} failed to build"
    return f"version {version.number} is still being built"


def versions_current(*, bot_ids: Iterable[int]) -> dict[int, int]:
    """The current version of each bot: bot id -> version id (bots with no playable version left out)."""
    current: dict[int, int] = {}
    rows = (
        BotVersion.objects.filter(versions_playable(), bot_id__in=bot_ids)
        .order_by("bot_id", "number")
        .values_list("bot_id", "id")
    )
    for bot_id, version_id in rows:
        current[bot_id] = version_id
    return current


def version_current(*, bot_id: int) -> BotVersion | None:
    """The bot's current version (newest playable), without its package bytes."""
    return BotVersion.objects.filter(versions_playable(), bot_id=bot_id).defer("package").order_by("-number").first()


def version_get(*, bot_id: int, number: int) -> BotVersion | None:
    """One version of a bot by its number, without its package bytes (with ``build_state`` and ``build_log``)."""
    return (
        BotVersion.objects.defer("package")
        .select_related("bot")
        .annotate(build_state=F("build__status"), build_log=F("build__log"))
        .filter(bot_id=bot_id, number=number)
        .first()
    )
