"""Rule-by-rule tests for Pile Up, from constructed positions.

Positions are written with :func:`engines.games.pileup.position`: a board of
``square -> "pieces bottom to top"`` (``b7`` is Black's 7, ``w3`` White's 3)
plus both hands.  Black is seat 0, White seat 1.
"""

from __future__ import annotations

import json

import pytest

from engines import PASS, IllegalMoveError, InvalidStateError, get_engine
from engines.games.pileup import (
    REASON_PASSES,
    REASON_PLY_CAP,
    REASON_STACKED,
    PileUpState,
    position,
)

ENGINE = get_engine("pileup")
OFF = {"capture_needs_higher": False}


def moves_from(state: PileUpState, square: str) -> list[str]:
    """The legal moves that start on ``square``."""
    return [m for m in state.legal_moves() if m.startswith(square + "-")]


def placements(state: PileUpState) -> list[str]:
    return [m for m in state.legal_moves() if "@" in m]


# -- golden counts (checked by hand) ------------------------------------------

# G3: jumps over own stacks and enemy 3-stacks, blocked by higher tops.
G3_BOARD = {
    "d4": "b5",  # the only black single: the mover
    "d5": "w1 b2",  # own 2-stack, top 2 < 5: jumped
    "e5": "b3 w5 b6",  # top 6 >= 5: blocks north-east at once
    "e4": "w6 b4 w3",  # enemy 3-stack, top 3: jumped, never captured
    "g4": "w7 b8",  # top 8: blocks east
    "b4": "w8 b7 w4",  # enemy 3-stack, top 4: jumped
}
G3_HANDS = ([1], [9, 10])

# G4: forced captures, equal and higher targets, an enemy 3-stack.
G4_BOARD = {
    "d4": "b6",  # mover
    "d6": "w4",  # north: d5 empty, capture d6 (4 < 6)
    "f4": "w6",  # east: e4 empty, f4 equal -> capture only with the option off
    "f6": "w3",  # north-east: e5 empty, capture f6; g7 after it is a slide only
    "b2": "b1 w9",  # south-west: c3 empty, white-topped 2-stack, top 9 higher
    "c4": "w5 b7 w1",  # west: enemy 3-stack, top 1: jumped, never captured
}
G4_HANDS = ([3], [10])

# G5: one diagonal with several captures in a row.
G5_BOARD = {
    "a1": "b9",  # mover
    "b2": "w3",  # capture (3 < 9), then may keep going over it
    "d4": "w5",  # c3 empty; capture d4
    "e5": "w4 b8",  # own 2-stack, top 8 < 9: jumped, not a target
    "f6": "b2 w2",  # white-topped 2-stack, top 2: capture
    "g7": "w7 b3 w1",  # white-topped 3-stack: jumped, closed
    "a2": "w10",  # north: higher single, capture only with the option off
}
G5_HANDS = ([1], [])


def test_golden_g1_start_position() -> None:
    # Empty board, Black holds 1..10: 10 numbers x 64 squares = 640 placements.
    state = ENGINE.new_state()
    legal = state.legal_moves()
    assert len(legal) == 640
    # String order puts "10@" before "1@": '0' sorts before '@'.
    assert legal[0] == "10@a1" and legal[64] == "1@a1" and legal[-1] == "9@h8"


def test_golden_g2_lone_slider() -> None:
    # Black 5 on d4, hand [1].  A queen's moves from d4 on an empty board:
    # north d5-d8 = 4, south d3-d1 = 3, east e4-h4 = 4, west c4-a4 = 3,
    # NE e5-h8 = 4, SW c3-a1 = 3, NW c5-a7 = 3, SE e3-g1 = 3: 27 slides.
    # Placements: piece 1 on the 63 empty squares.  27 + 63 = 90.
    state = position({"d4": "b5"}, ([1], [9, 10]))
    assert len(moves_from(state, "d4")) == 27
    assert len(placements(state)) == 63
    assert len(state.legal_moves()) == 90


