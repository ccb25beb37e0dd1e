"""A game state rebuilt from what a bot is shown, for bots that look ahead with the engines.

In a game of perfect information a seat's observation holds the whole
position, so a bot can rebuild the engine's state from one turn's message and
search with :meth:`State.legal_moves`, :meth:`State.apply` and
:meth:`State.clone`::

    from engines.observe import state_from_observation
    state = state_from_observation("gamesup", message["observation"])
    for move in state.legal_moves():
        child = state.clone()
        child.apply(move)

Each game's observation is turned into the engine's own saved form and loaded
with :meth:`Engine.state_from_json`, so every check of a loaded state applies.
Games with hidden information (hands of cards) have no such helper.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from engines.base import InvalidStateError, State
from engines.registry import get_engine

JSON = Any


def _gamesup(observation: Mapping[str, JSON]) -> dict[str, JSON]:
    no_return = observation.get("no_return")
    return {
        "game": "gamesup",
        "options": observation["options"],
        "seats": 2,
        "ply": observation["ply"],
        # The seat to move; a finished game keeps its last mover's turn.
        "turn": observation["to_move"] if observation["to_move"] is not None else 0,
        "board": [[[p["owner"], p["face"]] for p in square["pieces"]] for square in observation["board"]],
        "scores": observation["scores"],
        "last_move": observation.get("last_move"),
        # The observation names the forbidden move; the saved form lists its two squares.
        "no_return": no_return.split("-", 1) if no_return else None,
        "rotation": observation.get("rotation", 0),
        "passes": observation.get("passes", 0),
    }


def _pileup(observation: Mapping[str, JSON]) -> dict[str, JSON]:
    colours = list(observation["colours"])
    board = {
        square: [[colours.index(p["colour"]), p["number"]] for p in pieces]
        for square, pieces in observation["board"].items()
    }
    return {
        "engine": "pileup",
        "seats": 2,
        "options": observation["options"],
        "seed": 0,
        "ply": observation["ply"],
        "turn": observation["to_move"] if observation["to_move"] is not None else 0,
        "passes": observation.get("passes_in_a_row", 0),
        "last_move": observation.get("last_move"),
        "board": board,
        "hands": observation["hands"],
    }


_SAVED_FORMS: dict[str, Callable[[Mapping[str, JSON]], dict[str, JSON]]] = {"gamesup": _gamesup, "pileup": _pileup}

#: The games whose observations hold the whole position.
PERFECT_INFORMATION = tuple(sorted(_SAVED_FORMS))


def state_from_observation(game: str, observation: Mapping[str, JSON]) -> State:
    """The engine state a seat sees in a turn of ``game``; InvalidStateError when it cannot be rebuilt."""
    if game not in _SAVED_FORMS:
        raise InvalidStateError(f"{game!r} has no state helper (perfect-information games: {PERFECT_INFORMATION})")
    engine = get_engine(game)
    try:
        saved = _SAVED_FORMS[game](observation)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise InvalidStateError(f"not a {game} observation: {exc!r}") from exc
    saved["version"] = engine.version
    return engine.state_from_json(saved)
