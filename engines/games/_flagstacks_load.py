"""Loading and checking serialised ``flagstacks`` states (what ``to_json`` writes).

Kept apart from the engine module so the hot path stays short; anything that
cannot be a reachable-looking position raises :class:`InvalidStateError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engines.base import JSON, InvalidOptionsError, InvalidStateError, is_int
from engines.games._flagstacks_tables import (
    FLAG,
    FLAGS,
    HOME,
    KIND_INDEX,
    MOVERS,
    PER_KIND,
    SQUARE_INDEX,
    TARGET_SET,
)

if TYPE_CHECKING:
    from engines.games.flagstacks import FlagStacksEngine, FlagStacksState

_KINDS = frozenset(MOVERS) | {FLAG}
_RESERVES = "reserves must be a list of two [red, green, yellow] counts"


def load_state(
    engine: FlagStacksEngine, data: Mapping[str, JSON], state_class: type[FlagStacksState]
) -> FlagStacksState:
    """Build a state from ``data`` or raise InvalidStateError saying what is wrong."""
    engine._check_state_header(data, id_key="game")
    if data.get("seats") != 2:
        raise InvalidStateError("flagstacks is played by 2 seats")
    seed = data.get("seed")
    if not is_int(seed):
        raise InvalidStateError("seed must be an integer")
    raw_options = data.get("options")
    if not isinstance(raw_options, Mapping):
        raise InvalidStateError("options must be an object")
    try:
        options = engine.validate_options(raw_options, 2)
    except InvalidOptionsError as exc:
        raise InvalidStateError(str(exc)) from None
    ply = data.get("ply")
    if not (is_int(ply) and 0 <= ply <= options["max_plies"]):
        raise InvalidStateError(f"ply must be an integer from 0 to max_plies, got {ply!r}")
    passes = data.get("passes")
    if not (is_int(passes) and 0 <= passes <= 2 and passes <= ply):
        raise InvalidStateError(f"passes must be 0, 1 or 2 (and at most ply), got {passes!r}")
    last_move = data.get("last_move")
    if not (last_move is None or isinstance(last_move, str)) or (last_move is None) != (ply == 0):
        raise InvalidStateError("last_move must be a string after the first ply and null before it")

    state = state_class(engine, options, seed)
    state.ply = ply
    state.passes = passes
    state.last_move = last_move
    counts, flags = _load_squares(state, data.get("squares"))
    _load_reserves(state, data.get("reserves"), counts, flags)
    for seat in (0, 1):
        if state.targets_owned(seat) >= 2:
            state.winner = seat
    return state


def _load_squares(state: FlagStacksState, squares: JSON) -> tuple[list[list[int]], list[int]]:
    """Place every stack of ``squares``; return the pieces of each kind and the flags on the board per seat."""
    counts = [[0, 0, 0], [0, 0, 0]]
    flags = [0, 0]
    if not isinstance(squares, Mapping):
        raise InvalidStateError("squares must be an object")
    for name, entry in squares.items():
        sq = SQUARE_INDEX.get(name) if isinstance(name, str) else None
        if sq is None:
            raise InvalidStateError(f"no square {name!r}")
        if not (isinstance(entry, list) and len(entry) == 2):
            raise InvalidStateError(f"{name}: expected [owner, pieces]")
        seat, stack = entry
        if seat not in (0, 1) or not is_int(seat):
            raise InvalidStateError(f"{name}: owner must be 0 or 1")
        if not (isinstance(stack, str) and stack and set(stack) <= _KINDS):
            raise InvalidStateError(f"{name}: pieces must be a non-empty string of r, g, y, f")
        nf = stack.count(FLAG)
        # Only a player's own home square can hold both of its flags.
        if nf > (FLAGS if sq == HOME[seat] else 1):
            raise InvalidStateError(f"{name}: too many flags in one stack")
        flags[seat] += nf
        for c in stack:
            if c != FLAG:
                counts[seat][KIND_INDEX[c]] += 1
        state.board[sq] = stack
        if stack == FLAG and sq in TARGET_SET:
            state.owner[sq] = 2 + seat  # an owned target
        else:
            state.owner[sq] = seat
            state.occ[seat].add(sq)
    return counts, flags


def _load_reserves(state: FlagStacksState, reserves: JSON, counts: list[list[int]], flags: list[int]) -> None:
    """Set both reserves, checking that with the board they make up each seat's full set."""
    if not (isinstance(reserves, list) and len(reserves) == 2):
        raise InvalidStateError(_RESERVES)
    for seat, res in enumerate(reserves):
        if not (isinstance(res, list) and len(res) == 3 and all(is_int(n) and n >= 0 for n in res)):
            raise InvalidStateError(_RESERVES)
        state.reserve[seat] = list(res)
        for i in range(3):
            if counts[seat][i] + res[i] != PER_KIND:
                raise InvalidStateError(f"seat {seat} must have {PER_KIND} pieces of kind {MOVERS[i]!r} in all")
        if flags[seat] != FLAGS:
            raise InvalidStateError(f"seat {seat} must have {FLAGS} flags on the board")