def test_golden_g3_jumps() -> None:
    # Mover b5 on d4.  Per direction:
    #   N : d5 own stack top 2 jumped -> d6 only (d7, d8 are not just after)  1
    #   NE: e5 top 6 blocks                                                   0
    #   E : e4 enemy 3-stack top 3 jumped -> f4; g4 top 8 blocks              1
    #   SE: e3 f2 g1 empty                                                    3
    #   S : d3 d2 d1 empty                                                    3
    #   SW: c3 b2 a1 empty                                                    3
    #   W : c4 empty (no jump yet), b4 3-stack top 4 jumped -> a4            2
    #   NW: c5 b6 a7 empty                                                    3
    # 16 slides; 6 occupied squares leave 58 empties for piece 1: 74 moves.
    state = position(G3_BOARD, G3_HANDS)
    targets = ["d6", "f4", "e3", "f2", "g1", "d3", "d2", "d1", "c3", "b2", "a1", "c4", "a4", "c5", "b6", "a7"]
    assert moves_from(state, "d4") == sorted(f"d4-{t}" for t in targets)
    assert len(placements(state)) == 58
    assert len(state.legal_moves()) == 74


def test_golden_g4_forced_captures() -> None:
    # Captures by b6 on d4: d6 (w4) and f6 (w3).  f4 (w6, equal) and b2
    # (top w9) are not lower; c4 is a 3-stack.  Captures are forced, so no
    # slides (c4 jump to b4, e5, g7, ...) and no placement of piece 3: 2 moves.
    state = position(G4_BOARD, G4_HANDS)
    assert state.legal_moves() == ["d4-d6", "d4-f6"]
    # Option off: equal f4 and higher b2 join them: 4 moves.
    state = position(G4_BOARD, G4_HANDS, options=OFF)
    assert state.legal_moves() == ["d4-b2", "d4-d6", "d4-f4", "d4-f6"]


def test_golden_g5_capture_chain() -> None:
    # North-east from a1 (b9): b2 w3 capture; c3 empty; d4 w5 capture; e5 own
    # top 8 jumped; f6 white-topped 2-stack top 2 capture; g7 3-stack jumped;
    # h8 would be a slide.  North: a2 w10 higher, blocked.  East (b1...h1)
    # only slides.  So 3 captures, and 4 with the option off (a2 too).
    state = position(G5_BOARD, G5_HANDS)
    assert state.legal_moves() == ["a1-b2", "a1-d4", "a1-f6"]
    state = position(G5_BOARD, G5_HANDS, options=OFF)
    assert state.legal_moves() == ["a1-a2", "a1-b2", "a1-d4", "a1-f6"]


def test_golden_g6_pass_only() -> None:
    # Black's hand is empty; b1 on a1 and b2 on h8 are walled in by stacks
    # whose tops are not lower, and nothing of theirs can capture: 1 move, pass.
    state = position(PASS_BOARD, ([], [5, 10]))
    assert state.legal_moves() == [PASS]


# Black's two singles cannot move: b1 on a1 and b2 on h8 face only tops that
# are equal or higher (or own), and neither can capture anything.
PASS_BOARD = {
    "a1": "b1",
    "a2": "w3 b4",
    "b1": "b5 w6",
    "b2": "w7 b8 w9",
    "h8": "b2",
    "g8": "w1 b3",
    "g7": "b6 w2",
    "h7": "b7 w4 b9",
}


# -- individual rules -----------------------------------------------------------


def test_place_puts_piece_and_passes_turn() -> None:
    state = ENGINE.new_state()
    state.apply("7@d4")
    obs = state.public_observation()
    assert obs["board"] == {"d4": [{"colour": "black", "number": 7}]}
    assert 7 not in obs["hands"][0] and len(obs["hands"][0]) == 9
    assert obs["to_move"] == 1 and obs["last_move"] == "7@d4" and obs["ply"] == 1
    assert "7@e5" in state.legal_moves()  # White still has its own 7
    assert not any(m.endswith("@d4") for m in state.legal_moves())


