"""Sequence: hidden information never leaks, and saved states."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from engines import InvalidStateError
from tests.engines.test_sequence import ENGINE

# -- hidden information -------------------------------------------------------------


def _lists(value: Any) -> list[list]:
    """Every list anywhere inside a JSON value."""
    found = []
    if isinstance(value, list):
        found.append(value)
        for item in value:
            found += _lists(item)
    elif isinstance(value, dict):
        for item in value.values():
            found += _lists(item)
    return found


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_observations_never_show_other_hands_or_pile_order(seats: int) -> None:
    redealt = 0
    for game in range(10):
        state = ENGINE.new_state(seed=100 + game, seats=seats)
        rng = random.Random(game)
        while True:
            public = state.public_observation()
            assert "hand" not in public and "hands" not in public and isinstance(public["draw_pile"], int)
            for seat in range(seats):
                obs = state.observation(seat)
                assert obs["hand"] == sorted(state.hands[seat])
                assert {k: v for k, v in obs.items() if k not in ("hand", "seat")} == public
                found = [sorted(x) for x in _lists(obs) if x is not obs["hand"] and all(isinstance(i, str) for i in x)]
                for other in range(seats):
                    theirs = sorted(state.hands[other])
                    if other != seat and len(theirs) >= 3 and theirs != obs["hand"]:
                        assert theirs not in found, f"seat {seat} sees seat {other}'s hand"
                if len(state.pile) >= 3:
                    assert state.pile not in _lists(obs) and sorted(state.pile) not in found
                other = state.resample_hidden(seat, rng.randrange(1 << 30))
                assert other.observation(seat) == obs
                assert [len(h) for h in other.hands] == [len(h) for h in state.hands]
                unseen = Counter(state.pile) + Counter(c for s, h in enumerate(state.hands) if s != seat for c in h)
                assert (
                    Counter(other.pile) + Counter(c for s, h in enumerate(other.hands) if s != seat for c in h)
                    == unseen
                )
                redealt += other.hands != state.hands
            if state.is_terminal():
                break
            state.apply(rng.choice(state.legal_moves()))
    assert redealt > 0


def test_resampling_reseeds_the_random_stream() -> None:
    state = ENGINE.new_state(seed=9)
    a = state.resample_hidden(0, 1)
    b = state.resample_hidden(0, 2)
    assert a.rng_state != state.rng_state and a.rng_state != b.rng_state
    assert a.hands[0] == state.hands[0] and a.hands[1] != b.hands[1]


# -- saved states -------------------------------------------------------------------


def test_state_json_round_trip_and_rejects_broken_data() -> None:
    state = ENGINE.new_state(seed=12, seats=4)
    rng = random.Random(12)
    for _ in range(30):
        state.apply(rng.choice(state.legal_moves()))
    data = json.loads(json.dumps(state.to_json()))
    assert ENGINE.state_from_json(data).to_json() == state.to_json()
    broken = [
        {**data, "pile": data["pile"][1:]},
        {**data, "board": ["corner"] * 100},
        {**data, "board": [5 if c is None else c for c in data["board"]]},
        {**data, "sequences": [{"team": 0, "squares": [1, 2, 3, 4, 5]}]},
        {**data, "rng": [3, [1, 2], None]},
        {**data, "to_move": 9},
        {**data, "options": {"teams": 3}},
        {k: v for k, v in data.items() if k != "hands"},
    ]
    for bad in broken:
        with pytest.raises(InvalidStateError):
            ENGINE.state_from_json(bad)
