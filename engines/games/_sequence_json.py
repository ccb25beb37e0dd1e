"""Loading and saving ``sequence`` states as JSON (kept apart to keep the engine module short)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING

from engines.base import JSON, InvalidOptionsError, InvalidStateError, Result
from engines.games._sequence_board import CORNER, CORNERS, EMPTY, FULL_DECK, SQUARE_NAMES

if TYPE_CHECKING:
    from engines.games.sequence import SequenceEngine, SequenceState

_DECK_COUNT = Counter(FULL_DECK)


def cell_json(value: int) -> int | str | None:
    """A board cell as JSON: None empty, "corner", or the team index."""
    if value == EMPTY:
        return None
    if value == CORNER:
        return "corner"
    return value.bit_length() - 1


def dump_state(state: SequenceState) -> dict[str, JSON]:
    """The full state as JSON: secrets and the random stream included (server side only)."""
    version, internal, gauss = state.rng_state
    return {
        **state._header(),
        "to_move": state.turn,
        "exchanged": state.exchanged,
        "last_move": state.last_move,
        "board": [cell_json(v) for v in state.board],
        "sequences": [{"team": t, "squares": list(w)} for t, w in state.sequences],
        "hands": [list(h) for h in state.hands],
        "discards": [list(d) for d in state.discards],
        "pile": list(state.pile),
        "rng": [version, list(internal), gauss],
        "result": state._result.to_json() if state._result is not None else None,
    }


def load_state(engine: SequenceEngine, data: Mapping[str, JSON], state_class: type[SequenceState]) -> SequenceState:
    """Rebuild a state from :meth:`SequenceState.to_json` output, checking it hangs together."""
    rules = engine._check_state_header(data, optional=("version",))
    seats = int(data["seats"])
    try:
        options = engine.validate_options(data["options"], seats)
    except InvalidOptionsError as exc:
        raise InvalidStateError(str(exc)) from exc
    state = state_class(engine, options, seats, int(data["seed"]), rules=rules)
    state.ply = int(data["ply"])
    state.turn = None if data["to_move"] is None else int(data["to_move"])
    state.exchanged = bool(data["exchanged"])
    state.last_move = data["last_move"]
    if state.last_move is not None and not isinstance(state.last_move, str):
        raise InvalidStateError("last_move must be a string or null")
    _load_board(state, data["board"], data["sequences"])
    _load_cards(state, data)
    version, internal, gauss = data["rng"]
    state.rng_state = (int(version), tuple(int(x) for x in internal), gauss)
    random.Random().setstate(state.rng_state)  # raises ValueError when malformed
    if state.turn is not None and not 0 <= state.turn < seats:
        raise InvalidStateError(f"bad seat to move {state.turn!r}")
    result = data["result"]
    if (result is None) != (state.turn is not None):
        raise InvalidStateError("a finished game has a result and nobody to move")
    state._result = Result.from_json(result) if result is not None else None
    return state


def _load_board(state: SequenceState, cells: JSON, sequences: JSON) -> None:
    """Set the chips of ``cells`` (100 squares) and the marked ``sequences`` they hold."""
    if len(cells) != 100:
        raise InvalidStateError("the board must have 100 squares")
    for sq, cell in enumerate(cells):
        if sq in CORNERS:
            if cell != "corner":
                raise InvalidStateError(f"{SQUARE_NAMES[sq]} is a corner")
            continue
        if cell is None:
            state.board[sq] = EMPTY
        elif isinstance(cell, int) and not isinstance(cell, bool) and 0 <= cell < state.n_teams:
            state.board[sq] = 1 << cell
        else:
            raise InvalidStateError(f"bad cell {cell!r} on {SQUARE_NAMES[sq]}")
    for entry in sequences:
        team, window = int(entry["team"]), tuple(int(s) for s in entry["squares"])
        if not 0 <= team < state.n_teams or len(window) != 5:
            raise InvalidStateError(f"bad sequence {entry!r}")
        if any(not state.board[s] & (1 << team) for s in window):
            raise InvalidStateError(f"sequence {entry!r} is not held by team {team}")
        state.sequences.append((team, window))
        for s in window:
            state.locked[s] += 1


def _load_cards(state: SequenceState, data: Mapping[str, JSON]) -> None:
    """Set hands, discards and the draw pile, checking that together they make up two decks."""
    state.hands = [[str(c) for c in h] for h in data["hands"]]
    state.discards = [[str(c) for c in d] for d in data["discards"]]
    state.pile = [str(c) for c in data["pile"]]
    if len(state.hands) != state.seats or len(state.discards) != state.seats:
        raise InvalidStateError("one hand and one discard pile per seat")
    cards = Counter(state.pile)
    for pile in state.hands + state.discards:
        cards.update(pile)
    # Played cards go to the discards, so all 104 cards are always somewhere.
    if cards != _DECK_COUNT:
        raise InvalidStateError("hands, discards and pile do not make up two decks")
