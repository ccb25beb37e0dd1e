"""The one interface every game engine implements.

An :class:`Engine` is stateless metadata plus a factory for :class:`State`
objects.  A :class:`State` is one position of one game; it is mutated in place
by :meth:`State.apply` (fast playouts) and copied with :meth:`State.clone`.

Everything here is pure Python: no Django, no Celery, no I/O.
"""

from __future__ import annotations

import abc
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

JSON = Any  # a value made of dict / list / str / int / float / bool / None

PASS = "pass"


class IllegalMoveError(ValueError):
    """A move that is not legal in the current position (malformed text included).

    Raised by :meth:`State.apply`; the state is left unchanged.
    """


class InvalidOptionsError(ValueError):
    """Options (or a seat count) that the engine does not accept."""


class InvalidStateError(ValueError):
    """Serialised state data that cannot be loaded."""


@dataclass(frozen=True)
class Option:
    """One named game option, with its default and what it may hold.

    ``kind`` is ``int``, ``bool`` or ``str``.  ``pool`` marks options that
    change the nature of the game and so define a separate rating pool.
    """

    name: str
    kind: type
    default: Any
    description: str
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[Any, ...] | None = None
    pool: bool = False

    def validate(self, value: Any) -> Any:
        """Return ``value`` checked against this option, or raise InvalidOptionsError."""
        # bool is a subclass of int: keep the two apart explicitly.
        if self.kind is bool:
            if not isinstance(value, bool):
                raise InvalidOptionsError(f"option {self.name!r} must be true or false, got {value!r}")
        elif self.kind is int:
            if isinstance(value, bool) or not isinstance(value, int):
                raise InvalidOptionsError(f"option {self.name!r} must be an integer, got {value!r}")
        elif not isinstance(value, self.kind):
            raise InvalidOptionsError(f"option {self.name!r} must be a {self.kind.__name__}, got {value!r}")
        if self.minimum is not None and value < self.minimum:
            raise InvalidOptionsError(f"option {self.name!r} must be at least {self.minimum}, got {value!r}")
        if self.maximum is not None and value > self.maximum:
            raise InvalidOptionsError(f"option {self.name!r} must be at most {self.maximum}, got {value!r}")
        if self.choices is not None and value not in self.choices:
            raise InvalidOptionsError(f"option {self.name!r} must be one of {list(self.choices)}, got {value!r}")
        return value

    def to_json(self) -> dict[str, JSON]:
        """Describe the option for the API and docs."""
        return {
            "name": self.name,
            "type": self.kind.__name__,
            "default": self.default,
            "description": self.description,
            "minimum": self.minimum,
            "maximum": self.maximum,
            "choices": list(self.choices) if self.choices is not None else None,
            "rating_pool": self.pool,
        }


@dataclass(frozen=True)
class Result:
    """How a finished game ended.

    ``ranks[seat]`` is the seat's place, 1 best; tied seats share a rank and
    every seat of a team has the team's rank.  ``scores`` holds the game's own
    points per seat where the game has them.
    """

    ranks: tuple[int, ...]
    reason: str
    scores: tuple[int | float, ...] | None = None

    def to_json(self) -> dict[str, JSON]:
        """The ``result`` object of the protocol's ``end`` message, plus the reason."""
        out: dict[str, JSON] = {"ranks": list(self.ranks), "reason": self.reason}
        if self.scores is not None:
            out["scores"] = list(self.scores)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Result:
        scores = data.get("scores")
        return cls(
            ranks=tuple(int(r) for r in data["ranks"]),
            reason=str(data["reason"]),
            scores=tuple(scores) if scores is not None else None,
        )


def ranks_from_scores(values: Sequence[float]) -> tuple[int, ...]:
    """Competition ranks (1 best, ties share) from per-seat values, higher is better.

    Right for games where every seat is its own team; with teams use
    :func:`team_ranks`, which counts teams rather than seats.
    """
    return tuple(1 + sum(1 for other in values if other > v) for v in values)


def team_ranks(team_of: Sequence[int], team_values: Sequence[float]) -> tuple[int, ...]:
    """Each seat's rank from one value per team (higher is better), counted over teams.

    ``team_of[seat]`` is the seat's team index.  A team's rank is 1 + the
    number of teams with a strictly higher value, and every seat of the team
    has it: two teams of two seats give ``(1, 2, 1, 2)``, never ``(1, 3, 1, 3)``.
    """
    by_team = ranks_from_scores(team_values)
    return tuple(by_team[t] for t in team_of)


