"""Reading matches."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet

from tournaments.models import Match, MatchSeat


def match_list(
    *,
    tournament_id: int | None = None,
    bot_id: int | None = None,
    status: str | None = None,
    by_finish: bool = False,
) -> QuerySet[Match]:
    """Matches, newest first; ``by_finish`` orders them as they finished (the order ratings moved in)."""
    matches = Match.objects.defer("moves").prefetch_related(
        Prefetch(
            "match_seats",
            queryset=MatchSeat.objects.select_related("bot_version__bot").defer("stderr", "bot_version__package"),
        )
    )
    if tournament_id is not None:
        matches = matches.filter(tournament_id=tournament_id)
    if bot_id is not None:
        matches = matches.filter(match_seats__bot_version__bot_id=bot_id).distinct()
    if status:
        matches = matches.filter(status=status)
    return matches.order_by("finished_at", "id") if by_finish else matches.order_by("-id")


def match_get(*, match_id: int) -> Match | None:
    return (
        Match.objects.prefetch_related(
            Prefetch(
                "match_seats",
                queryset=MatchSeat.objects.select_related("bot_version__bot__owner").defer("bot_version__package"),
            ),
            "rating_changes__rating",
        )
        .filter(id=match_id)
        .first()
    )


@dataclass(frozen=True)
class SeatSpec:
    seat: int
    bot_version_id: int
    checksum: str
    command: list[str]


@dataclass(frozen=True)
class MatchSpec:
    """Everything a worker needs to play a match (packages are loaded separately)."""

    match_id: int
    engine_id: str
    options: dict[str, Any]
    seed: int
    seats: list[SeatSpec]
    move_ms: int
    game_ms: int
    startup_ms: int


def match_spec(*, match_id: int) -> MatchSpec:
    match = Match.objects.defer("moves").get(id=match_id)
    seats = (
        MatchSeat.objects.filter(match_id=match_id)
        .order_by("seat")
        .values_list("seat", "bot_version_id", "bot_version__checksum", "bot_version__command")
    )
    return MatchSpec(
        match_id=match.id,
        engine_id=match.game_id,
        options=dict(match.options),
        seed=match.seed,
        seats=[SeatSpec(seat=s, bot_version_id=v, checksum=c, command=list(cmd or [])) for s, v, c, cmd in seats],
        move_ms=match.move_ms,
        game_ms=match.game_ms,
        startup_ms=match.startup_ms,
    )


def matches_queued(*, tournament_id: int) -> list[dict[str, int]]:
    """Id and clock data of every queued match of a tournament, in schedule order."""
    return list(
        Match.objects.filter(tournament_id=tournament_id, status=Match.Status.QUEUED)
        .order_by("index")
        .values("id", "seats", "startup_ms", "game_ms")
    )
