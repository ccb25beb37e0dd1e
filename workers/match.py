"""What goes into a match and what comes out: one shape each, shared by the service and the referee.

``MatchSpec`` travels from the service to the referee, ``MatchRecord`` back.
The service stores a record as it is (``tournaments.matches.life``); nothing
copies fields from one shape into another by hand.  Seat statuses and end
reasons are enums, so a typo is an error, not a new status.  No Django here.
"""

from __future__ import annotations

import enum
from dataclasses import asdict, dataclass, field
from typing import Any

import engines


class SeatStatus(enum.StrEnum):
    """How a seat's bot fared: ``ok``, or the protocol's forfeit status (docs/bots.md)."""

    OK = "ok"
    TIMEOUT = "timeout"
    ILLEGAL_MOVE = "illegal_move"
    PROTOCOL_ERROR = "protocol_error"
    OUTPUT_LIMIT = "output_limit"
    CRASH = "crash"
    MEMORY_LIMIT = "memory_limit"
    STARTUP_TIMEOUT = "startup_timeout"


class Termination(enum.StrEnum):
    """Why a match ended (the detail is in ``MatchRecord.reason``)."""

    #: The game's rules ended it (a win, a draw, the ply cap): ranks come from the engine.
    RULES = "rules"
    #: One or more seats broke the protocol or a limit: their teams rank last.
    FORFEIT = "forfeit"


@dataclass(frozen=True)
class Clock:
    """Time limits of a match, in milliseconds (see the protocol's Time section)."""

    move_ms: int = 1000
    game_ms: int = 60_000
    startup_ms: int = 10_000

    def to_json(self) -> dict[str, int]:
        """The clock as the protocol's ``start`` message shows it."""
        return {"move_ms": self.move_ms, "game_ms": self.game_ms, "startup_ms": self.startup_ms}


@dataclass(frozen=True)
class BotRef:
    """The package one seat plays: a stored bot version, found by its checksum."""

    version_id: int
    checksum: str
    filename: str
    command: tuple[str, ...]


@dataclass(frozen=True)
class MatchSpec:
    """Everything the referee needs to play one match, except the unpacked bots.

    ``bots`` names the package of each seat for a worker that fetches them
    (empty when the caller hands the referee ready programs, as the local
    runner does).
    """

    match_id: str
    engine_id: str
    options: dict[str, Any]
    seed: int
    seats: int
    clock: Clock = Clock()
    bots: tuple[BotRef, ...] = ()


@dataclass
class SeatRecord:
    """How one seat's bot fared: its status, its stderr (first 64 KiB) and what it used."""

    seat: int
    status: SeatStatus = SeatStatus.OK
    stderr: str = ""
    cpu_ms: int | None = None
    peak_rss_kb: int | None = None
    name: str | None = None
    version: str | None = None
    detail: str = ""  # a human explanation of a non-ok status


@dataclass
class MoveRecord:
    """One move as played: who, what, and how long the answer took."""

    seat: int
    move: str
    ms: int


@dataclass
class MatchRecord:
    """Everything the service stores about a finished match."""

    engine_id: str
    engine_version: str
    seats: int
    options: dict[str, Any]
    seed: int
    ranks: list[int]
    scores: list[Any] | None
    termination: Termination
    reason: str
    seat_records: list[SeatRecord]
    moves: list[MoveRecord] = field(default_factory=list)
    match_id: str = ""
    sandboxed: bool = True

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict of the whole record."""
        return asdict(self)

    def moves_json(self) -> list[dict[str, Any]]:
        """The move log as stored with a match: ``{"seat", "move", "ms"}`` per move."""
        # Not dataclasses.asdict: its deep copy per move cost about 15 µs, a millisecond a match.
        return [{"seat": m.seat, "move": m.move, "ms": m.ms} for m in self.moves]

    def replay(self) -> engines.Replay:
        """The moves as an engine replay (forfeited matches stop at the last legal move)."""
        return engines.Replay(
            engine_id=self.engine_id,
            engine_version=self.engine_version,
            seats=self.seats,
            options=dict(self.options),
            seed=self.seed,
            moves=[m.move for m in self.moves],
        )
