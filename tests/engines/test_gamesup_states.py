"""The Game's Up!: bookkeeping, illegal input, golden counts, saved states, the greedy bot's heuristic."""

from __future__ import annotations

import importlib.util
import json
import random

import pytest

from engines import IllegalMoveError, InvalidStateError
from engines.games.gamesup import GamesUpState
from kit import REFERENCE_BOTS
from tests.engines.test_gamesup import ENGINE, position, squares

# -- bookkeeping, errors, serialisation ---------------------------------------


def test_ply_rotation_last_move_and_turn() -> None:
    state = ENGINE.new_state()
    state.apply("c2-d3")
    obs = state.public_observation()
    assert obs["ply"] == 1 and obs["rotation"] == 1 and obs["to_move"] == 1 and obs["last_move"] == "c2-d3"
    state.apply("d5-d4")
    obs = state.public_observation()
    assert obs["ply"] == 2 and obs["rotation"] == 2 and obs["to_move"] == 0 and obs["no_return"] == "d4-d5"


BAD_MOVES = ["", "pass", "c2", "c2-", "c2d3", "C2-D3", " c2-d3", "c2-d3 ", "c2-d5", "c2-c2", "a0-a1", "g1-g2", "c3-c4"]


@pytest.mark.parametrize("bad", [*BAD_MOVES, None, 7, ("c2", "d3")])
def test_illegal_and_malformed_moves_leave_the_state_unchanged(bad: object) -> None:
    state = ENGINE.new_state()
    state.apply("a1-a3")
    before = state.to_json()
    with pytest.raises(IllegalMoveError) as info:
        state.apply(bad)  # type: ignore[arg-type]
    assert str(info.value)
    assert state.to_json() == before
    assert len(state.legal_moves()) == 63  # counted by hand: 30 own, 33 moving Blue pieces


def test_error_messages_say_why() -> None:
    state = ENGINE.new_state()
    with pytest.raises(IllegalMoveError, match="is empty"):
        state.apply("c3-c4")
    with pytest.raises(IllegalMoveError, match="malformed"):
        state.apply("c2-d5")
    with pytest.raises(IllegalMoveError, match="lower case"):
        state.apply("C2-D3")


def test_golden_move_counts() -> None:
    state = ENGINE.new_state()
    assert len(state.legal_moves()) == 60  # 30 Blue moves, 30 moves of Red pieces

    def perft(s: GamesUpState, depth: int) -> int:
        if depth == 0:
            return 1
        total = 0
        for move in s.legal_moves():
            child = s.clone()
            child.apply(move)
            total += perft(child, depth - 1)
        return total

    assert perft(state, 2) == 3884
    assert perft(state, 3) == 266022
    state.apply("c2-d3")
    assert len(state.legal_moves()) == 64
    state.apply("d5-d4")
    assert len(state.legal_moves()) == 68
    layout = squares(state)
    assert layout["d3"] == "B3" and layout["d4"] == "R3" and "c2" not in layout and "d5" not in layout
    assert state.legal_moves()[:6] == ["a1-a3", "a1-c3", "a2-a3", "a2-b3", "a2-c2", "a5-a4"]


def test_json_round_trip_and_clone() -> None:
    state = ENGINE.new_state({"target": 13})
    for move in ["c2-d3", "d5-d4", "d3-d4"]:
        state.apply(move)
    data = json.loads(json.dumps(state.to_json()))
    loaded = ENGINE.state_from_json(data)
    assert loaded.to_json() == state.to_json()
    assert loaded.legal_moves() == state.legal_moves()
    clone = state.clone()
    clone.apply("c5-d4")
    assert state.to_json() == data and clone.to_json() != data


@pytest.mark.parametrize(
    "change",
    [
        {"board": [[]] * 35},
        {"board": [[[0, 7]]] + [[]] * 35},
        {"board": [[[True, 1]]] + [[]] * 35},
        {"board": [[[1.0, 1]]] + [[]] * 35},
        {"board": [[[0, 2.0]]] + [[]] * 35},
        {"board": [[[0, 1]]] * 5 + [[]] * 31},  # five 1/6 pieces of one colour
        {"board": [[[0, 1, 2]]] + [[]] * 35},
        {"scores": [3, 0]},
        {"turn": 2},
        {"turn": 1.0},
        {"ply": 301},
        {"ply": -1},
        {"no_return": ["a1", "a5"]},
        {"no_return": ["a1", "z9"]},
        {"last_move": "a1-z9"},
        {"passes": 3},
        {"game": "pileup"},
        {"options": {"target": 1}},
        {"result": {"ranks": [1, 2], "reason": "target score reached", "scores": [0, 0]}},
    ],
)
def test_bad_state_data_is_rejected(change: dict) -> None:
    data = ENGINE.new_state().to_json()
    data.update(change)
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json(data)


def test_state_from_json_rejects_non_objects() -> None:
    for data in (None, [], "x", {}):
        with pytest.raises(InvalidStateError):
            ENGINE.state_from_json(data)  # type: ignore[arg-type]


# -- greedy heuristic ---------------------------------------------------------


def _heuristic():
    path = REFERENCE_BOTS / "greedy" / "heuristic_gamesup.py"
    spec = importlib.util.spec_from_file_location("heuristic_gamesup", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.score


def test_greedy_prefers_a_scoring_capture() -> None:
    score = _heuristic()
    state = position({"c3": "B6", "d4": "R1", "a6": "R2", "f1": "B2"})
    obs = state.observation(0)
    moves = state.legal_moves()
    best = max(moves, key=lambda m: score(obs, m, 0))
    assert best == "c3-d4" and score(obs, best, 0) == 2


def test_greedy_takes_a_win() -> None:
    score = _heuristic()
    state = position({"c3": "B1", "d4": "R5 R6", "e6": "R1", "a1": "R3 B2"}, options={"target": 13})
    obs = state.observation(0)
    assert score(obs, "c3-d4", 0) > 1e5
    assert score(obs, "a1-a2", 0) < 1e5


def test_greedy_simulation_matches_the_engine() -> None:
    score = _heuristic()
    rng = random.Random(11)
    state = ENGINE.new_state({"target": 144})
    for _ in range(60):
        seat = state.to_move()
        obs = state.observation(seat)
        for move in state.legal_moves():
            child = state.clone()
            child.apply(move)
            scores = child.public_observation()["scores"]
            assert score(obs, move, seat) == scores[seat] - scores[1 - seat], move
        state.apply(rng.choice(state.legal_moves()))