def test_place_errors() -> None:
    state = position({"d4": "b5"}, ([1], [9, 10]))
    for bad in ["2@e4", "1@d4", "11@e4", "0@e4", "1@i9"]:
        with pytest.raises(IllegalMoveError):
            state.apply(bad)


def test_slide_over_empty_squares_moves_piece() -> None:
    state = position({"d4": "b5"}, ([1], [9, 10]))
    state.apply("d4-h8")
    assert state.public_observation()["board"] == {"h8": [{"colour": "black", "number": 5}]}


def test_jump_lands_only_just_after_last_jumped_piece() -> None:
    # Two jumps on one line, with gaps between them.
    board = {"a4": "b9", "b4": "w1 b2", "e4": "b3 w4 b1", "h4": "w5 b6"}
    state = position(board, ([1], [9, 10]))
    east = [m for m in moves_from(state, "a4") if m[4] == "4"]
    # c4 is just after b4; d4 is not; f4 is just after e4; g4 is not; h4 is
    # own (top 6 < 9, so jumped, but the ray ends there).
    assert east == ["a4-c4", "a4-f4"]


def test_cannot_jump_equal_or_higher() -> None:
    board = {"d4": "b5", "d5": "w1 b5", "c4": "w2 b7", "e4": "w1 b2 w5"}
    state = position(board, ([1], [9, 10]))
    targets = {m[3:] for m in moves_from(state, "d4")}
    assert not targets & {"d5", "d6", "d7", "d8", "c4", "b4", "a4", "e4", "f4", "g4", "h4"}


def test_capture_lower_single_makes_stack() -> None:
    state = position({"d4": "b6", "d6": "w4", "a1": "w9"}, ([3], [10]))
    state.apply("d4-d6")
    obs = state.public_observation()
    assert "d4" not in obs["board"]
    assert obs["board"]["d6"] == [{"colour": "white", "number": 4}, {"colour": "black", "number": 6}]
    assert obs["scores"] == [10, 0]
    # Black's 6 and White's 4 both left the pool of pieces outside stacks.
    assert obs["outside_stacks"] == [1, 2]


def test_capture_enemy_topped_two_stack_takes_ownership() -> None:
    board = {"d4": "b6", "d6": "b1 w4", "a1": "w9", "h8": "w8"}
    state = position(board, ([3], [10]))
    assert state.legal_moves() == ["d4-d6"]
    state.apply("d4-d6")
    obs = state.public_observation()
    assert [p["number"] for p in obs["board"]["d6"]] == [1, 4, 6]
    assert obs["scores"] == [11, 0]
    # The 2-stack's pieces were already in a stack: White's count is unchanged.
    assert obs["outside_stacks"] == [1, 3]


def test_never_onto_own_colour_or_closed_stack() -> None:
    board = {"d4": "b6", "d5": "b2", "c4": "w1 b2 w3"}
    state = position(board, ([], [9, 10]))
    targets = {m[3:] for m in moves_from(state, "d4")}
    assert "d5" not in targets and "c4" not in targets
    assert "d6" in targets and "b4" in targets  # jumped, landed just after
    for bad in ["d4-d5", "d4-c4"]:
        with pytest.raises(IllegalMoveError):
            state.apply(bad)


def test_closed_stack_not_captured_even_with_option_off() -> None:
    board = {"d4": "b6", "d5": "w1 b2 w3"}
    state = position(board, ([1], [9, 10]), options=OFF)
    assert "d4-d5" not in state.legal_moves()
    assert "d4-d6" in state.legal_moves()


def test_option_off_allows_equal_and_higher_capture_but_not_jumping_them() -> None:
    board = {"d4": "b5", "d6": "w7", "f4": "b1 w5"}
    state = position(board, ([1], [9, 10]), options=OFF)
    assert "d4-d6" in state.legal_moves() and "d4-f4" in state.legal_moves()
    assert "d4-d7" not in state.legal_moves() and "d4-g4" not in state.legal_moves()
    state.apply("d4-d6")
    assert state.public_observation()["scores"] == [12, 6]  # White owns f4


