"""Retiring bot versions.

A version is immutable; retiring it only records that its owner no longer
wants it picked as the bot's "latest" version (for new tournaments,
challenges and the leaderboard).  Its matches and ratings stay.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.db import IntegrityError, transaction

from tournaments.models import BotVersion
from tournaments.models_challenges import BotVersionRetirement
from tournaments.services.errors import ConflictError, ForbiddenError, ServiceError


def bot_version_retire(*, version: BotVersion, user: Any) -> BotVersionRetirement:
    """Retire ``version``; only the bot's owner or staff may, and only once."""
    if version.bot.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the bot's owner can retire its versions.")
    try:
        with transaction.atomic():
            return BotVersionRetirement.objects.create(bot_version=version, retired_by=user)
    except IntegrityError as exc:
        raise ConflictError(f"Version {version.number} is already retired.", code="already_retired") from exc


def tournament_participants_resolve(*, tournament: Any, user: Any, version_ids: Sequence[int] = ()) -> None:
    """Give each participant of a draft tournament the version it will play.

    A version named in ``version_ids`` (its bot must be a participant) is
    pinned; every other participant plays its bot's newest version that is
    not retired.  Call in the transaction that creates the tournament.
    """
    from tournaments.models import Participant

    entries = list(Participant.objects.filter(tournament=tournament).select_related("bot_version__bot"))
    by_bot = {e.bot_version.bot_id: e for e in entries}
    pins: dict[int, BotVersion] = {}
    for version in BotVersion.objects.defer("package").filter(id__in=list(version_ids)).select_related("bot"):
        if version.bot_id not in by_bot:
            raise ServiceError(
                f"Version {version.id} is of bot {version.bot_id}, which is not a participant.",
                fields={"versions": ["bot not a participant"]},
            )
        if version.bot_id in pins:
            raise ServiceError(f"Two versions of bot {version.bot_id}.", fields={"versions": ["two versions"]})
        pins[version.bot_id] = version
    missing = set(version_ids) - {v.id for v in pins.values()}
    if missing:
        raise ServiceError(f"Unknown version id(s): {sorted(missing)}.", fields={"versions": ["unknown version"]})
    retired = set(
        BotVersionRetirement.objects.filter(bot_version__bot_id__in=list(by_bot)).values_list("pk", flat=True)
    )
    for bot_id, entry in by_bot.items():
        if bot_id in pins:
            chosen = pins[bot_id]
            if chosen.id in retired:
                raise ServiceError(f"Version {chosen.id} is retired.", fields={"versions": ["retired version"]})
        elif entry.bot_version_id in retired:
            chosen = (
                BotVersion.objects.defer("package")
                .filter(bot_id=bot_id)
                .exclude(pk__in=retired)
                .order_by("-number")
                .first()
            )
            if chosen is None:
                name = entry.bot_version.bot.name
                raise ServiceError(f"Bot {name!r} has no active version.", fields={"participants": ["no version"]})
        else:
            continue
        if chosen.id != entry.bot_version_id:
            Participant.objects.filter(pk=entry.pk).update(bot_version=chosen)


def tournament_create_pinned(*, owner: Any, version_ids: Sequence[int] = (), **values: Any) -> Any:
    """``tournament_create`` whose participants play pinned or current (not retired) versions."""
    from tournaments.services.tournaments import tournament_create

    with transaction.atomic():
        tournament = tournament_create(owner=owner, **values)
        tournament_participants_resolve(tournament=tournament, user=owner, version_ids=version_ids)
    return tournament
