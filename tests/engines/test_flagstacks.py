"""Rules of Stacks (13x13 flag game), one test per rule, from constructed positions.

Positions are written as {square: (seat, pieces bottom to top)}; the helper
puts every piece not on the board into its owner's reserve and any flag not
placed onto its owner's home square, then loads the state through
``state_from_json`` like any saved game.
"""

from __future__ import annotations

import json

import pytest

from engines import IllegalMoveError, get_engine
from engines.games.flagstacks import FlagStacksState

ENGINE = get_engine("flagstacks")

# Golden figures computed by this engine and checked in: they pin the move
# generator and guard against accidental rule changes.
# (a string split, to keep the eighteen moves on two lines)
START_MOVES = (  # noqa: SIM905
    "a1-b1 b1-b2 c1-b2 c1-d2 d1-c2 d1-e2 e1-e2 f1-e1 f1-g1 h1-g1 h1-i1 i1-i2 j1-i2 j1-k2 k1-j2 k1-l2 l1-l2 m1-l1"
).split()
DISTINCT_POSITIONS = {1: 18, 2: 324, 3: 3564}


def make(
    squares: dict[str, tuple[int, str]],
    *,
    to_move: int = 0,
    max_plies: int = 600,
    reserves: list[list[int]] | None = None,
) -> FlagStacksState:
    """A state with exactly these squares occupied (plus flags at home where unplaced)."""
    placed = {name: [seat, pieces] for name, (seat, pieces) in squares.items()}
    for seat in (0, 1):
        flags = sum(p.count("f") for s, p in placed.values() if s == seat)
        home = ["g1", "g13"][seat]
        if flags < 2:
            if home in placed:
                assert placed[home][0] == seat, "helper: missing flags need their home free or own"
                placed[home][1] = "f" * (2 - flags) + placed[home][1]
            else:
                placed[home] = [seat, "f" * (2 - flags)]
    if reserves is None:
        reserves = [[4 - sum(p.count(k) for s, p in placed.values() if s == seat) for k in "rgy"] for seat in (0, 1)]
    ply = 10 + to_move
    data = {
        "game": "flagstacks",
        "version": ENGINE.version,
        "seats": 2,
        "seed": 0,
        "options": {"max_plies": max_plies},
        "ply": ply,
        "passes": 0,
        "last_move": "a1-b1",
        "squares": placed,
        "reserves": reserves,
    }
    state = ENGINE.state_from_json(data)
    assert isinstance(state, FlagStacksState)
    return state


def board(state: FlagStacksState) -> dict[str, tuple[int, str]]:
    """{square: (owner, pieces)} of a state, for compact assertions."""
    return {name: (v["owner"], "".join(v["pieces"])) for name, v in state.public_observation()["squares"].items()}


def moves_from(state: FlagStacksState, square: str) -> set[str]:
    """The legal moves starting on ``square``."""
    return {m for m in state.legal_moves() if m.split("-")[0] == square}


def reserves(state: FlagStacksState) -> list[dict[str, int]]:
    """Reserve counts per seat, from the observation."""
    return state.public_observation()["reserves"]


def gained(before: list[dict[str, int]], state: FlagStacksState) -> list[dict[str, int]]:
    """How many pieces of each kind went into each reserve since ``before``."""
    now = reserves(state)
    return [{k: now[s][k] - before[s][k] for k in "rgy"} for s in (0, 1)]


def canonical(state: FlagStacksState) -> str:
    """The position alone (not how it was reached): board, reserves, ply, passes."""
    d = state.to_json()
    return json.dumps([d["squares"], d["reserves"], d["ply"], d["passes"]], sort_keys=True)


# -- start position and golden counts -------------------------------------------


def test_start_position() -> None:
    state = ENGINE.new_state()
    assert state.legal_moves() == START_MOVES
    obs = state.public_observation()
    assert obs["squares"]["g1"] == {"owner": 0, "pieces": ["f", "f"]}
    assert obs["squares"]["a13"] == {"owner": 1, "pieces": ["r"]}
    assert len(obs["squares"]) == 26
    assert obs["targets"] == {"b7": None, "g7": None, "l7": None}
    assert obs["reserves"] == [{"r": 0, "g": 0, "y": 0}] * 2


def test_distinct_positions_after_three_plies() -> None:
    frontier = {canonical(s := ENGINE.new_state()): s}
    for depth in (1, 2, 3):
        nxt: dict[str, FlagStacksState] = {}
        for state in frontier.values():
            for move in state.legal_moves():
                child = state.clone()
                child.apply(move)
                nxt.setdefault(canonical(child), child)
        frontier = nxt
        assert len(frontier) == DISTINCT_POSITIONS[depth], depth


