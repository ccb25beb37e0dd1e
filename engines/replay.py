"""Replays: the seed, options and moves that reproduce a recorded game state by state."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engines.base import JSON, State


@dataclass
class Replay:
    """Everything needed to reproduce a game: replaying gives every state again."""

    engine_id: str
    engine_version: str
    seats: int
    options: dict[str, Any]
    seed: int
    moves: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, JSON]:
        return {
            "engine": self.engine_id,
            "engine_version": self.engine_version,
            "seats": self.seats,
            "options": dict(self.options),
            "seed": self.seed,
            "moves": list(self.moves),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Replay:
        return cls(
            engine_id=str(data["engine"]),
            engine_version=str(data["engine_version"]),
            seats=int(data["seats"]),
            options=dict(data["options"]),
            seed=int(data["seed"]),
            moves=[str(m) for m in data["moves"]],
        )

    def _start(self) -> State:
        """The start position under the rules the replay was recorded with."""
        from engines.registry import get_engine

        engine = get_engine(self.engine_id)
        return engine.new_state_for_version(self.engine_version, self.options, seed=self.seed, seats=self.seats)

    def states(self) -> list[State]:
        """Every state from the start through the last move (len(moves) + 1 states)."""
        state = self._start()
        out = [state.clone()]
        for move in self.moves:
            state.apply(move)
            out.append(state.clone())
        return out

    def final_state(self) -> State:
        state = self._start()
        for move in self.moves:
            state.apply(move)
        return state
