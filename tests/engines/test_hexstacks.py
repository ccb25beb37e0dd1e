"""Rules tests for ``hexstacks``: geometry, turn points, stacks, endings, notation.

Positions are built with :func:`position`, which writes a state in the
engine's own JSON form and loads it, so each test states exactly what is on
the board.  Stacks are listed bottom to top; 0 and 1 are the seats' colours.
"""

from __future__ import annotations

import itertools
import json
import pathlib

import pytest

from engines import PASS, IllegalMoveError, get_engine
from engines.games.hexstacks import PIECES, geometry
from engines.playout import random_playout

ENGINE = get_engine("hexstacks")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def position(
    stacks: dict[str, list[int]],
    *,
    seat: int = 0,
    points: int = 2,
    exited: tuple[int, int] = (0, 0),
    supply: tuple[int, int] | None = None,
    ply: int = 20,
    **options: object,
):
    """A state with ``stacks`` on the board; supplies default to the pieces left over."""
    on_board = [sum(s.count(p) for s in stacks.values()) for p in (0, 1)]
    if supply is None:
        supply = tuple(PIECES - on_board[p] - exited[p] for p in (0, 1))
    data = {
        "engine": "hexstacks",
        "version": ENGINE.version,
        "options": ENGINE.validate_options(options),
        "seed": 0,
        "ply": ply,
        "seat": seat,
        "points": points,
        "stacks": stacks,
        "supply": list(supply),
        "exited": list(exited),
        "last_move": None,
    }
    return ENGINE.state_from_json(json.loads(json.dumps(data)))


# -- geometry -----------------------------------------------------------------


def _x(size: int, row: int, col: int) -> int:
    """Horizontal position of a hex in half-hex units, drawn independently of the engine."""
    length = geometry(size).row_lengths[row - 1]
    return (2 * size - 1 - length) + 2 * (col - 1)


@pytest.mark.parametrize(
    ("size", "rows", "count"), [(3, [3, 4, 5, 4, 3], 19), (4, [4, 5, 6, 7, 6, 5, 4], 37), (5, None, 61), (6, None, 91)]
)
def test_board_shape(size: int, rows: list[int] | None, count: int) -> None:
    geo = geometry(size)
    expected_rows = rows or [*range(size, 2 * size), *range(2 * size - 2, size - 1, -1)]
    assert geo.row_lengths == expected_rows
    assert geo.count == count == 3 * size * size - 3 * size + 1
    assert len(set(geo.names)) == count
    assert geo.names[0] == "r1c1" and geo.names[-1] == f"r{2 * size - 1}c{size}"


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_forward_neighbours_touch(size: int) -> None:
    """Forward hexes are exactly the touching hexes of the next row, drawn as a picture.

    Hexes in neighbouring rows touch when their centres are one half-hex apart.
    """
    geo = geometry(size)
    nrows = 2 * size - 1
    for h in range(geo.count):
        r, c = geo.row_of[h], geo.col_of[h]
        for seat, step in ((0, 1), (1, -1)):
            nxt = r + step
            expected = set()
            if 1 <= nxt <= nrows:
                for c2 in range(1, geo.row_lengths[nxt - 1] + 1):
                    if abs(_x(size, r, c) - _x(size, nxt, c2)) == 1:
                        expected.add(f"r{nxt}c{c2}")
            got = {geo.names[t] for t in geo.forward[seat][h]}
            assert got == expected, (seat, geo.names[h])
            # Every hex but the far row has a way forward.
            assert bool(got) == (not geo.is_far[seat][h])
    # Seat 1's forward relation is seat 0's turned around.
    pairs0 = {(h, t) for h in range(geo.count) for t in geo.forward[0][h]}
    pairs1 = {(t, h) for h in range(geo.count) for t in geo.forward[1][h]}
    assert pairs0 == pairs1


def test_named_neighbours_size_4() -> None:
    geo = geometry(4)

    def fwd(seat: int, name: str) -> list[str]:
        return sorted(geo.names[t] for t in geo.forward[seat][geo.index[name]])

    # Growing half: c and c+1; shrinking half: c-1 and c; across the middle row.
    assert fwd(0, "r1c1") == ["r2c1", "r2c2"]
    assert fwd(0, "r3c6") == ["r4c6", "r4c7"]
    assert fwd(0, "r4c1") == ["r5c1"]
    assert fwd(0, "r4c4") == ["r5c3", "r5c4"]
    assert fwd(0, "r4c7") == ["r5c6"]
    assert fwd(0, "r6c5") == ["r7c4"]
    assert fwd(0, "r7c1") == []
    assert fwd(1, "r7c1") == ["r6c1", "r6c2"]
    assert fwd(1, "r4c4") == ["r3c3", "r3c4"]
    assert fwd(1, "r4c7") == ["r3c6"]
    assert fwd(1, "r2c1") == ["r1c1"]
    assert fwd(1, "r1c4") == []


