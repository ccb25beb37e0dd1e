"""Match records as a referee would return them, for tests that record results without bot processes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tournaments.matches.models import Match
from workers.match import MatchRecord, MoveRecord, SeatRecord, SeatStatus, Termination


def record_for(
    match: Match,
    ranks: Sequence[int],
    statuses: Sequence[str] | None = None,
    *,
    reason: str = "test",
    scores: Sequence[Any] | None = None,
    moves: Sequence[dict[str, Any]] = ({"seat": 0, "move": "x", "ms": 1},),
    engine_version: str = "",
    cpu_ms: Sequence[int | None] | None = None,
) -> MatchRecord:
    """The record of ``match`` with these ranks (and seat statuses; all ``ok`` by default)."""
    statuses = list(statuses or ["ok"] * match.seats)
    cpu = list(cpu_ms or [None] * match.seats)
    forfeit = any(s != "ok" for s in statuses)
    return MatchRecord(
        engine_id=match.game_id,
        engine_version=engine_version,
        seats=match.seats,
        options=dict(match.options),
        seed=match.seed,
        ranks=list(ranks),
        scores=list(scores) if scores is not None else None,
        termination=Termination.FORFEIT if forfeit else Termination.RULES,
        reason=reason,
        seat_records=[
            SeatRecord(seat=i, status=SeatStatus(s), stderr=f"seat {i} says hi", cpu_ms=cpu[i])
            for i, s in enumerate(statuses)
        ],
        moves=[MoveRecord(**m) for m in moves],
        match_id=str(match.pk),
    )
