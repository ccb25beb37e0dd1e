"""Rule-by-rule tests for The Game's Up! (`gamesup`), from constructed positions.

Positions are written as ``{"c3": "B6", "d4": "R1 B3"}``: each square lists its
pieces bottom to top, ``B``/``R`` for Blue (seat 0) / Red (seat 1) and the face
showing.  They are loaded through ``state_from_json``, which recomputes scores
and the result, so the tests also exercise loading.
"""

from __future__ import annotations

import pathlib
import random

import pytest

from engines import IllegalMoveError, get_engine
from engines.games.gamesup import SQUARES, GamesUpState

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENGINE = get_engine("gamesup")


def position(
    layout: dict[str, str],
    turn: int = 0,
    options: dict | None = None,
    **extra: object,
) -> GamesUpState:
    """A state with exactly the pieces in ``layout`` and Blue (or ``turn``) to move."""
    board: list[list[list[int]]] = [[] for _ in SQUARES]
    for square, text in layout.items():
        board[SQUARES.index(square)] = [[0 if tok[0] == "B" else 1, int(tok[1:])] for tok in text.split()]
    data = {"game": "gamesup", "options": options or {}, "seats": 2, "seed": 0, "ply": 0, "turn": turn}
    data["board"] = board
    data.update(extra)
    state = ENGINE.state_from_json(data)
    assert isinstance(state, GamesUpState)
    return state


def squares(state: GamesUpState) -> dict[str, str]:
    """The board back in the ``position`` notation (occupied squares only)."""
    out = {}
    for sq in state.public_observation()["board"]:
        if sq["pieces"]:
            out[sq["square"]] = " ".join(("B" if p["owner"] == 0 else "R") + str(p["face"]) for p in sq["pieces"])
    return out


def legal(layout: dict[str, str], move: str, turn: int = 0, **extra: object) -> bool:
    return move in position(layout, turn, **extra).legal_moves()


# -- start position and inversion ---------------------------------------------


def test_start_layout() -> None:
    state = ENGINE.new_state()
    assert squares(state) == {
        **{f"{f}1": f"B{n}" for f, n in zip("abcdef", range(1, 7), strict=True)},
        **{f"{f}2": f"B{n}" for f, n in zip("abcdef", range(6, 0, -1), strict=True)},
        # Red's ranks read the same way from Red's side, i.e. mirrored for Blue.
        **{f"{f}5": f"R{n}" for f, n in zip("abcdef", range(1, 7), strict=True)},
        **{f"{f}6": f"R{n}" for f, n in zip("abcdef", range(6, 0, -1), strict=True)},
    }
    obs = state.public_observation()
    assert [sq["square"] for sq in obs["board"][:7]] == ["a1", "b1", "c1", "d1", "e1", "f1", "a2"]
    assert obs["scores"] == [0, 0]
    assert obs["to_move"] == 0
    assert obs["last_move"] is None and obs["no_return"] is None
    assert obs["rotation"] == 0 and obs["ply"] == 0 and obs["passes"] == 0
    assert obs["options"] == {"target": 21, "max_plies": 300}
    assert state.observation(0) == state.observation(1) == obs


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_every_move_inverts_the_moving_piece(face: int) -> None:
    state = position({"c3": f"B{face}"})
    state.apply("c3-c4")
    assert squares(state) == {"c4": f"B{7 - face}"}


def test_stack_move_inverts_only_the_top_piece() -> None:
    state = position({"c3": "R2 B6 B5", "a6": "R1"})
    state.apply("c3-d3")
    assert squares(state) == {"d3": "R2 B6 B2", "a6": "R1"}


def test_moving_an_opponent_piece_inverts_it() -> None:
    state = position({"c3": "R2", "a1": "B1"})
    state.apply("c3-c2")
    assert squares(state) == {"c2": "R5", "a1": "B1"}


# -- captures -----------------------------------------------------------------