def test_stacks_never_move() -> None:
    state = position(G3_BOARD, G3_HANDS)
    origins = {m.split("-")[0] for m in state.legal_moves() if "-" in m}
    assert origins == {"d4"}
    with pytest.raises(IllegalMoveError):
        state.apply("d5-d7")  # a black-topped stack


def test_forced_capture_forbids_placing_and_sliding() -> None:
    state = position(G4_BOARD, G4_HANDS)
    snapshot = state.to_json()
    for bad in ["3@h1", "d4-d5", "d4-e5", "d4-b4"]:
        with pytest.raises(IllegalMoveError):
            state.apply(bad)
    assert state.to_json() == snapshot


def test_end_when_a_player_has_at_most_one_piece_outside_stacks() -> None:
    # Black: hand [1] and the mover; capturing leaves Black one loose piece.
    state = position({"d4": "b6", "d6": "w4", "a1": "w9", "a8": "w8"}, ([1], [10]))
    state.apply("d4-d6")
    assert state.is_terminal() and state.to_move() is None and state.legal_moves() == []
    result = state.result()
    assert result.reason == REASON_STACKED
    assert result.scores == (10, 0) and result.ranks == (1, 2)


def test_end_when_all_pieces_in_stacks() -> None:
    # A capture lowers each count by at most one, so play reaches "one left"
    # first; a position with nothing outside stacks is over all the same.
    state = position({"a1": "w3 b9", "h8": "b4 w6"}, ([1, 2], []))
    assert state.is_terminal() and state.legal_moves() == []
    assert state.public_observation()["outside_stacks"] == [2, 0]
    assert state.result().reason == REASON_STACKED
    assert state.result().scores == (12, 10) and state.result().ranks == (1, 2)


def test_two_passes_end_the_game() -> None:
    # White's 5 on a8 and 8 on h1 are walled in the same way (the position
    # repeats some numbers: constructed positions need not be complete sets).
    walls = {"a8": "w5", "a7": "b6 w9", "b8": "w6 b7 w8", "b7": "b1 w7"}
    walls |= {"h1": "w8", "h2": "b2 w10", "g1": "w2 b10", "g2": "b3 w8 b9"}
    state = position({**PASS_BOARD, **walls}, ([], []))
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert not state.is_terminal() and state.to_move() == 1
    assert state.legal_moves() == [PASS]
    state.apply(PASS)
    assert state.is_terminal() and state.result().reason == REASON_PASSES


def test_pass_only_when_nothing_else() -> None:
    state = ENGINE.new_state()
    with pytest.raises(IllegalMoveError):
        state.apply(PASS)


def test_a_move_resets_the_pass_count() -> None:
    state = position({**PASS_BOARD, "e4": "w5", "e1": "w6"}, ([], []))
    state.apply(PASS)
    assert state.public_observation()["passes_in_a_row"] == 1
    state.apply("e4-e3")
    assert state.public_observation()["passes_in_a_row"] == 0


def test_ply_cap() -> None:
    state = ENGINE.new_state({"max_plies": 3})
    for move in ["1@a1", "1@h8", "2@a3"]:
        assert not state.is_terminal()
        state.apply(move)
    assert state.is_terminal() and state.ply == 3
    assert state.result().reason == REASON_PLY_CAP
    # No stacks at all: 0-0, a draw.
    assert state.result().ranks == (1, 1) and state.result().scores == (0, 0)


def test_scoring_counts_whole_stacks_for_top_owner_only() -> None:
    board = {
        "a1": "w10 b1",  # Black owns 11
        "a2": "b2 w3 b4",  # Black owns 9
        "c3": "b10 w9",  # White owns 19
        "h8": "w8",  # a single: no score
        "h7": "b7",
    }
    state = position(board, ([5, 6], [1, 2]), options={"max_plies": 1})
    assert state.scores() == [20, 19]
    assert "5@e4" in state.legal_moves()  # no capture on offer
    state.apply("5@e4")
    assert state.result().scores == (20, 19) and state.result().ranks == (1, 2)