# -- movement -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pieces", "expected"),
    [
        ("r", {"e5-d5", "e5-f5"}),
        ("g", {"e5-e4", "e5-e6"}),
        ("y", {"e5-d4", "e5-d6", "e5-f4", "e5-f6"}),
    ],
)
def test_each_kind_moves_its_way(pieces: str, expected: set[str]) -> None:
    state = make({"e5": (0, pieces)})
    assert moves_from(state, "e5") == expected


def test_a_lone_flag_never_moves() -> None:
    state = make({"e5": (0, "f"), "h4": (0, "r")})
    assert moves_from(state, "e5") == set()
    # ... and the two flags at home do not move without pieces either.
    state = make({"h4": (0, "r")})
    assert moves_from(state, "g1") == set()


def test_board_edges() -> None:
    state = make({"a1": (0, "y"), "m13": (0, "g")})
    assert moves_from(state, "a1") == {"a1-b2"}
    assert moves_from(state, "m13") == {"m13-m12"}


def test_stack_directions_and_range_come_from_its_pieces() -> None:
    state = make({"e5": (0, "rrg")})
    assert moves_from(state, "e5") == {
        # whole stack: two reds give 1-2 squares along the rank, one green 1 along the file
        "e5-c5",
        "e5-d5",
        "e5-f5",
        "e5-g5",
        "e5-e4",
        "e5-e6",
        # one piece off: each kind by one square of its own
        "e5-d5:r",
        "e5-f5:r",
        "e5-e4:g",
        "e5-e6:g",
    }


def test_range_four_and_flags_give_no_direction() -> None:
    state = make({"g5": (0, "fyyyy")})
    whole = {m for m in moves_from(state, "g5") if ":" not in m}
    diagonals = ["h6 i7 j8 k9", "h4 i3 j2 k1", "f6 e7 d8 c9", "f4 e3 d2 c1"]
    assert whole == {f"g5-{sq}" for ray in diagonals for sq in ray.split()}


def test_no_jumping_over_own_or_enemy_pieces() -> None:
    own = make({"a5": (0, "rrrr"), "c5": (0, "g")})
    assert {m for m in moves_from(own, "a5") if ":" not in m} == {"a5-b5", "a5-c5"}
    enemy = make({"a5": (0, "rrrr"), "c5": (1, "g")})
    assert {m for m in moves_from(enemy, "a5") if ":" not in m} == {"a5-b5", "a5-c5"}


def test_moving_onto_own_pieces_stacks_them() -> None:
    state = make({"e5": (0, "rr"), "g5": (0, "y")})
    state.apply("e5-g5")
    assert board(state)["g5"] == (0, "yrr")
    assert "e5" not in board(state)


def test_capture_sends_pieces_to_their_owners_reserve() -> None:
    state = make({"e5": (0, "g"), "e6": (1, "ryy")})
    before = reserves(state)
    state.apply("e5-e6")
    assert board(state)["e6"] == (0, "g")
    assert gained(before, state) == [{"r": 0, "g": 0, "y": 0}, {"r": 1, "g": 0, "y": 2}]


# -- taking stacks apart ----------------------------------------------------------


def test_one_piece_off_a_stack_and_never_one_left_behind() -> None:
    state = make({"e5": (0, "rgy")})
    state.apply("e5-e6:g")
    assert board(state)["e5"] == (0, "ry") and board(state)["e6"] == (0, "g")
    # Only "whole" and "one off" exist: nothing moves the stack minus one piece.
    state = make({"e5": (0, "rgy")})
    state.apply("e5-f5")
    assert "e5" not in board(state) and board(state)["f5"] == (0, "rgy")


def test_a_lone_piece_has_only_the_plain_notation() -> None:
    state = make({"e5": (0, "r")})
    assert all(":" not in m for m in moves_from(state, "e5"))
    with pytest.raises(IllegalMoveError):
        state.apply("e5-f5:r")


def test_the_topmost_piece_of_the_kind_comes_off() -> None:
    state = make({"e5": (0, "rgr")})
    state.apply("e5-f5:r")
    assert board(state)["e5"] == (0, "rg")


# -- flags ------------------------------------------------------------------------


def test_flag_pick_up_on_home_takes_exactly_one_flag() -> None:
    state = ENGINE.new_state()
    state.apply("f1-g1")  # the red stacks onto both flags
    state.apply("a13-b13")
    assert board(state)["g1"] == (0, "ffr")
    assert {"g1-f1", "g1-h1", "g1-f1:r", "g1-h1:r"} <= moves_from(state, "g1")
    state.apply("g1-f1")
    assert board(state)["g1"] == (0, "f") and board(state)["f1"] == (0, "fr")


