"""Loading and checking serialised ``hexstacks`` states (what ``to_json`` writes).

Kept apart from the engine module so that it stays about the rules; anything
that cannot be a reachable-looking position raises :class:`InvalidStateError`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engines.base import JSON, InvalidStateError, checked_int, is_int
from engines.games._hexstacks_geometry import PIECES

if TYPE_CHECKING:
    from engines.games.hexstacks import HexStacksEngine, HexStacksState


def load_state(engine: HexStacksEngine, data: Mapping[str, JSON], state_class: type[HexStacksState]) -> HexStacksState:
    """Build a state from ``data`` or raise InvalidStateError saying what is wrong."""
    engine._check_state_header(data)
    options = engine.validate_options(data["options"])
    state = state_class(engine, options, checked_int(data["seed"], "seed"))
    ply, seat, points = data["ply"], data["seat"], data["points"]
    if not (is_int(ply) and 0 <= ply <= options["max_plies"]):
        raise InvalidStateError(f"bad ply {ply!r}")
    if seat not in (0, 1) or not is_int(seat) or points not in (1, 2) or not is_int(points):
        raise InvalidStateError("bad seat or points")
    if ply == 0 and (seat, points) != (0, 1):
        raise InvalidStateError("the game starts with seat 0 to move with one point")
    stacks = data["stacks"]
    counts = _load_stacks(state, stacks)
    supply, exited = list(data["supply"]), list(data["exited"])
    if len(supply) != 2 or len(exited) != 2 or not all(is_int(v) and v >= 0 for v in supply + exited):
        raise InvalidStateError("supply and exited must be two counts each")
    for s in (0, 1):
        if supply[s] + exited[s] + counts[s] != PIECES:
            raise InvalidStateError(f"seat {s} does not have {PIECES} pieces in all")
    if exited[0] == PIECES and exited[1] == PIECES:
        raise InvalidStateError("both seats cannot have finished")
    last = data["last_move"]
    if last is not None and not isinstance(last, str):
        raise InvalidStateError("last_move must be a string or null")
    if ply == 0 and (stacks or last is not None or exited != [0, 0]):
        raise InvalidStateError("at ply 0 the board is empty and nothing has been played")
    state.supply, state.exited = supply, exited
    state.ply, state.seat, state.points, state.last_move = ply, seat, points, last
    # One point left mid-turn with nothing to spend it on cannot be reached:
    # the engine would have ended the turn.
    if ply > 0 and points == 1 and not state.is_terminal() and not state._actions(1):
        raise InvalidStateError("one point left but no 1-point action: the turn should have ended")
    return state


def _load_stacks(state: HexStacksState, stacks: JSON) -> list[int]:
    """Place every stack of ``stacks`` (hex name -> seats bottom to top); return the pieces on the board per seat."""
    if not isinstance(stacks, Mapping):
        raise InvalidStateError("stacks must be an object")
    geo = state.geo
    counts = [0, 0]
    for name, pieces in stacks.items():
        if name not in geo.index:
            raise InvalidStateError(f"no hex {name!r} on a size {geo.size} board")
        if not isinstance(pieces, list) or not pieces or any(p not in (0, 1) or not is_int(p) for p in pieces):
            raise InvalidStateError(f"bad stack on {name}: {pieces!r}")
        for p in pieces:
            counts[p] += 1
        state._set(geo.index[name], tuple(pieces))
    return counts
