"""The limits a requested match clock must respect, for every kind of match."""

from __future__ import annotations

from dataclasses import fields

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
