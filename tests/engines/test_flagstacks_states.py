"""Stacks (13x13 flag game): illegal input, saved states, and the greedy bot's heuristic."""

from __future__ import annotations

import json

import pytest

from engines import IllegalMoveError, InvalidStateError
from engines.games.flagstacks import FlagStacksState
from kit import REFERENCE_BOTS
from tests.engines.test_flagstacks import ENGINE, make

# -- errors and serialisation -----------------------------------------------------


@pytest.mark.parametrize(
    "bad",
    ["", "pass", "e5-e7", "e5-e6:f", "e5-e6:r", "+f@g1", "+y@g1", "E5-E6", "e5e6", "z9-z10", None, 5, ["e5-e6"]],
)
def test_illegal_and_malformed_moves_raise_and_change_nothing(bad: object) -> None:
    state = make({"e5": (0, "g"), "e9": (1, "r")}, reserves=[[4, 3, 4], [3, 4, 4]])
    before = state.to_json()
    with pytest.raises(IllegalMoveError):
        state.apply(bad)  # type: ignore[arg-type]
    assert state.to_json() == before


def test_moves_after_the_end_raise() -> None:
    state = ENGINE.new_state({"max_plies": 1})
    state.apply("a1-b1")
    with pytest.raises(IllegalMoveError):
        state.apply("a13-b13")


def test_round_trip_and_clone_independence() -> None:
    state = ENGINE.new_state()
    for move in ["f1-g1", "m13-l13", "g1-h1", "l13-l12"]:
        state.apply(move)
    data = json.loads(json.dumps(state.to_json()))
    loaded = ENGINE.state_from_json(data)
    assert loaded.to_json() == state.to_json() and loaded.legal_moves() == state.legal_moves()
    clone = state.clone()
    clone.apply(clone.legal_moves()[0])
    assert state.to_json() == data
    assert state.observation(0) == state.observation(1) == state.public_observation()


def _valid() -> dict:
    return ENGINE.new_state().to_json()


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(game="pileup"),
        lambda d: d.update(version="0"),
        lambda d: d.update(ply=-1),
        lambda d: d.update(passes=3),
        lambda d: d["squares"].update(z99=[0, "r"]),
        lambda d: d["squares"].update(e7=[0, "r"]),  # a fifth red
        lambda d: d["squares"].update(a1=[2, "r"]),
        lambda d: d["squares"].update(a1=[0, "rx"]),
        lambda d: d["squares"].update(a1=[0, ""]),
        lambda d: (d["squares"].update(a1=[0, "rff"]), d["squares"].pop("g1")),  # two flags off home
        lambda d: d["squares"].pop("g1"),  # flags missing
        lambda d: d.update(reserves=[[0, 0, 0]]),
        lambda d: d.update(reserves=[[1, 0, 0], [0, 0, 0]]),
        lambda d: d.update(options={"max_plies": "x"}),
    ],
)
def test_bad_state_data_raises(mutate) -> None:
    data = _valid()
    mutate(data)
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json(data)


def test_flag_totals_are_kept_in_random_play() -> None:
    from engines.playout import random_playout

    for seed in range(5):
        state, _ = random_playout(ENGINE, seed=seed, options={"max_plies": 300})
        assert isinstance(state, FlagStacksState)
        for seat in (0, 1):
            on_board = sum(s.count("f") for sq, s in enumerate(state.board) if s and state.owner[sq] & 1 == seat)
            assert on_board == 2


def test_greedy_heuristic_takes_the_winning_target() -> None:
    import importlib.util

    path = REFERENCE_BOTS / "greedy" / "heuristic_flagstacks.py"
    spec = importlib.util.spec_from_file_location("heuristic_flagstacks", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    state = make({"g7": (0, "f"), "b7": (0, "fr"), "b8": (1, "g"), "e5": (0, "ggy")})
    obs = state.observation(0)
    scores = {m: module.score(obs, m, 0) for m in state.legal_moves()}
    assert max(scores, key=scores.__getitem__) in {"b7-a7:r", "b7-c7:r"}