@pytest.mark.parametrize("size", [3, 4, 5, 6])
def test_entry_and_exit_edges(size: int) -> None:
    last = 2 * size - 1
    state = ENGINE.new_state({"size": size})
    assert state.legal_moves() == sorted(f"+r1c{c}" for c in range(1, size + 1))
    state.apply("+r1c1")
    assert state.legal_moves() == sorted(f"+r{last}c{c}" for c in range(1, size + 1))
    # Exits only from the far row: seat 0's piece on the last row, seat 1's on row 1.
    s = position({f"r{last}c1": [0], f"r{last - 1}c1": [0]}, size=size)
    assert [m for m in s.legal_moves() if "off" in m] == [f"r{last}c1-offx1"]
    s = position({"r1c2": [1], "r2c1": [1]}, seat=1, size=size)
    assert [m for m in s.legal_moves() if "off" in m] == ["r1c2-offx1"]


# -- turns and points ---------------------------------------------------------------


def test_first_turn_has_one_point() -> None:
    state = ENGINE.new_state()
    assert state.observation(0)["points"] == 1
    state.apply("+r1c2")
    # One point spent: seat 0's first turn is over.
    assert state.to_move() == 1 and state.observation(1)["points"] == 2


def test_two_one_point_actions_then_the_turn_passes() -> None:
    state = ENGINE.new_state()
    state.apply("+r1c2")
    state.apply("+r7c1")
    assert state.to_move() == 1, "seat 1 moves again with its second point"
    assert state.public_observation()["points"] == 1
    # Onto the occupied r7c1 would cost 2: not offered with one point left.
    assert "+r7c1" not in state.legal_moves() and "+r7c2" in state.legal_moves()
    state.apply("r7c1-r6c1x1")
    assert state.to_move() == 0 and state.public_observation()["points"] == 2


def test_one_two_point_action_is_a_whole_turn() -> None:
    state = position({"r1c1": [0], "r2c2": [1]})
    # Made up: seat 0 has a piece on r1c1; seat 1's piece sits on r2c2.
    state.apply("r1c1-r2c2x1")  # onto an occupied hex: 2 points
    assert state.to_move() == 1 and state.points == 2
    state = position({"r1c1": [0], "r2c2": [1]})
    state.apply("+r1c1")  # entering onto an occupied hex: 2 points
    assert state.to_move() == 1


def test_turn_ends_early_when_no_one_point_action_is_left() -> None:
    # Made up: seat 0 has one piece ready to exit (r7c1) and one on r1c1 whose
    # forward hexes r2c1 and r2c2 are both occupied; its supply is empty.
    stacks = {"r7c1": [0], "r1c1": [0], "r2c1": [1], "r2c2": [1]}
    state = position(stacks, exited=(10, 0))
    # A 1-point exit is allowed beside the 2-point steps.
    assert state.legal_moves() == ["r1c1-r2c1x1", "r1c1-r2c2x1", "r7c1-offx1"]
    state.apply("r7c1-offx1")
    # One point left, but both steps cost 2: the turn ends by itself.
    assert state.to_move() == 1 and state.points == 2


def test_must_act_while_an_action_fits() -> None:
    state = ENGINE.new_state()
    assert PASS not in state.legal_moves()
    with pytest.raises(IllegalMoveError):
        state.apply(PASS)
    state.apply("+r1c1")
    state.apply("+r7c1")
    assert PASS not in state.legal_moves()


# -- stacks -------------------------------------------------------------------


def test_standard_trapped_pieces() -> None:
    # Made up: r3c3 holds, bottom to top, seat 0, 0, seat 1, seat 0, 0.
    state = position({"r3c3": [0, 0, 1, 0, 0]}, supply=(0, 11), exited=(8, 0))
    assert state.legal_moves() == ["r3c3-r4c3x1", "r3c3-r4c3x2", "r3c3-r4c4x1", "r3c3-r4c4x2"]
    state.apply("r3c3-r4c4x2")
    assert state.public_observation()["stacks"] == {"r3c3": [0, 0, 1], "r4c4": [0, 0]}
    state.apply("r4c4-r5c4x1")
    # Seat 1 now tops r3c3 and may move its one piece, not seat 0's under it.
    assert state.to_move() == 1
    assert [m for m in state.legal_moves() if m.startswith("r3c3")] == ["r3c3-r2c2x1", "r3c3-r2c3x1"]
    state.apply("r3c3-r2c2x1")
    state.apply("+r7c1")
    # The two seat-0 pieces on r3c3 are free again.
    assert {"r3c3-r4c3x2", "r3c3-r4c4x2"} <= set(state.legal_moves())