def renumber_ranks_by_team(ranks: Sequence[int | None], team_of: Sequence[int]) -> list[int | None]:
    """Per-seat ranks in any numbering that keeps their order, renumbered over teams.

    For stored results written when ranks counted seats (a two-team game of
    four seats as ``[1, 3, 1, 3]``): the order of the teams is kept and the
    numbers become :func:`team_ranks`'s (``[1, 2, 1, 2]``).  Ranks already
    counted over teams come back unchanged, so applying it twice is harmless.
    A seat without a rank (None) keeps None and is left out; a team whose
    seats disagree takes its best rank.
    """
    if len(ranks) != len(team_of):
        raise ValueError("one team index per seat")
    best: dict[int, int] = {}
    for rank, team in zip(ranks, team_of, strict=True):
        if rank is not None:
            best[team] = min(rank, best.get(team, rank))
    return [
        None if rank is None else 1 + sum(1 for other in best.values() if other < best[team])
        for rank, team in zip(ranks, team_of, strict=True)
    ]


class State(abc.ABC):
    """One position of one game.  Mutable: :meth:`apply` changes it in place."""

    engine: Engine
    options: dict[str, Any]
    seats: int
    seed: int
    ply: int

    @abc.abstractmethod
    def to_move(self) -> int | None:
        """The seat that must move now, or None when the game is over."""

    @abc.abstractmethod
    def legal_moves(self) -> list[str]:
        """Every legal move in the game's notation, sorted.  Empty only when terminal."""

    @abc.abstractmethod
    def apply(self, move: str) -> None:
        """Play ``move`` for the seat to move.

        Raises :class:`IllegalMoveError` for anything not in :meth:`legal_moves`
        (malformed text included), leaving the state unchanged.
        """

    @abc.abstractmethod
    def is_terminal(self) -> bool:
        """True when the game is over."""

    @abc.abstractmethod
    def result(self) -> Result | None:
        """The result once terminal, else None."""

    @abc.abstractmethod
    def observation(self, seat: int) -> dict[str, JSON]:
        """What the protocol sends ``seat``: everything public plus that seat's own secrets."""

    @abc.abstractmethod
    def public_observation(self) -> dict[str, JSON]:
        """What spectators may see: no seat's secrets at all."""

    @abc.abstractmethod
    def to_json(self) -> dict[str, JSON]:
        """The full state, secrets and random stream included (server side only)."""

    @abc.abstractmethod
    def clone(self) -> State:
        """An independent copy."""

    def resample_hidden(self, seat: int, seed: int) -> State:
        """A copy where everything ``seat`` cannot see is re-dealt from ``seed``.

        ``observation(seat)`` of the copy must equal this state's.  Games of
        perfect information have nothing hidden and return a plain clone.
        """
        return self.clone()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.engine.id} ply={self.ply} to_move={self.to_move()}>"


