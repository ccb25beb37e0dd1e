"""Reading games."""

from __future__ import annotations

from typing import Any

from django.conf import settings

from engines import UnknownEngineError, get_engine
from tournaments.games.models import Game


def game_list(*, include_unavailable: bool = False) -> Any:
    games = Game.objects.all()
    return games if include_unavailable else games.filter(available=True)


def game_default_pool(*, game: Game) -> str:
    """The pool of the engine's default seat count and default options."""
    try:
        return get_engine(game.id).rating_pool({}, None)
    except UnknownEngineError:
        return game.id


def game_has_first_mover(*, game_id: str) -> bool:
    """Whether seat 0 moves first in the game (the rating fits then estimate a first-seat term).

    A game without an installed engine is taken to have one: the fitted term
    is then near zero if the seat does not matter.
    """
    try:
        return get_engine(game_id).has_first_mover
    except UnknownEngineError:
        return True


def game_configs(*, game: Game) -> list[dict[str, Any]]:
    """Example (seats, options) configurations with their teams, for clients building a tournament."""
    try:
        engine = get_engine(game.id)
    except UnknownEngineError:
        return []
    out = []
    for seats, options in engine.configs():
        full = engine.validate_options(options, seats)
        out.append(
            {
                "seats": seats,
                "options": options,
                "teams": engine.teams(seats, full),
                "rating_pool": engine.rating_pool(full, seats),
            }
        )
    return out


def game_rules_text(*, game: Game) -> str | None:
    """The game's rules document (Markdown), read from inside the project only."""
    if not game.rules_doc:
        return None
    root = settings.BASE_DIR.resolve()
    path = (root / game.rules_doc).resolve()
    # Never a path that walks out of the project.
    if root not in path.parents or not path.is_file():
        return None
    return path.read_text(encoding="utf-8")
