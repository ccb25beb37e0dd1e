"""Who enters a tournament: the bots named, checked, and the version each plays."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tournaments.bots.models import Bot, BotVersion
from tournaments.bots.selectors import version_unplayable, versions_current
from tournaments.errors import ServiceError
from tournaments.games.models import Game


def _bots_check(*, bot_ids: Sequence[int], game: Game, user: Any) -> dict[int, Bot]:
    """The bots named, checked: they exist, may enter ``user``'s tournament, play ``game`` and are active."""
    bots = {b.id: b for b in Bot.objects.filter(id__in=bot_ids)}
    unknown = [i for i in bot_ids if i not in bots or not _visible(bots[i], user)]
    if unknown:
        raise ServiceError(f"Unknown bot id(s): {unknown}.", fields={"participants": ["unknown bot"]})
    for bot in bots.values():
        if not bot_may_enter(bot, owner_id=user.id):
            # Only staff get here (they see private bots): a private bot still plays only for its owner.
            raise ServiceError(
                f"Bot {bot.name!r} is private: it plays only in its owner's tournaments.",
                fields={"participants": ["private bot"]},
            )
        if bot.game_id != game.id:
            raise ServiceError(
                f"Bot {bot.name!r} plays {bot.game_id}, not {game.id}.", fields={"participants": ["wrong game"]}
            )
        if not bot.active:
            raise ServiceError(f"Bot {bot.name!r} is deactivated.", fields={"participants": ["inactive bot"]})
    return bots


def _visible(bot: Bot, user: Any) -> bool:
    return bot.visibility == Bot.Visibility.PUBLIC or bot.owner_id == user.id or user.is_staff


def bot_may_enter(bot: Bot, *, owner_id: int) -> bool:
    """A bot may play in a tournament organised by ``owner_id``: it is public, or it is theirs."""
    return bot.visibility == Bot.Visibility.PUBLIC or bot.owner_id == owner_id


def entrants_choose(*, bot_ids: Sequence[int], game: Game, user: Any, version_ids: Sequence[int]) -> list[int]:
    """The version each listed bot plays: its current one, or the one pinned in ``version_ids``."""
    bots = _bots_check(bot_ids=bot_ids, game=game, user=user)
    chosen = versions_current(bot_ids=bot_ids)
    pinned: set[int] = set()
    for version in BotVersion.objects.defer("package").filter(id__in=list(version_ids)).select_related("retirement"):
        if version.bot_id not in bots:
            raise ServiceError(
                f"Version {version.id} is of bot {version.bot_id}, which is not a participant.",
                fields={"versions": ["bot not a participant"]},
            )
        if version.bot_id in pinned:
            raise ServiceError(f"Two versions of bot {version.bot_id}.", fields={"versions": ["two versions"]})
        if hasattr(version, "retirement"):
            raise ServiceError(f"Version {version.id} is retired.", fields={"versions": ["retired version"]})
        unbuilt = version_unplayable(version=version)
        if unbuilt is not None:  # still building, or its build failed
            raise ServiceError(f"Version {version.id}: {unbuilt}.", fields={"versions": ["not built"]})
        pinned.add(version.bot_id)
        chosen[version.bot_id] = version.id
    missing = set(version_ids) - set(chosen.values())
    if missing:
        raise ServiceError(f"Unknown version id(s): {sorted(missing)}.", fields={"versions": ["unknown version"]})
    for bot_id in bot_ids:
        if bot_id not in chosen:
            name = bots[bot_id].name
            raise ServiceError(f"Bot {name!r} has no active version.", fields={"participants": ["no version"]})
    return [chosen[bot_id] for bot_id in bot_ids]