def test_draw_on_equal_scores() -> None:
    state = position({"a1": "w4 b6", "h8": "b3 w7"}, ([1, 2], [1, 2]), options={"max_plies": 1})
    state.apply("1@d4")
    assert state.result().ranks == (1, 1) and state.result().scores == (10, 10)


def test_illegal_and_malformed_moves_leave_state_unchanged() -> None:
    state = position(G3_BOARD, G3_HANDS)
    snapshot = state.to_json()
    for bad in [
        "",
        "pass",
        "d4-d7",
        "d4-d5",
        "d4-e5",
        "d4-d4",
        "D4-D6",
        "d4-d6 ",
        "1@d4",
        "2@a1",
        "x",
        None,
        7,
        ["d4-d6"],
    ]:
        with pytest.raises(IllegalMoveError):
            state.apply(bad)  # type: ignore[arg-type]
    assert state.to_json() == snapshot
    state.apply("d4-d6")
    assert state.to_json() != snapshot


def test_moves_after_the_end_are_refused() -> None:
    state = ENGINE.new_state({"max_plies": 1})
    state.apply("1@a1")
    with pytest.raises(IllegalMoveError):
        state.apply("1@a2")


def test_json_round_trip_and_clone_independence() -> None:
    state = ENGINE.new_state(seed=4)
    for move in ["10@a1", "3@h3", "2@c5", "1@g8"]:
        state.apply(move)
    data = json.loads(json.dumps(state.to_json()))
    loaded = ENGINE.state_from_json(data)
    assert loaded.to_json() == state.to_json()
    assert loaded.legal_moves() == state.legal_moves()
    clone = state.clone()
    clone.apply(clone.legal_moves()[0])
    assert clone.to_json() != state.to_json() and loaded.to_json() == state.to_json()


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.update(engine="sequence"),
        lambda d: d.update(version="0"),
        lambda d: d.update(turn=2),
        lambda d: d.update(ply=-1),
        lambda d: d.update(hands=[[1, 2], []]),  # pieces missing
        lambda d: d["hands"][0].append(3),  # a piece twice
        lambda d: d["board"].update(z9=[[0, 1]]),
        lambda d: d["board"].update(d4=[[0, 11]]),
        lambda d: d["board"].update(d4=[]),
        lambda d: d["board"].update(d4=[[0, 1], [0, 2]]),  # same colour on same colour
        lambda d: d.update(board=[]),
        lambda d: d.update(options={"max_plies": "x"}),
        lambda d: d.update(last_move=5),
    ],
)
def test_bad_state_data_raises(mutate) -> None:
    data = ENGINE.new_state().to_json()
    data = json.loads(json.dumps(data))
    mutate(data)
    with pytest.raises(InvalidStateError):
        ENGINE.state_from_json(data)


def test_observation_is_public_and_complete() -> None:
    state = position(G4_BOARD, G4_HANDS)
    obs = state.observation(1)
    assert obs == state.observation(0) == state.public_observation()
    assert set(obs) == {
        "board",
        "colours",
        "hands",
        "outside_stacks",
        "scores",
        "to_move",
        "last_move",
        "passes_in_a_row",
        "ply",
        "options",
    }
    assert obs["board"]["b2"] == [{"colour": "black", "number": 1}, {"colour": "white", "number": 9}]
    assert obs["options"] == {"max_plies": 200, "capture_needs_higher": True}


def test_rating_pool_separates_the_capture_rule() -> None:
    assert ENGINE.rating_pool({}) == "pileup:capture_needs_higher=true"
    assert ENGINE.rating_pool(OFF) == "pileup:capture_needs_higher=false"
    assert ENGINE.rating_pool({"max_plies": 50}) == ENGINE.rating_pool({})
    assert {json.dumps(o, sort_keys=True) for _, o in ENGINE.configs()} >= {"{}", json.dumps(OFF)}
