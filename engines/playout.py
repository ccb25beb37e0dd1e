"""Random playouts: the engines' workhorse for tests and benchmarks."""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from engines.base import Engine, State


def random_playout(
    engine: Engine,
    *,
    seed: int,
    options: Mapping[str, Any] | None = None,
    seats: int | None = None,
) -> tuple[State, list[str]]:
    """Play uniformly random legal moves from the start to the end.

    Returns the final state and the moves played.  The game seed and the move
    choices both derive from ``seed``, so a playout is reproducible.
    """
    rng = random.Random(seed)
    state = engine.new_state(options, seed=seed, seats=seats)
    moves: list[str] = []
    choice = rng.choice
    while not state.is_terminal():
        move = choice(state.legal_moves())
        state.apply(move)
        moves.append(move)
    return state, moves
