"""Keeping the Game table in step with the engine registry."""

from __future__ import annotations

import logging

from engines import all_engines
from tournaments.games.models import Game

logger = logging.getLogger(__name__)


def game_sync(*, using: str = "default") -> list[Game]:
    """Create or update one Game per registered engine; mark vanished ones unavailable.

    Idempotent and cheap (one query per engine), so it runs after every
    migrate, when the demo loads and when a worker starts.
    """
    engines = all_engines()
    seen = []
    games = []
    for engine in engines:
        described = engine.describe()
        game, _ = Game.objects.using(using).update_or_create(
            id=engine.id,
            defaults={
                "name": engine.name,
                "version": engine.version,
                "seat_counts": list(engine.seat_counts),
                "description": described,
                "rules_doc": engine.rules_doc,
                "available": True,
            },
        )
        seen.append(engine.id)
        games.append(game)
    # Games are history: an engine that is gone stays, marked unavailable.
    gone = Game.objects.using(using).exclude(id__in=seen).filter(available=True).update(available=False)
    if gone:
        logger.info("marked %d game(s) unavailable", gone)
    return games
