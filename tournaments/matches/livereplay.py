"""The live view's replay: a running match's public views, made from its moves in the process that serves them.

The worker publishes only the moves (``live.py``); a poll asks for the views
from position ``since`` on (position 0 is the start).  Each process keeps,
for the last ``Replays.MATCHES`` matches it was asked about, the engine state
at the newest position and the views of the last ``Replays.RECENT``
positions, so a poll applies only the moves played since the one before.  A
viewer further behind (a page just opened on a long match) gets a replay of
its own from the start, as the page of a finished match does.

A view is copied out of the state as JSON (``public_observation`` may hand
out the state's own lists, which the next move changes).  A move the engine
refuses (a worker on other rules than this process knows) ends the views at
the position before it; the replay at the end says why.
"""

from __future__ import annotations

import json
import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

import engines
from engines import IllegalMoveError, InvalidOptionsError, InvalidStateError, UnknownEngineError

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class LiveGame:
    """What replays a running match: its game, rules version ('' for the engine's own), options, seed, seats."""

    game_id: str
    rules: str
    options: dict[str, Any]
    seed: int
    seats: int

    def start(self) -> engines.State:
        """The start position under the match's rules (raises the engine's errors for a game it cannot play)."""
        engine = engines.get_engine(self.game_id)
        return engine.new_state_for_version(
            self.rules or engine.version, self.options, seed=self.seed, seats=self.seats
        )


def _view(state: engines.State) -> dict[str, Any]:
    view: dict[str, Any] = json.loads(json.dumps(state.public_observation()))
    return view


@dataclass
class _Replay:
    game: LiveGame
    state: engines.State
    applied: int = 0  # moves applied: the state is at position ``applied``
    views: list[dict[str, Any]] = field(default_factory=list)  # of the positions up to ``applied``, the newest last
    stuck: bool = False  # the engine refused a move: no position after it

    @classmethod
    def begin(cls, game: LiveGame) -> _Replay:
        """A replay at the start position, with its view."""
        replay = cls(game, game.start())
        replay.views.append(_view(replay.state))
        return replay

    def first(self) -> int:
        """The position of the oldest view kept."""
        return self.applied + 1 - len(self.views)

    def advance(self, moves: list[str], *, keep: int | None, key: str) -> None:
        """Apply the moves not applied yet; keep the views of the last ``keep`` positions (None: all)."""
        for move in moves[self.applied :]:
            if self.stuck:
                return
            try:
                self.state.apply(move)
            except IllegalMoveError as exc:
                self.stuck = True
                logger.warning("%s: live view stops at ply %d, move %r refused (%s)", key, self.applied, move, exc)
                return
            self.applied += 1
            self.views.append(_view(self.state))
            if keep is not None and len(self.views) > keep:
                del self.views[0]


class Replays:
    """One process's replays of the running matches it was last asked about."""

    MATCHES = 32  # matches kept (the least recently asked about goes first)
    RECENT = 64  # views kept per match: polls a minute behind and less are answered from them

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._replays: OrderedDict[str, _Replay] = OrderedDict()

    def views(self, key: str, game: LiveGame, moves: list[str], since: int) -> list[dict[str, Any]]:
        """The public views of positions ``since`` to ``len(moves)`` of the match whose list is ``key``."""
        try:
            with self._lock:
                replay = self._replays.pop(key, None)
                # New here, or a list begun again (a database restored from a backup reuses its names).
                if replay is None or replay.game != game or replay.applied > len(moves):
                    replay = _Replay.begin(game)
                self._replays[key] = replay
                while len(self._replays) > self.MATCHES:
                    self._replays.popitem(last=False)
                replay.advance(moves, keep=self.RECENT, key=key)
                if since >= replay.first():
                    return replay.views[since - replay.first() :]
            # Further behind than the views kept: a replay of its own, outside the lock.
            apart = _Replay.begin(game)
            apart.advance(moves, keep=None, key=key)
            return apart.views[since:]
        except (UnknownEngineError, InvalidOptionsError, InvalidStateError) as exc:
            logger.warning("%s: no live view (%s)", key, exc)
            return []
