"""Loading and checking serialised ``pileup`` states (what ``to_json`` writes).

Kept apart from the engine module so that it stays about the rules; every
piece must be accounted for, else :class:`InvalidStateError`.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import TYPE_CHECKING

from engines.base import JSON, InvalidStateError, checked_int
from engines.games._pileup_tables import NUMBERS, SQUARE_INDEX, hand_order

if TYPE_CHECKING:
    from engines.games.pileup import PileUpEngine, PileUpState


def load_state(engine: PileUpEngine, data: Mapping[str, JSON], state_class: type[PileUpState]) -> PileUpState:
    """Build a state from ``data`` or raise InvalidStateError saying what is wrong."""
    engine._check_state_header(data)
    opts = engine.validate_options(data.get("options"), data.get("seats"))
    state = state_class(engine, opts, checked_int(data.get("seed"), "seed"))
    state.ply = checked_int(data.get("ply"), "ply", 0, opts["max_plies"])
    state.turn = checked_int(data.get("turn"), "turn", 0, 1)
    state.passes = checked_int(data.get("passes"), "passes", 0, 2)
    last = data.get("last_move")
    if last is not None and not isinstance(last, str):
        raise InvalidStateError("last_move must be a string or null")
    state.last_move = last
    seen: list[list[int]] = [[], []]
    _load_hands(state, data.get("hands"), seen)
    _load_board(state, data.get("board"), seen)
    for seat in (0, 1):
        if sorted(seen[seat]) != list(NUMBERS):
            raise InvalidStateError(f"seat {seat} must have each of pieces 1-10 exactly once")
    state._over = state._end_reason()
    return state


def _load_hands(state: PileUpState, hands: JSON, seen: list[list[int]]) -> None:
    """Set both hands from ``hands``, adding their numbers to ``seen``."""
    if not isinstance(hands, list) or len(hands) != 2:
        raise InvalidStateError("hands must be a list of two lists")
    for seat, hand in enumerate(hands):
        if not isinstance(hand, list):
            raise InvalidStateError("each hand must be a list")
        nums = [checked_int(n, "hand number", 1, 10) for n in hand]
        seen[seat] += nums
        state.hands[seat] = hand_order(nums)


def _load_board(state: PileUpState, board: JSON, seen: list[list[int]]) -> None:
    """Place every stack of ``board`` and count the loose pieces (hands are already set)."""
    if not isinstance(board, Mapping):
        raise InvalidStateError("board must be an object")
    loose = [len(state.hands[0]), len(state.hands[1])]
    for name, pieces in board.items():
        if name not in SQUARE_INDEX:
            raise InvalidStateError(f"no square {name!r}")
        if not isinstance(pieces, list) or not 1 <= len(pieces) <= 3:
            raise InvalidStateError(f"{name}: a square holds 1 to 3 pieces")
        codes = []
        for piece in pieces:
            if not isinstance(piece, list) or len(piece) != 2:
                raise InvalidStateError(f"{name}: a piece is [seat, number]")
            seat = checked_int(piece[0], "piece seat", 0, 1)
            number = checked_int(piece[1], "piece number", 1, 10)
            seen[seat].append(number)
            codes.append(seat * 16 + number)
        # A capture always puts a piece on an enemy top, so colours alternate.
        if any(x >> 4 == y >> 4 for x, y in itertools.pairwise(codes)):
            raise InvalidStateError(f"{name}: adjacent pieces of a stack share a colour")
        if len(codes) == 1:
            loose[codes[0] >> 4] += 1
        state.cells[SQUARE_INDEX[name]] = tuple(codes)
    state.loose = loose
