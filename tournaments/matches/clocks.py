"""The limits a requested match clock must respect, for every kind of match, and what a clock allows a match."""

from __future__ import annotations

from dataclasses import fields

from django.conf import settings

from tournaments.errors import ServiceError
from workers.match import Clock

# The most a clock may be set to, per clock; every clock is at least 1 ms.
CLOCK_LIMITS_MS = {"move_ms": 60_000, "game_ms": 3_600_000, "startup_ms": 60_000}


def clock_check(clock: Clock) -> Clock:
    """``clock`` itself, or ServiceError naming the first of its three limits out of range."""
    for f in fields(clock):
        value, limit = getattr(clock, f.name), CLOCK_LIMITS_MS[f.name]
        if not 1 <= value <= limit:
            raise ServiceError(f"{f.name} is 1 to {limit}.", fields={f.name: ["out of range"]})
    return clock


def match_time_limit_s(*, seats: int, clock: Clock) -> int:
    """How long a match may run before the service gives up on it (seconds).

    The sandbox's real-time backstops let every seat use its whole startup
    and game budget, and then some (a bot that sleeps is stopped by the wall
    clock, not the CPU clock); the margin covers start-up and recording.
    """
    wall = settings.ARBITER_SANDBOX.match_wall_limit_s(clock.startup_ms, clock.game_ms, seats)
    return int(wall) + settings.ARBITER_TASK_MARGIN_S
