"""Loading and checking serialised ``gamesup`` states (what ``to_json`` writes).

Kept apart from the engine module so that it stays about the rules; anything
that cannot be a position of the game raises :class:`InvalidStateError`.
Hand-written positions may leave out ``game``, ``version``, ``options``,
``seats`` and ``seed``: they default to this engine's current ones.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engines.base import JSON, PASS, InvalidStateError, checked_int
from engines.games._gamesup_tables import OVER, PARSE, SIZE, SQUARE_INDEX, SQUARES

if TYPE_CHECKING:
    from engines.games.gamesup import GamesUpEngine, GamesUpState


def load_state(engine: GamesUpEngine, data: Mapping[str, JSON], state_class: type[GamesUpState]) -> GamesUpState:
    """Build a state from ``data`` or raise InvalidStateError saying what is wrong."""
    engine._check_state_header(data, id_key="game", optional=("game", "version"))
    opts = engine.validate_options(data.get("options", {}), data.get("seats", 2))
    state = state_class(engine, opts, checked_int(data.get("seed", 0), "seed"))
    state.ply = checked_int(data["ply"], "ply", 0, opts["max_plies"])
    state._turn = checked_int(data["turn"], "turn", 0, 1)
    _load_board(state, data["board"])
    scores = state._recount_scores()
    if "scores" in data and data["scores"] != scores:
        raise InvalidStateError(f"scores {data['scores']!r} do not match the board ({scores})")
    state._scores = scores
    last = data.get("last_move")
    if last is not None and last != PASS and last not in PARSE:
        raise InvalidStateError(f"bad last_move {last!r}")
    state._last = last
    state._no_return = _no_return(data.get("no_return"))
    state._rotation = checked_int(data.get("rotation", 0), "rotation", 0)
    state._passes = checked_int(data.get("passes", 0), "passes", 0, 2)
    state._result = state._finish()
    stored = data.get("result")
    if stored is not None and (state._result is None or stored != state._result.to_json()):
        raise InvalidStateError("the stored result does not match the position")
    if stored is None and "result" in data and state._result is not None:
        raise InvalidStateError("the position is over but no result is stored")
    return state


def _load_board(state: GamesUpState, board: JSON) -> None:
    """Place every stack of ``board`` (a list of 36 squares of [owner, face] pieces) on ``state``."""
    if not isinstance(board, list) or len(board) != SIZE * SIZE:
        raise InvalidStateError("board must be a list of 36 squares (a1, b1, ..., f6)")
    kinds = [[0, 0, 0], [0, 0, 0]]  # pieces per colour per kind (1/6, 2/5, 3/4)
    for sq, pieces in enumerate(board):
        if not isinstance(pieces, list):
            raise InvalidStateError(f"square {SQUARES[sq]} must hold a list of pieces")
        stack = []
        for piece in pieces:
            if not isinstance(piece, list) or len(piece) != 2:
                raise InvalidStateError(f"a piece on {SQUARES[sq]} must be [owner, face], got {piece!r}")
            owner, face = piece
            if type(owner) is not int or owner not in (0, 1):
                raise InvalidStateError(f"bad piece owner on {SQUARES[sq]}: {owner!r}")
            if type(face) is not int or face not in (1, 2, 3, 4, 5, 6):
                raise InvalidStateError(f"bad piece face on {SQUARES[sq]}: {face!r}")
            kinds[owner][min(face, 7 - face) - 1] += 1
            stack.append(owner << 3 | face)
        state._place(sq, tuple(stack))
    if any(n > 4 for row in kinds for n in row):
        raise InvalidStateError("a colour has more than four pieces of one kind")


def _no_return(value: JSON) -> tuple[int, int] | None:
    """The stored no-return move, ``[from, to]`` or null, as square indices."""
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2:
        raise InvalidStateError("no_return must be [from, to] or null")
    frm, to = (SQUARE_INDEX[s] for s in value)
    if to not in OVER[frm]:
        raise InvalidStateError(f"no_return {value!r} is not a move")
    return frm, to
