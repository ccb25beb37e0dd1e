"""Pure-Python game engines: rules only, no Django, no Celery, no I/O.

Use :func:`engines.get_engine` to reach a game by id and the interface in
:mod:`engines.base` to play it.
"""

from engines.base import (
    PASS,
    Engine,
    IllegalMoveError,
    InvalidOptionsError,
    InvalidStateError,
    Option,
    Result,
    State,
)
from engines.ranks import renumber_ranks_by_team, team_ranks
from engines.registry import UnknownEngineError, all_engines, get_engine, register
from engines.replay import Replay

__all__ = [
    "PASS",
    "Engine",
    "IllegalMoveError",
    "InvalidOptionsError",
    "InvalidStateError",
    "Option",
    "Replay",
    "Result",
    "State",
    "UnknownEngineError",
    "all_engines",
    "get_engine",
    "register",
    "renumber_ranks_by_team",
    "team_ranks",
]
