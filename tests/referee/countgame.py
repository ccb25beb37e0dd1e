"""A tiny test-only engine: players take turns adding 1 or 2; whoever reaches the target wins.

Registered as ``count-test`` so referee and sandbox tests do not depend on the real games.
With 4 seats it is a team game (seats 0+2 against 1+3).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import engines
from engines.base import Engine, IllegalMoveError, Option, Result, State


class CountState(State):
    def __init__(self, engine: CountEngine, options: dict[str, Any], seed: int, seats: int) -> None:
        self.engine, self.options, self.seed, self.seats = engine, options, seed, seats
        self.ply = 0
        self.total = 0
        self.last: int | None = None

    def to_move(self) -> int | None:
        return None if self.is_terminal() else self.ply % self.seats

    def legal_moves(self) -> list[str]:
        if self.is_terminal():
            return []
        return ["1", "2", *(f"pad{i:05d}{'x' * self.options['pad']}" for i in range(self.options["extra"]))]

    def apply(self, move: str) -> None:
        if move not in self.legal_moves():
            raise IllegalMoveError(move)
        self.total += 1 if move.startswith("pad") else int(move)
        self.last = self.ply % self.seats
        self.ply += 1

    def is_terminal(self) -> bool:
        return self.total >= self.options["target"]

    def result(self) -> Result | None:
        if not self.is_terminal():
            return None
        teams = self.engine.teams(self.seats, self.options)
        winner = next(t for t in teams if self.last in t)
        ranks = tuple(1 if s in winner else 2 for s in range(self.seats))
        return Result(ranks=ranks, reason="target reached", scores=None)

    def observation(self, seat: int) -> dict[str, Any]:
        return {"total": self.total, "target": self.options["target"]}

    def public_observation(self) -> dict[str, Any]:
        return self.observation(0)

    def to_json(self) -> dict[str, Any]:
        return {"total": self.total, "ply": self.ply}

    def clone(self) -> CountState:
        other = CountState(self.engine, self.options, self.seed, self.seats)
        other.ply, other.total, other.last = self.ply, self.total, self.last
        return other


class CountEngine(Engine):
    id = "count-test"
    name = "Count (tests only)"
    version = "1"
    seat_counts = (2, 3, 4)
    options = (
        Option("target", int, 10, "total to reach", minimum=1, maximum=100_000),
        Option("extra", int, 0, "extra legal moves, to make big turn messages", minimum=0, maximum=100_000),
        Option("pad", int, 0, "length of each extra move's padding", minimum=0, maximum=1000),
    )

    def teams(self, seats: int, options: Mapping[str, Any] | None = None) -> list[list[int]]:
        self.check_seats(seats)
        if seats == 4:
            return [[0, 2], [1, 3]]
        return [[s] for s in range(seats)]

    def new_state(self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None) -> State:
        seats = seats or 2
        return CountState(self, self.validate_options(options, seats), seed, seats)

    def state_from_json(self, data: Mapping[str, Any]) -> State:
        raise NotImplementedError


def register() -> None:
    """Register the engine once (safe to call from several conftests)."""
    try:
        engines.get_engine(CountEngine.id)
    except engines.UnknownEngineError:
        engines.register(ENGINE)


ENGINE = CountEngine()