def test_standard_cannot_move_opponent_pieces() -> None:
    state = position({"r2c2": [1], "r3c3": [0, 1]}, supply=(0, 10), exited=(11, 0))
    assert state.legal_moves() == [PASS]
    with pytest.raises(IllegalMoveError):
        state.apply("r3c3-r4c3x1")


def test_diabolical_moves_any_part_of_a_stack_it_tops() -> None:
    # Made up: seat 0 tops r4c4 (seat 1, seat 1, seat 0) in Diabolical Stacks.
    state = position({"r4c4": [1, 1, 0]}, supply=(0, 10), exited=(11, 0), diabolical=True)
    assert state.legal_moves() == [f"r4c4-r5c{c}x{n}" for c in (3, 4) for n in (1, 2, 3)]
    state.apply("r4c4-r5c3x3")
    # The whole stack moved, order kept; seat 1's pieces went backward for it.
    assert state.public_observation()["stacks"] == {"r5c3": [1, 1, 0]}


def test_diabolical_exit_carries_only_own_pieces_above_every_opponent_piece() -> None:
    # Made up: seat 0 tops r7c2 with two pieces above a seat 1 piece and one of its own.
    state = position({"r7c2": [0, 1, 0, 0]}, exited=(3, 0), diabolical=True)
    exits = [m for m in state.legal_moves() if "off" in m]
    assert exits == ["r7c2-offx1", "r7c2-offx2"]
    state.apply("r7c2-offx2")
    assert state.public_observation()["exited"] == [5, 0]
    assert state.public_observation()["stacks"] == {"r7c2": [0, 1]}


def test_diabolical_cannot_move_from_a_stack_topped_by_the_opponent() -> None:
    state = position({"r3c3": [0, 0, 1]}, supply=(0, 11), exited=(10, 0), diabolical=True)
    assert state.legal_moves() == [PASS]


# -- golden move counts -------------------------------------------------------------

# Each row: stacks, keyword arguments, expected counts (standard, diabolical).
GOLDEN = [
    # The start: seat 0 with one point enters on any of the 4 hexes of row 1.
    ({}, {"ply": 0, "points": 1}, 4, 4),
    # Seat 0 (2 points) with r1c1 and a seat-1 piece on r2c2: 4 entries (onto the
    # occupied r1c1 too) + r1c1 to r2c1 or r2c2 = 6.  Heights are 1, so the
    # variants agree.
    ({"r1c1": [0], "r2c2": [1]}, {}, 6, 6),
    # The same with one point left: entries to r1c2..r1c4 (3) + r1c1-r2c1 = 4.
    ({"r1c1": [0], "r2c2": [1]}, {"points": 1}, 4, 4),
    # Seat 0, empty supply: r3c3 = 0,0,1,0,0 to r4c3/r4c4; r7c2 = 0 exits; r5c1 =
    # 1,0 only to r6c1.  Standard: 2x2 + 1 + 1 = 6.  Diabolical: 5x2 + 1 + 2 = 13.
    ({"r3c3": [0, 0, 1, 0, 0], "r7c2": [0], "r5c1": [1, 0]}, {"exited": (6, 0)}, 6, 13),
    # Seat 1 with one point left: r1c3 = 1,1 exits x1/x2; r3c2 to r2c1 (r2c2 is
    # occupied, 2 points); r7c1 = 0,1 to r6c1/r6c2; entries to r7c2..r7c4.
    # Standard: 2 + 1 + 2 + 3 = 8.  Diabolical: r7c1 may carry 1 or 2: 2 + 1 + 4 + 3 = 10.
    (
        {"r1c3": [1, 1], "r2c2": [0], "r3c2": [1], "r7c1": [0, 1]},
        {"seat": 1, "points": 1, "exited": (0, 3)},
        8,
        10,
    ),
    # The same with 2 points: r3c2 reaches r2c2 as well and r7c1 is enterable.
    # Standard: 2 + 2 + 2 + 4 = 10.  Diabolical: 2 + 2 + 4 + 4 = 12.
    (
        {"r1c3": [1, 1], "r2c2": [0], "r3c2": [1], "r7c1": [0, 1]},
        {"seat": 1, "exited": (0, 3)},
        10,
        12,
    ),
    # Seat 0: r7c3 = 0,1,0,0 exits x1/x2; r4c4 = 1,1,0 to r5c3 (empty) or r5c4
    # (seat 1, 2 points); r6c2 = 1,0 to r7c1/r7c2; 4 entries.
    # Standard: 2 + 2 + 2 + 4 = 10.  Diabolical: 2 + 3x2 + 2x2 + 4 = 16.
    ({"r7c3": [0, 1, 0, 0], "r4c4": [1, 1, 0], "r5c4": [1], "r6c2": [1, 0]}, {}, 10, 16),
    # The same with one point: r5c4 is out of reach.  Standard: 2 + 1 + 2 + 4 = 9.
    # Diabolical: 2 + 3 + 4 + 4 = 13.
    ({"r7c3": [0, 1, 0, 0], "r4c4": [1, 1, 0], "r5c4": [1], "r6c2": [1, 0]}, {"points": 1}, 9, 13),
    # Seat 0, empty supply, both its pieces covered by seat 1: it must pass.
    ({"r2c1": [0, 1], "r5c5": [0, 0, 1]}, {"exited": (9, 0)}, 1, 1),
    # Size 3 (rows 3,4,5,4,3), seat 1: r3c1 (middle) only to r2c1; r3c5 only to
    # r2c4; r5c2 = 0,1 to r4c2/r4c3; entries r5c1, r5c3 (+r5c2 onto the stack).
    # Standard: 1 + 1 + 2 + 3 = 7.  Diabolical: 1 + 1 + 4 + 3 = 9.
    ({"r3c1": [1], "r3c5": [1], "r5c2": [0, 1]}, {"seat": 1, "size": 3}, 7, 9),
]