@pytest.mark.parametrize("m", range(1, 7))
@pytest.mark.parametrize("t", range(1, 7))
def test_single_piece_capture_table(m: int, t: int) -> None:
    # The Blue piece shows 7 - m, so it is m once inverted.
    can = m == t or m + t == 7 or t == m - 1
    assert legal({"c3": f"B{7 - m}", "d4": f"R{t}"}, "c3-d4") is can
    # The same rule applies when the target is a stack: only its top counts.
    assert legal({"c3": f"B{7 - m}", "d4": f"B1 R{t}"}, "c3-d4") is can


@pytest.mark.parametrize(
    ("m", "t"),
    [(3, 3), (2, 5), (5, 4)],
    ids=["equal", "sum-seven", "one-lower"],
)
def test_single_piece_captures(m: int, t: int) -> None:
    state = position({"c3": f"B{7 - m}", "d4": f"R{t}"})
    state.apply("c3-d4")
    assert squares(state) == {"d4": f"R{t} B{m}"}
    assert state.public_observation()["board"][SQUARES.index("d4")]["owner"] == 0
    assert state.public_observation()["scores"] == [m + t, 0]


@pytest.mark.parametrize(
    ("m", "t"), [(1, 2), (2, 3), (6, 2), (1, 3)], ids=["one-higher", "one-higher-again", "unrelated", "two-higher"]
)
def test_single_piece_refused_otherwise(m: int, t: int) -> None:
    state = position({"c3": f"B{7 - m}", "d4": f"R{t}"})
    assert "c3-d4" not in state.legal_moves()
    with pytest.raises(IllegalMoveError):
        state.apply("c3-d4")


@pytest.mark.parametrize("m", range(1, 7))
@pytest.mark.parametrize("t", range(1, 7))
def test_stack_captures_only_a_lower_top(m: int, t: int) -> None:
    assert legal({"c3": f"R1 B{7 - m}", "d4": f"R{t}"}, "c3-d4") is (m > t)
    assert legal({"c3": f"R1 B{7 - m}", "d4": f"B2 R{t}"}, "c3-d4") is (m > t)


def test_stack_capture_builds_one_stack() -> None:
    state = position({"c3": "R1 B2", "d4": "B3 R4"})
    state.apply("c3-d4")  # top 2 -> 5 > 4
    assert squares(state) == {"d4": "B3 R4 R1 B5"}
    assert state.public_observation()["scores"] == [13, 0]


def test_capture_only_with_own_colour() -> None:
    # Blue may move Red's single 3 (-> 4), but never onto a piece, even one it "matches".
    state = position({"c3": "R3", "d4": "B4", "d3": "R4"})
    moves = state.legal_moves()
    assert "c3-d4" not in moves and "c3-d3" not in moves
    assert "c3-c4" in moves


# -- leaps --------------------------------------------------------------------


def test_single_leaps_over_own_piece_or_own_stack() -> None:
    assert legal({"a1": "B1", "a2": "B2"}, "a1-a3")
    assert legal({"a1": "B1", "a2": "R5 B2"}, "a1-a3")
    assert legal({"a1": "B1", "b2": "B2"}, "a1-c3")  # diagonals too


def test_single_never_leaps_over_opponent_or_empty() -> None:
    assert not legal({"a1": "B1", "a2": "R2"}, "a1-a3")
    assert not legal({"a1": "B1", "a2": "B5 R2"}, "a1-a3")
    assert not legal({"a1": "B1"}, "a1-a3")
    # Only one square is ever jumped.
    assert not legal({"a1": "B1", "a2": "B2", "a3": "B3"}, "a1-a4")


def test_leap_may_capture() -> None:
    state = position({"a1": "B1", "a2": "B2", "a3": "R6"})  # 1 -> 6 takes 6
    state.apply("a1-a3")
    assert squares(state) == {"a2": "B2", "a3": "R6 B6"}