def test_one_piece_off_the_home_stack_leaves_both_flags() -> None:
    state = make({"g1": (0, "ffy")})
    state.apply("g1-h2:y")
    assert board(state)["g1"] == (0, "ff")


def test_a_stack_with_a_flag_may_not_join_another_flag() -> None:
    state = make({"e5": (0, "fr"), "f5": (0, "f")})
    assert "e5-f5" not in state.legal_moves()
    assert "e5-f5:r" in state.legal_moves()  # a lone red carries no flag
    # Home holds the other flag: the carrying stack may not go home either.
    state = make({"f1": (0, "fr"), "g1": (0, "f")})
    assert "f1-g1" not in state.legal_moves()
    # The two-flag home stack takes one flag along, so it may join flagless pieces only.
    state = make({"g1": (0, "ffr"), "h1": (0, "g")})
    state.apply("g1-h1")
    assert board(state)["h1"] == (0, "gfr") and board(state)["g1"] == (0, "f")


def test_one_flag_at_home_leaves_with_the_whole_stack() -> None:
    state = make({"g1": (0, "fgg"), "c5": (0, "fr")})
    state.apply("g1-g3")
    assert "g1" not in board(state) and board(state)["g3"] == (0, "fgg")


def test_a_flag_carrier_may_go_home_once_home_is_empty() -> None:
    state = make({"g2": (0, "fg"), "c5": (0, "fr")})
    assert "g2-g1" in state.legal_moves()
    state.apply("g2-g1")
    assert board(state)["g1"] == (0, "fg")


def test_a_stack_without_a_flag_picks_one_up() -> None:
    state = make({"e5": (0, "f"), "e4": (0, "gg")})
    state.apply("e4-e5")
    assert board(state)["e5"] == (0, "fgg")


def test_taking_the_last_piece_off_leaves_a_lone_flag() -> None:
    state = make({"e5": (0, "fr")})
    state.apply("e5-f5:r")
    assert board(state)["e5"] == (0, "f")
    assert state.public_observation()["targets"] == {"b7": None, "g7": None, "l7": None}


def test_capturing_a_stack_with_a_flag_sends_the_flag_home() -> None:
    # Black's home holds its other flag and a yellow: the yellow is cleared off.
    state = make({"e5": (0, "ry"), "f5": (1, "fg"), "g13": (1, "fy")})
    before = reserves(state)
    state.apply("e5-f5:r")
    b = board(state)
    assert b["f5"] == (0, "r") and b["g13"] == (1, "ff")
    assert gained(before, state) == [{"r": 0, "g": 0, "y": 0}, {"r": 0, "g": 1, "y": 1}]


def test_a_returning_flag_clears_its_home_recursively() -> None:
    # Black's flags are out; a white stack carrying White's flag sits on g13.
    # White's other flag is home with a white green on it.
    state = make(
        {
            "e5": (0, "y"),
            "f6": (1, "fr"),
            "d9": (1, "fg"),
            "g13": (0, "fr"),
            "g1": (0, "fg"),
        }
    )
    before = reserves(state)
    state.apply("e5-f6")
    b = board(state)
    assert b["f6"] == (0, "y")
    assert b["g13"] == (1, "f")  # Black's flag back; White's red and flag removed
    assert b["g1"] == (0, "ff")  # White's flag back; White's own green removed too
    assert b["d9"] == (1, "fg")  # Black's other flag is untouched
    assert gained(before, state) == [{"r": 1, "g": 1, "y": 0}, {"r": 1, "g": 0, "y": 0}]


def test_capturing_on_the_enemy_home_costs_the_capturer() -> None:
    state = make({"f13": (0, "fr"), "g13": (1, "ffg"), "g1": (0, "fy")})
    before = reserves(state)
    state.apply("f13-g13")
    b = board(state)
    assert b["g13"] == (1, "ff")
    assert b["g1"] == (0, "ff")  # the attacking stack's flag went home and cleared it
    assert "f13" not in b
    assert gained(before, state) == [{"r": 1, "g": 0, "y": 1}, {"r": 0, "g": 1, "y": 0}]


def test_capturing_a_lone_flag() -> None:
    state = make({"e5": (0, "g"), "e6": (1, "f")})
    state.apply("e5-e6")
    assert board(state)["e6"] == (0, "g") and board(state)["g13"] == (1, "ff")


# -- re-entry ---------------------------------------------------------------------


