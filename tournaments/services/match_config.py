"""Checks every kind of match request shares: clocks, and a game's seats and options."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engines import Engine, InvalidOptionsError
from tournaments.services.errors import ServiceError

# The most a clock may be set to, per clock; every clock is at least 1 ms.
CLOCK_LIMITS_MS = {"move_ms": 60_000, "game_ms": 3_600_000, "startup_ms": 60_000}


def clocks_check(**clocks: int) -> None:
    """ServiceError naming the first of ``move_ms``, ``game_ms``, ``startup_ms`` out of its range."""
    for field, value in clocks.items():
        limit = CLOCK_LIMITS_MS[field]
        if not 1 <= value <= limit:
            raise ServiceError(f"{field} is 1 to {limit}.", fields={field: ["out of range"]})


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