class Engine(abc.ABC):
    """A game: its metadata and a factory for states.  Instances are stateless."""

    id: ClassVar[str]
    name: ClassVar[str]
    version: ClassVar[str]
    # Earlier rule versions the engine can still play, so that a match recorded
    # under one of them replays move for move (see new_state_for_version).
    legacy_versions: ClassVar[tuple[str, ...]] = ()
    seat_counts: ClassVar[tuple[int, ...]] = (2,)
    options: ClassVar[tuple[Option, ...]] = ()
    has_chance: ClassVar[bool] = False
    hidden_information: ClassVar[bool] = False
    # Seat 0 moves first in every game here; a rating fit may model its edge.
    has_first_mover: ClassVar[bool] = True
    # Where the rules for users live, relative to the project root.
    rules_doc: ClassVar[str] = ""
    # (seats, options) pairs worth exercising: the conformance suite and the
    # bench play every one of them.
    example_configs: ClassVar[tuple[tuple[int, dict[str, Any]], ...]] = ()

    def configs(self) -> list[tuple[int, dict[str, Any]]]:
        """``example_configs``, or the default seat count with default options."""
        return list(self.example_configs) or [(self.default_seats(), {})]

    # -- metadata -----------------------------------------------------------

    def default_seats(self) -> int:
        return self.seat_counts[0]

    def teams(self, seats: int, options: Mapping[str, Any] | None = None) -> list[list[int]]:
        """The seats of each team for ``seats`` players (one seat a team by default)."""
        self.check_seats(seats)
        return [[s] for s in range(seats)]

    def check_seats(self, seats: int) -> None:
        if isinstance(seats, bool) or not isinstance(seats, int) or seats not in self.seat_counts:
            raise InvalidOptionsError(
                f"{self.id} is played by {', '.join(map(str, self.seat_counts))} seats, not {seats!r}"
            )

    def validate_options(self, options: Mapping[str, Any] | None, seats: int | None = None) -> dict[str, Any]:
        """Options with defaults filled in; InvalidOptionsError names any bad one."""
        seats = self.default_seats() if seats is None else seats
        self.check_seats(seats)
        options = dict(options or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise InvalidOptionsError(f"unknown option(s) for {self.id}: {', '.join(unknown)}")
        out = {}
        for name, spec in known.items():
            out[name] = spec.validate(options[name]) if name in options else spec.default
        self.check_option_combination(out, seats)
        return out

    def check_option_combination(self, options: dict[str, Any], seats: int) -> None:
        """Hook for rules that tie options to each other or to the seat count."""
        return None

    def rating_pool(self, options: Mapping[str, Any] | None = None, seats: int | None = None) -> str:
        """The rating pool key: the engine id plus the options that change the game's nature.

        Stable text such as ``"sequence"`` or ``"sequence:seats=4,teams=2"``.
        """
        seats = self.default_seats() if seats is None else seats
        opts = self.validate_options(options, seats)
        parts = []
        if len(self.seat_counts) > 1:
            parts.append(f"seats={seats}")
        for spec in self.options:
            if spec.pool:
                value = opts[spec.name]
                parts.append(f"{spec.name}={str(value).lower() if isinstance(value, bool) else value}")
        return self.id + (":" + ",".join(parts) if parts else "")

    def describe(self) -> dict[str, JSON]:
        """Metadata as JSON, for the API."""
        return {
            "id": self.id,
            "name": self.name,
            "version": self.version,
            "seat_counts": list(self.seat_counts),
            "options": [o.to_json() for o in self.options],
            "has_chance": self.has_chance,
            "hidden_information": self.hidden_information,
            "rules_doc": self.rules_doc,
        }

    # -- states -------------------------------------------------------------

    @abc.abstractmethod
    def new_state(self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None) -> State:
        """The start position (options validated, defaults filled in)."""

    def new_state_for_version(
        self, version: str, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None
    ) -> State:
        """The start position under the rules of ``version``: the current one or one of ``legacy_versions``.

        For replaying recorded matches; new matches use :meth:`new_state`.
        Raises InvalidStateError for a version the engine does not know.
        """
        if version == self.version:
            return self.new_state(options, seed=seed, seats=seats)
        raise InvalidStateError(f"{self.id} cannot play rules version {version!r} (it plays {self.version})")

    @abc.abstractmethod
    def state_from_json(self, data: Mapping[str, JSON]) -> State:
        """Load what :meth:`State.to_json` wrote; InvalidStateError if it cannot."""


@dataclass
class Replay:
    """Everything needed to reproduce a game: replaying gives every state again."""

    engine_id: str
    engine_version: str
    seats: int
    options: dict[str, Any]
    seed: int
    moves: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, JSON]:
        return {
            "engine": self.engine_id,
            "engine_version": self.engine_version,
            "seats": self.seats,
            "options": dict(self.options),
            "seed": self.seed,
            "moves": list(self.moves),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, JSON]) -> Replay:
        return cls(
            engine_id=str(data["engine"]),
            engine_version=str(data["engine_version"]),
            seats=int(data["seats"]),
            options=dict(data["options"]),
            seed=int(data["seed"]),
            moves=[str(m) for m in data["moves"]],
        )

    def _start(self) -> State:
        """The start position under the rules the replay was recorded with."""
        from engines.registry import get_engine

        engine = get_engine(self.engine_id)
        return engine.new_state_for_version(self.engine_version, self.options, seed=self.seed, seats=self.seats)

    def states(self) -> list[State]:
        """Every state from the start through the last move (len(moves) + 1 states)."""
        state = self._start()
        out = [state.clone()]
        for move in self.moves:
            state.apply(move)
            out.append(state.clone())
        return out

    def final_state(self) -> State:
        state = self._start()
        for move in self.moves:
            state.apply(move)
        return state
