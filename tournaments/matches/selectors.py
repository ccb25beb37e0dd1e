"""Reading matches."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from tournaments.matches.models import Match, MatchSeat
from workers.match import BotRef, MatchSpec


def match_commands(*, match_id: int) -> list[list[str]]:
    """The command of each seat's bot version (what a worker must be able to run)."""
    return [list(c) for c in MatchSeat.objects.filter(match_id=match_id).values_list("bot_version__command", flat=True)]


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


def match_spec(*, match_id: int) -> MatchSpec:
    """What the referee needs to play the match: game, seed, clock and each seat's package."""
    match = Match.objects.defer("moves").get(id=match_id)
    seats = (
        MatchSeat.objects.filter(match_id=match_id)
        .order_by("seat")
        .values_list("bot_version_id", "bot_version__checksum", "bot_version__filename", "bot_version__command")
    )
    return MatchSpec(
        match_id=str(match.id),
        engine_id=match.game_id,
        options=dict(match.options),
        seed=match.seed,
        seats=match.seats,
        clock=match.clock,
        bots=tuple(BotRef(version_id=v, checksum=c, filename=f, command=tuple(cmd or [])) for v, c, f, cmd in seats),
    )