@pytest.mark.parametrize(("stacks", "kwargs", "standard", "diabolical"), GOLDEN)
def test_golden_move_counts(stacks: dict, kwargs: dict, standard: int, diabolical: int) -> None:
    for flag, expected in ((False, standard), (True, diabolical)):
        state = position(stacks, diabolical=flag, **kwargs)
        moves = state.legal_moves()
        assert len(moves) == expected, (flag, moves)
        assert moves == sorted(set(moves))
        for move in moves:
            state.clone().apply(move)


# -- how a game ends --------------------------------------------------------------------


def test_twelfth_exit_wins_at_once() -> None:
    state = position({"r7c1": [0], "r7c2": [0]}, exited=(10, 4))
    state.apply("r7c1-offx1")
    assert state.to_move() == 0, "still seat 0's turn after one point"
    state.apply("r7c2-offx1")
    assert state.is_terminal() and state.to_move() is None and state.legal_moves() == []
    result = state.result()
    assert result.ranks == (1, 2) and result.scores == (12, 4) and "exited all" in result.reason


def test_win_mid_turn_by_a_stack_exit() -> None:
    state = position({"r1c1": [1, 1, 1]}, seat=1, exited=(5, 9))
    state.apply("r1c1-offx3")
    assert state.is_terminal() and state.result().ranks == (2, 1)


def test_pass_then_the_other_seat_moves() -> None:
    state = position({"r2c1": [0, 1], "r5c5": [0, 0, 1]}, exited=(9, 0))
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert state.to_move() == 1 and state.points == 2 and state.last_move == PASS
    assert PASS not in state.legal_moves()


@pytest.mark.parametrize("diabolical", [False, True])
def test_never_two_passes_in_a_row(diabolical: bool) -> None:
    for seed in range(40):
        _, moves = random_playout(ENGINE, seed=seed, options={"diabolical": diabolical, "size": 3})
        assert all(not (a == PASS and b == PASS) for a, b in itertools.pairwise(moves))


def test_ply_cap_draw_and_win() -> None:
    state = ENGINE.new_state({"max_plies": 3})
    for move in ("+r1c1", "+r7c1", "+r7c2"):
        state.apply(move)
    assert state.is_terminal() and state.legal_moves() == []
    assert state.result().ranks == (1, 1) and state.result().scores == (0, 0)
    assert "ply cap" in state.result().reason
    state = position({"r7c1": [0]}, exited=(2, 1), ply=9, max_plies=10)
    state.apply("r7c1-offx1")
    assert state.is_terminal() and state.result().ranks == (1, 2) and state.result().scores == (3, 1)
