"""engines.observe: a state rebuilt from a seat's observation is the game's own state."""

from __future__ import annotations

import random

import pytest

import engines
from engines.observe import PERFECT_INFORMATION, state_from_observation


@pytest.mark.parametrize("game", PERFECT_INFORMATION)
def test_rebuilt_state_plays_on_like_the_real_one(game: str) -> None:
    engine = engines.get_engine(game)
    turns = 0
    for seed in range(12):
        state = engine.new_state(seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.to_move()
            assert seat is not None
            rebuilt = state_from_observation(game, state.observation(seat))
            assert rebuilt.to_move() == seat
            assert rebuilt.legal_moves() == state.legal_moves()
            move = rng.choice(state.legal_moves())
            # The next position, and how the game ends, agree too.
            rebuilt.apply(move)
            state.apply(move)
            assert rebuilt.observation(seat) == state.observation(seat)
            assert rebuilt.is_terminal() == state.is_terminal()
            if state.is_terminal():
                assert rebuilt.result() == state.result()
            turns += 1
    assert turns > 12 * 10


def test_games_with_hidden_information_have_no_helper() -> None:
    with pytest.raises(engines.InvalidStateError, match="no state helper"):
        state_from_observation("sequence", {})
    with pytest.raises(engines.InvalidStateError, match="not a gamesup observation"):
        state_from_observation("gamesup", {"board": []})
