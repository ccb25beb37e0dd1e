"""Bots and their immutable versions."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction

from tournaments.bots.builds import build_request
from tournaments.bots.models import Bot, BotVersion, BotVersionRetirement
from tournaments.bots.uploads import python_entry_check
from tournaments.errors import ConflictError, ForbiddenError, ServiceError
from tournaments.games.models import Game
from workers.packages.archive import PackageError, inspect_package

BOT_NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def _package_inspect(*, data: bytes, filename: str) -> Any:
    """Validate a package without writing anything; ServiceError with the reason otherwise."""
    limit = settings.ARBITER_MAX_PACKAGE_BYTES
    if not data:
        raise ServiceError("The package is empty.", code="invalid_package", fields={"package": ["empty file"]})
    if len(data) > limit:
        raise ServiceError(
            f"The package is {len(data)} bytes; the limit is {limit} bytes.",
            code="package_too_large",
            fields={"package": [f"larger than {limit} bytes"]},
        )
    try:
        info = inspect_package(data, filename)
    except PackageError as exc:
        raise ServiceError(f"Invalid package: {exc}", code="invalid_package", fields={"package": [str(exc)]}) from exc
    python_entry_check(data=data, filename=filename)
    return info


def _game_get(*, game_id: str) -> Game:
    game = Game.objects.filter(id=game_id, available=True).first()
    if game is None:
        raise ServiceError(f"Unknown game {game_id!r}.", code="unknown_game", fields={"game": ["unknown game"]})
    return game


def bot_create(
    *,
    owner: Any,
    game_id: str,
    name: str,
    package: bytes,
    filename: str,
    visibility: str = Bot.Visibility.PUBLIC,
    description: str = "",
    notes: str = "",
) -> BotVersion:
    """Create a bot with its first version.  Nothing is stored unless the package is valid."""
    game = _game_get(game_id=game_id)
    if not BOT_NAME_RE.match(name or ""):
        raise ServiceError(
            "A bot name is 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit.",
            fields={"name": ["invalid name"]},
        )
    if visibility not in Bot.Visibility.values:
        raise ServiceError("Visibility is 'public' or 'private'.", fields={"visibility": ["invalid choice"]})
    info = _package_inspect(data=package, filename=filename)
    try:
        with transaction.atomic():
            bot = Bot.objects.create(owner=owner, game=game, name=name, visibility=visibility, description=description)
            return _version_create(bot=bot, number=1, package=package, filename=filename, info=info, notes=notes)
    except IntegrityError as exc:
        raise ConflictError(
            f"You already have a bot named {name!r} for {game.id}.", fields={"name": ["already exists"]}
        ) from exc


def _version_create(*, bot: Bot, number: int, package: bytes, filename: str, info: Any, notes: str) -> BotVersion:
    """The version row, and its build request when bot.json names a ``build`` (the service builds it)."""
    version = BotVersion.objects.create(
        bot=bot,
        number=number,
        package=package,
        filename=filename[:255],
        checksum=hashlib.sha256(package).hexdigest(),
        size=len(package),
        kind=str(info.kind),
        command=list(info.command),
        unpacked_bytes=int(info.unpacked_bytes),
        notes=notes,
    )
    if info.build:
        build_request(version=version, command=tuple(info.build))
    return version


def bot_version_create(*, bot: Bot, user: Any, package: bytes, filename: str, notes: str = "") -> BotVersion:
    """Upload a new version of ``bot``; its rating starts from the previous version's."""
    if bot.owner_id != user.id:
        raise ForbiddenError("Only the bot's owner can upload versions.")
    if not bot.active:
        raise ConflictError("This bot is deactivated.", code="bot_inactive")
    info = _package_inspect(data=package, filename=filename)
    with transaction.atomic():
        # Lock the bot so two concurrent uploads do not both pick the same number.
        locked = Bot.objects.select_for_update().get(pk=bot.pk)
        last = locked.versions.order_by("-number").values_list("number", flat=True).first() or 0
        return _version_create(bot=locked, number=last + 1, package=package, filename=filename, info=info, notes=notes)


# Called with a bot that was just deactivated or made private, inside that change's
# transaction: the competitions above this app cancel what it may no longer play.
_WITHDRAWAL_HOOKS: list[Callable[[Bot], None]] = []


def bot_withdrawal_register(hook: Callable[[Bot], None]) -> None:
    """Have ``hook(bot)`` called whenever a bot is deactivated or made private (from an app's ``ready``)."""
    if hook not in _WITHDRAWAL_HOOKS:
        _WITHDRAWAL_HOOKS.append(hook)


def _withdrawn(bot: Bot) -> None:
    for hook in _WITHDRAWAL_HOOKS:
        hook(bot)


def bot_deactivate(*, bot: Bot, user: Any) -> Bot:
    """Withdraw a bot from new tournaments and cancel its unplayed tournament matches; its history stays."""
    if bot.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the bot's owner can deactivate it.")
    with transaction.atomic():
        Bot.objects.filter(pk=bot.pk).update(active=False)
        bot.active = False
        _withdrawn(bot)
    return bot


def bot_update(
    *,
    bot: Bot,
    user: Any,
    visibility: str | None = None,
    description: str | None = None,
    challenges_ask: bool | None = None,
) -> Bot:
    """Change a bot's visibility, description, or whether other users' challenges wait for the owner's yes."""
    if bot.owner_id != user.id:
        raise ForbiddenError("Only the bot's owner can change it.")
    fields = []
    if visibility is not None:
        if visibility not in Bot.Visibility.values:
            raise ServiceError("Visibility is 'public' or 'private'.", fields={"visibility": ["invalid choice"]})
        bot.visibility = visibility
        fields.append("visibility")
    if description is not None:
        bot.description = description
        fields.append("description")
    if challenges_ask is not None:
        bot.challenges_ask = challenges_ask
        fields.append("challenges_ask")
    if fields:
        with transaction.atomic():
            was_public = Bot.objects.select_for_update().filter(pk=bot.pk, visibility=Bot.Visibility.PUBLIC).exists()
            bot.save(update_fields=fields)
            if was_public and bot.visibility == Bot.Visibility.PRIVATE:
                _withdrawn(bot)
    return bot


def bot_version_retire(*, version: BotVersion, user: Any) -> BotVersionRetirement:
    """Retire ``version``; only the bot's owner or staff may, and only once."""
    if version.bot.owner_id != user.id and not user.is_staff:
        raise ForbiddenError("Only the bot's owner can retire its versions.")
    try:
        with transaction.atomic():
            return BotVersionRetirement.objects.create(bot_version=version, retired_by=user)
    except IntegrityError as exc:
        raise ConflictError(f"Version {version.number} is already retired.", code="already_retired") from exc
