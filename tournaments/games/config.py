"""A game's configuration as a request asks for it: seats and options, checked against its engine."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines import Engine, InvalidOptionsError
from tournaments.errors import ServiceError


@dataclass(frozen=True)
class GameConfig:
    """A validated configuration of one game: seat count, full options, rating pool, teams."""

    seats: int
    options: dict[str, Any]
    pool: str
    teams: list[list[int]]


def game_config_check(
    *, engine: Engine, seats: int | None, options: dict[str, Any] | None, two_sides: str = ""
) -> GameConfig:
    """Validate seats and options against ``engine`` (defaults filled in).

    With ``two_sides`` (what is being asked for, e.g. "A challenge"), also
    refuse configurations that do not make exactly two sides.
    """
    seats = engine.default_seats() if seats is None else seats
    try:
        full = engine.validate_options(options or {}, seats)
        config = GameConfig(
            seats=seats, options=full, pool=engine.rating_pool(full, seats), teams=engine.teams(seats, full)
        )
    except InvalidOptionsError as exc:
        raise ServiceError(str(exc), code="invalid_options", fields={"options": [str(exc)]}) from exc
    if two_sides and len(config.teams) != 2:
        raise ServiceError(
            f"{two_sides} is between two sides; {seats} seats of {engine.id} make {len(config.teams)}.",
            code="invalid_options",
            fields={"seats": ["not two sides"]},
        )
    return config