def test_stacks_never_leap() -> None:
    state = position({"a1": "R3 B1", "a2": "B2"})
    moves = state.legal_moves()
    assert "a1-a3" not in moves
    assert "a1-b1" in moves and "a1-b2" in moves


# -- moving the opponent's pieces ---------------------------------------------


def test_opponent_single_steps_or_leaps_over_its_own_colour_onto_empty() -> None:
    layout = {"c3": "R2", "d4": "R5", "c4": "B6 R1", "b3": "B1", "a6": "B6"}
    moves = position(layout).legal_moves()
    assert "c3-d3" in moves  # a step onto an empty square
    assert "c3-e5" in moves  # over a Red single
    assert "c3-c5" in moves  # over a Red stack
    assert "c3-a3" not in moves  # not over a Blue piece
    assert "c3-c1" not in moves  # not over an empty square
    assert "c3-d4" not in moves and "c3-c4" not in moves and "c3-b3" not in moves  # occupied


def test_opponent_stack_cannot_be_moved() -> None:
    state = position({"c3": "B6 R2", "a1": "B1"})
    assert not any(m.startswith("c3-") for m in state.legal_moves())
    with pytest.raises(IllegalMoveError, match="opponent's stack"):
        state.apply("c3-c4")


def test_never_land_on_own_colour() -> None:
    # B1 -> 6 would "match" the 6s by number, but they are Blue's own.
    layout = {"c3": "B1", "d4": "B6", "d3": "R6 B6", "c4": "R1"}
    moves = position(layout).legal_moves()
    assert "c3-d4" not in moves and "c3-d3" not in moves
    assert "c3-c4" in moves  # 6 + 1 == 7 captures the Red 1
    moves = position({"c3": "R1 B2", "d4": "B1", "d3": "R6 B1"}).legal_moves()
    assert "c3-d4" not in moves and "c3-d3" not in moves


# -- no return ----------------------------------------------------------------


def test_no_return_of_own_piece_by_the_opponent() -> None:
    state = position({"c3": "B3", "a6": "R1"})
    state.apply("c3-d4")
    assert state.public_observation()["no_return"] == "d4-c3"
    moves = state.legal_moves()
    assert "d4-c3" not in moves and "d4-d3" in moves  # Red may move the Blue piece, not back
    with pytest.raises(IllegalMoveError, match="no return"):
        state.apply("d4-c3")
    state.apply("a6-a5")
    assert "d4-c3" in state.legal_moves()  # only for one ply


def test_no_return_after_moving_the_opponents_piece() -> None:
    state = position({"c5": "R3", "a1": "B1"})
    state.apply("c5-c4")  # Blue moves Red's piece
    assert "c4-c5" not in state.legal_moves()
    assert "c4-c3" in state.legal_moves()
    state = position({"c3": "R3", "a6": "B1"}, turn=1)
    state.apply("c3-c4")  # Red moves its own piece; Blue may not move it back
    assert "c4-c3" not in state.legal_moves()


def test_pass_clears_no_return() -> None:
    # Blue owns nothing and Red has no single piece: Blue must pass.
    state = position({"a1": "B3 R4"}, no_return=["a1", "b2"], last_move="b2-a1")
    assert state.legal_moves() == ["pass"]
    state.apply("pass")
    assert "a1-b2" in state.legal_moves()


# -- scores and the end -------------------------------------------------------


def test_scoring_example_from_the_rules() -> None:
    # "A blue 1 captures a red 1": the Blue piece shows 6 and is a 1 once inverted.
    state = position({"c3": "B6", "d4": "R1", "a6": "R2"})
    state.apply("c3-d4")
    assert squares(state)["d4"] == "R1 B1"
    assert state.public_observation()["scores"] == [2, 0]
    assert not state.is_terminal()


def test_single_pieces_score_nothing_and_scores_can_fall() -> None:
    state = position({"a1": "B6", "c3": "R2 B6", "f6": "R4"})
    assert state.public_observation()["scores"] == [8, 0]
    state.apply("c3-c4")  # the top 6 turns into a 1
    assert state.public_observation()["scores"] == [3, 0]


