"""The one interface every game engine implements.

An :class:`Engine` is stateless metadata plus a factory for :class:`State`
objects.  A :class:`State` is one position of one game; it is mutated in place
by :meth:`State.apply` (fast playouts) and copied with :meth:`State.clone`.

Everything here is pure Python: no Django, no Celery, no I/O.
"""

from __future__ import annotations

import abc
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Self, TypeGuard, TypeVar

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


def is_int(value: object) -> TypeGuard[int]:
    """True for an int that is not a bool (JSON true/false load as bools, which are ints to Python)."""
    return isinstance(value, int) and not isinstance(value, bool)


def checked_int(value: object, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` from stored state data as an int within [lo, hi] (bools refused), else InvalidStateError."""
    if not is_int(value):
        raise InvalidStateError(f"{what} must be an integer, got {value!r}")
    if lo is not None and value < lo:
        raise InvalidStateError(f"{what} must be at least {lo}, got {value}")
    if hi is not None and value > hi:
        raise InvalidStateError(f"{what} must be at most {hi}, got {value}")
    return value


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


_S = TypeVar("_S", bound="State")


class State(abc.ABC):
    """One position of one game.  Mutable: :meth:`apply` changes it in place."""

    # Slots here let a game that declares its own slots keep its states free of a __dict__.
    __slots__ = ("engine", "options", "ply", "seats", "seed")
    engine: Engine
    options: dict[str, Any]
    seats: int
    seed: int
    ply: int
    # The keys that open to_json, in the order this game has always written
    # them: stored states must keep their exact text ("game" names the engine
    # id where a game wrote it so).
    _header_keys: ClassVar[tuple[str, ...]] = ("engine", "version", "options", "seats", "seed", "ply")

    def _setup(self, engine: Engine, options: dict[str, Any], seed: int, seats: int = 2) -> None:
        """Set the fields every state has, as at the start of a game (ply 0)."""
        self.engine = engine
        self.options = options  # validated once, never mutated afterwards
        self.seats = seats
        self.seed = seed
        self.ply = 0

    def _copy_common(self) -> Self:
        """A bare instance of this state's class with the common fields copied, for :meth:`clone` to complete."""
        other = object.__new__(type(self))
        other.engine = self.engine
        other.options = self.options  # shared: never mutated after validation
        other.seats = self.seats
        other.seed = self.seed
        other.ply = self.ply
        return other

    def _rules_version(self) -> str:
        """The rules version this state is played under (the engine's unless a game replays older rules)."""
        return self.engine.version

    def _header(self) -> dict[str, JSON]:
        """The opening keys of :meth:`to_json`: which game, rules version, options, seats, seed and ply."""
        values: dict[str, JSON] = {
            "engine": self.engine.id,
            "game": self.engine.id,
            "version": self._rules_version(),
            "options": dict(self.options),
            "seats": self.seats,
            "seed": self.seed,
            "ply": self.ply,
        }
        return {key: values[key] for key in self._header_keys}

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

    def _check_state_header(self, data: object, *, id_key: str = "engine", optional: tuple[str, ...] = ()) -> str:
        """Check that ``data`` is a stored state of this engine under rules it plays; return that rules version.

        ``id_key`` names the key holding the engine id; keys listed in
        ``optional`` (``id_key``, ``"version"``) may be missing and then read
        as this engine's id and current version.
        """
        if not isinstance(data, Mapping):
            raise InvalidStateError(f"a {self.id} state must be a JSON object")
        found = data.get(id_key, self.id if id_key in optional else None)
        if found != self.id:
            raise InvalidStateError(f"not a {self.id} state: {id_key} is {found!r}")
        version = data.get("version", self.version if "version" in optional else None)
        if version != self.version and version not in self.legacy_versions:
            raise InvalidStateError(f"state of rules version {version!r}; {self.id} plays {self.version}")
        return str(version)

    def _load_checked(self, load: Callable[[Mapping[str, JSON]], _S], data: Mapping[str, JSON]) -> _S:
        """``load(data)``, with any error that malformed data can cause reported as InvalidStateError."""
        try:
            return load(data)
        except InvalidStateError:
            raise
        except (LookupError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidStateError(f"bad {self.id} state: {exc!r}") from exc