def test_reentry_squares_per_kind() -> None:
    state = make({"e5": (0, "r")}, reserves=None)
    entries = {m for m in state.legal_moves() if m.startswith("+")}
    assert {m for m in entries if m[1] == "r"} == {"+r@a1", "+r@f1", "+r@h1", "+r@m1"}
    assert {m for m in entries if m[1] == "g"} == {"+g@b1", "+g@e1", "+g@i1", "+g@l1"}
    assert {m for m in entries if m[1] == "y"} == {"+y@c1", "+y@d1", "+y@j1", "+y@k1"}
    black = make({"e5": (1, "r")}, to_move=1)
    assert {m for m in black.legal_moves() if m.startswith("+y")} == {"+y@c13", "+y@d13", "+y@j13", "+y@k13"}


def test_reentry_only_with_something_in_reserve() -> None:
    state = ENGINE.new_state()
    assert not any(m.startswith("+") for m in state.legal_moves())


def test_reentry_onto_own_stack_and_onto_enemy() -> None:
    state = make({"c1": (0, "g"), "d1": (1, "fr")})
    state.apply("+y@c1")
    assert board(state)["c1"] == (0, "gy")
    state = make({"c1": (0, "g"), "d1": (1, "fr")})
    state.apply("+y@d1")
    assert board(state)["d1"] == (0, "y") and board(state)["g13"] == (1, "ff")


# -- targets and winning ----------------------------------------------------------


def test_lone_flag_on_a_target_owns_it_and_it_is_a_wall() -> None:
    state = make({"b7": (0, "fr"), "a7": (1, "rr"), "b9": (1, "gggg")}, to_move=0)
    state.apply("b7-c7:r")
    obs = state.public_observation()
    assert obs["targets"]["b7"] == 0 and obs["targets_owned"] == [1, 0]
    assert not state.is_terminal()
    # Black can neither enter b7 nor pass over it.
    assert moves_from(state, "a7") == set()  # the rr stack's only way is through b7
    assert "b9-b7" not in state.legal_moves() and "b9-b6" not in state.legal_moves()
    assert "b9-b8" in state.legal_moves()
    # The owning flag never moves again, not even for its owner.
    state.apply("b9-b8")
    assert moves_from(state, "b7") == set()


def test_a_bigger_stack_on_a_target_does_not_own_it() -> None:
    state = make({"g7": (0, "fry")})
    state.apply("g7-f7:r")
    assert state.public_observation()["targets"]["g7"] is None


def test_two_targets_win_at_once() -> None:
    state = make({"b7": (0, "f"), "g7": (0, "fy"), "m13": (1, "r")})
    assert state.public_observation()["targets"]["b7"] == 0
    state.apply("g7-h8:y")
    assert state.is_terminal() and state.legal_moves() == [] and state.to_move() is None
    result = state.result()
    assert result is not None and result.ranks == (1, 2) and result.scores == (2, 0)
    assert "two target" in result.reason


# -- passing and the ply cap ------------------------------------------------------


def _strip(state: FlagStacksState, seat: int) -> None:
    """Take all of a seat's movable material away (a position play cannot reach:
    a green always has a move or a way back, so real games never pass)."""
    for sq in list(state.occ[seat]):
        if state.board[sq] != "f" * len(state.board[sq]):
            state.board[sq] = ""
            state.owner[sq] = -1
            state.occ[seat].discard(sq)
    state.reserve[seat] = [0, 0, 0]
    state._moves = None


def test_pass_only_when_nothing_else_and_two_passes_end() -> None:
    state = make({"e5": (0, "r"), "e9": (1, "r")})
    assert "pass" not in state.legal_moves()
    with pytest.raises(IllegalMoveError):
        state.apply("pass")
    _strip(state, 0)
    _strip(state, 1)
    assert state.legal_moves() == ["pass"]
    state.apply("pass")
    assert not state.is_terminal() and state.legal_moves() == ["pass"]
    state.apply("pass")
    assert state.is_terminal()
    result = state.result()
    assert result is not None and result.ranks == (1, 1) and "passed" in result.reason


def test_ply_cap_more_targets_wins() -> None:
    state = make({"l7": (1, "f"), "e5": (0, "r"), "e9": (1, "r")}, max_plies=11)
    state.apply("e5-f5")
    result = state.result()
    assert result is not None and result.ranks == (2, 1) and result.scores == (0, 1)


def test_ply_cap_fewer_in_reserve_wins_then_draw() -> None:
    full = {"a1": (0, "rrrrggggyyy"), "a13": (1, "rrrrggggyy")}  # White 1 in reserve, Black 2
    state = make(full, max_plies=11)
    state.apply("a1-a2:g")
    result = state.result()
    assert result is not None and result.ranks == (1, 2) and "fewer pieces" in result.reason
    even = make({"a1": (0, "rrrrggggyyy"), "a13": (1, "rrrrggggyyy")}, max_plies=11)
    even.apply("a1-a2:g")
    result = even.result()
    assert result is not None and result.ranks == (1, 1) and "draw" in result.reason