def test_capturing_a_stack_takes_its_points() -> None:
    state = position({"c3": "R2 B5", "d4": "R1", "a1": "B1"}, turn=1)
    assert state.public_observation()["scores"] == [7, 0]
    state.apply("d4-c3")  # Red's 1 turns into a 6: one more than the top 5
    assert squares(state)["c3"] == "R2 B5 R6"
    assert state.public_observation()["scores"] == [0, 13]


def test_target_reached_ends_and_wins() -> None:
    state = position({"c3": "B1", "d4": "R5 R6", "a6": "R1"}, options={"target": 13})
    state.apply("c3-d4")  # 1 -> 6 captures the top 6: 5 + 6 + 6 = 17
    assert state.is_terminal() and state.to_move() is None and state.legal_moves() == []
    result = state.result()
    assert result is not None
    assert result.ranks == (1, 2) and result.reason == "target score reached" and result.scores == (17, 0)
    with pytest.raises(IllegalMoveError, match="over"):
        state.apply("a6-a5")


def test_target_reached_exactly() -> None:
    state = position({"c3": "R1", "d4": "B6", "a1": "B2"}, turn=1, options={"target": 12})
    state.apply("c3-d4")
    assert state.result() is not None and state.result().ranks == (2, 1)
    assert state.result().scores == (0, 12)


def test_below_target_goes_on() -> None:
    state = position({"c3": "B1", "d4": "R5 R6", "a6": "R1"}, options={"target": 18})
    state.apply("c3-d4")
    assert not state.is_terminal() and state.to_move() == 1


def test_pass_only_when_nothing_else() -> None:
    state = ENGINE.new_state()
    assert "pass" not in state.legal_moves()
    with pytest.raises(IllegalMoveError, match="cannot pass"):
        state.apply("pass")
    state = position({"a1": "B3 R4", "f6": "R1 R2"})
    assert state.legal_moves() == ["pass"]
    with pytest.raises(IllegalMoveError, match="must play 'pass'"):
        state.apply("a1-a2")
    state.apply("pass")
    obs = state.public_observation()
    assert obs["passes"] == 1 and obs["last_move"] == "pass" and obs["rotation"] == 0
    assert not state.is_terminal()
    state.apply(state.legal_moves()[0])
    assert state.public_observation()["passes"] == 0


def test_two_passes_end_the_game() -> None:
    state = position({})
    state.apply("pass")
    assert state.legal_moves() == ["pass"]
    state.apply("pass")
    result = state.result()
    assert result is not None and result.reason == "two passes in a row" and result.ranks == (1, 1)
    # After an earlier pass, a second one ends it, and the higher score wins.
    state = position({"a1": "B3 R4"}, passes=1, last_move="pass")
    state.apply("pass")
    result = state.result()
    assert result is not None and result.reason == "two passes in a row"
    assert result.ranks == (2, 1) and result.scores == (0, 7)


def test_ply_cap_scores_the_game() -> None:
    state = position({"c3": "R2 B1", "a6": "R1"}, options={"max_plies": 10}, ply=9)
    state.apply("c3-c4")
    result = state.result()
    assert result is not None and result.reason == "ply cap reached"
    assert result.ranks == (1, 2) and result.scores == (8, 0)


def test_draw_on_equal_scores() -> None:
    state = position({"c3": "R2 B1", "f6": "B6 R2"}, options={"max_plies": 5}, ply=4)
    state.apply("c3-c4")  # 2 + 6 = 8 each
    result = state.result()
    assert result is not None and result.ranks == (1, 1) and result.scores == (8, 8)
    assert result.reason == "ply cap reached"


def test_ply_cap_of_a_whole_game() -> None:
    state = ENGINE.new_state({"max_plies": 7, "target": 144})
    rng = random.Random(3)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_moves()))
    assert state.ply == 7 and state.result().reason == "ply cap reached"
