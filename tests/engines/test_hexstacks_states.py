"""Hexagon Stacks: notation, illegal input, options, saved states, the greedy bot's heuristic."""

from __future__ import annotations

import importlib.util
import json
import random

import pytest

from engines import IllegalMoveError, InvalidOptionsError, InvalidStateError
from engines.playout import random_playout
from kit import REFERENCE_BOTS
from tests.engines.test_hexstacks import ENGINE, ROOT, position

# -- notation, errors, options, serialisation ----------------------------------------


# In order: empty; no such hex; seat 1's edge; not an edge; count missing; count
# 0; count with a leading zero; only one piece there; not touching; not the far
# row; upper case; a leading space; pass while moves exist; not strings at all.
BAD_MOVES = ["", "+r1c5", "+r7c1", "+r2c1", "r1c1-r2c1", "r1c1-r2c1x0", "r1c1-r2c1x01", "r1c1-r2c1x2"]
BAD_MOVES += ["r1c1-r2c3x1", "r1c1-offx1", "R1C1-R2C1X1", " +r1c2", "pass", None, 7, ["+r1c2"]]


@pytest.mark.parametrize("bad", BAD_MOVES)
def test_illegal_and_malformed_moves_leave_the_state_alone(bad: object) -> None:
    state = position({"r1c1": [0], "r6c1": [1]})
    before = state.to_json()
    with pytest.raises(IllegalMoveError):
        state.apply(bad)  # type: ignore[arg-type]
    assert state.to_json() == before
    # A backward move by seat 1's piece, moved by seat 0, is just as illegal.
    with pytest.raises(IllegalMoveError):
        state.apply("r6c1-r5c1x1")


def test_options_and_rating_pools() -> None:
    assert ENGINE.validate_options({}) == {"size": 4, "diabolical": False, "max_plies": 400}
    for bad in ({"size": 2}, {"size": 7}, {"diabolical": 1}, {"max_plies": 0}):
        with pytest.raises(InvalidOptionsError):
            ENGINE.validate_options(bad)
    standard = ENGINE.rating_pool({})
    diabolical = ENGINE.rating_pool({"diabolical": True})
    assert standard != diabolical
    assert standard == "hexstacks:diabolical=false" and diabolical == "hexstacks:diabolical=true"
    assert ENGINE.rating_pool({"size": 6}) == standard
    configs = [opts for _, opts in ENGINE.configs()]
    assert any(o.get("diabolical") for o in configs) and any(not o.get("diabolical") for o in configs)
    assert {3, 6} <= {o.get("size", 4) for o in configs}
    assert (ROOT / ENGINE.rules_doc).is_file()


def test_observation_fields() -> None:
    state = ENGINE.new_state({"diabolical": True})
    state.apply("+r1c3")
    obs = state.observation(1)
    assert obs == state.observation(0) == state.public_observation()
    assert obs["board"] == {
        "size": 4,
        "rows": 7,
        "row_lengths": [4, 5, 6, 7, 6, 5, 4],
        "hexes": 37,
        "near_row": [1, 7],
        "far_row": [7, 1],
    }
    assert obs["stacks"] == {"r1c3": [0]}
    assert obs["supply"] == [11, 12] and obs["exited"] == [0, 0]
    assert obs["to_move"] == 1 and obs["points"] == 2 and obs["last_move"] == "+r1c3" and obs["ply"] == 1
    assert obs["options"] == {"size": 4, "diabolical": True, "max_plies": 400}


def test_json_round_trip_and_clone_independence() -> None:
    state, _ = random_playout(ENGINE, seed=3, options={"max_plies": 30})
    data = json.loads(json.dumps(state.to_json()))
    assert ENGINE.state_from_json(data).to_json() == state.to_json()
    live = position({"r1c1": [0, 1, 0]}, diabolical=True)
    twin = live.clone()
    twin.apply("r1c1-r2c1x3")
    assert live.public_observation()["stacks"] == {"r1c1": [0, 1, 0]}
    assert live.legal_moves() != twin.legal_moves()


def _good() -> dict:
    return position({"r1c1": [0], "r7c1": [1]}).to_json()


# Wrong game or version; a hex off a size 4 board; bad colours; an empty stack; stacks
# not an object; 13 pieces for seat 0; a negative count; bad seat, points, ply,
# options, last move, seed; pieces on the board at ply 0.
BAD_PATCHES = [{"engine": "pileup"}, {"version": "0"}, {"stacks": {"r9c1": [0]}}, {"stacks": {"r1c1": [2]}}]
BAD_PATCHES += [{"stacks": {"r1c1": [True]}}, {"stacks": {"r1c1": []}}, {"stacks": [[0]]}, {"supply": [12, 11]}]
BAD_PATCHES += [{"exited": [-1, 0]}, {"seat": 2}, {"seat": True}, {"points": 3}, {"ply": -1}, {"ply": 401}]
BAD_PATCHES += [{"options": {"size": 9}}, {"last_move": 5}, {"seed": "x"}, {"ply": 0, "seat": 0, "points": 1}]


@pytest.mark.parametrize("patch", BAD_PATCHES)
def test_bad_state_data(patch: dict) -> None:
    data = _good()
    data.update(patch)
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json(data)


def test_bad_state_data_missing_keys_and_impossible_turns() -> None:
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json({"engine": "hexstacks"})
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json("hexstacks")  # type: ignore[arg-type]
    # One point left mid-turn with no 1-point action: the engine never stops there.
    with pytest.raises(InvalidStateError):
        position({"r1c1": [0], "r2c1": [1], "r2c2": [1]}, points=1, supply=(0, 10), exited=(11, 0))


# -- the greedy bot's heuristic ----------------------------------------------------------


def _heuristic():
    path = REFERENCE_BOTS / "greedy" / "heuristic_hexstacks.py"
    spec = importlib.util.spec_from_file_location("heuristic_hexstacks", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.score


def test_heuristic_scores_every_move_and_prefers_exits() -> None:
    score = _heuristic()
    state = position({"r7c3": [0, 1, 0, 0], "r4c4": [1, 1, 0], "r5c4": [1], "r6c2": [1, 0]}, diabolical=True)
    obs = state.observation(0)
    values = {m: score(obs, m, 0) for m in state.legal_moves()}
    assert all(isinstance(v, float) for v in values.values())
    assert max(values, key=values.get) == "r7c3-offx2"
    rng = random.Random(1)
    for seed in range(5):
        s = ENGINE.new_state({"diabolical": seed % 2 == 1, "size": 3 + seed % 4})
        while not s.is_terminal():
            seat = s.to_move()
            obs = s.observation(seat)
            for m in s.legal_moves():
                score(obs, m, seat)
            s.apply(rng.choice(s.legal_moves()))


def test_heuristic_beats_random_play() -> None:
    """Ten short games on the small board, greedy against uniform random, seats swapped."""
    score = _heuristic()
    wins = 0
    for game in range(10):
        rng = random.Random(game)
        state = ENGINE.new_state({"size": 3, "diabolical": game % 4 == 1})
        greedy = game % 2
        while not state.is_terminal():
            seat = state.to_move()
            moves = state.legal_moves()
            if seat == greedy:
                obs = state.observation(seat)
                move = max(moves, key=lambda m: score(obs, m, seat))
            else:
                move = rng.choice(moves)
            state.apply(move)
        wins += state.result().ranks[greedy] == 1 and state.result().ranks[1 - greedy] == 2
    assert wins >= 8
