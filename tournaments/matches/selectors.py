"""Reading matches."""

from __future__ import annotations

from typing import Any

from django.db.models import Exists, OuterRef, Prefetch, Q, QuerySet

from tournaments.bots.selectors import bots_private_to_others
from tournaments.matches.forfeits import forfeit_details, forfeit_explained
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.seeds import seed_shown


def matches_visible(*, user: Any) -> QuerySet[Match]:
    """Matches the user may see: none where another owner played a private bot, unless the user organised it.

    Staff see every match.  A private bot plays only in its owner's competitions,
    so this hides nothing anyone else could rightly look at.  A bot made private
    after it played in someone else's competition leaves those matches visible:
    one owner cannot take other people's results away.
    """
    matches = Match.objects.all()
    if getattr(user, "is_staff", False):
        return matches
    hidden = Exists(
        MatchSeat.objects.filter(match_id=OuterRef("pk"), bot_version__bot__owner_id=OuterRef("owner_id")).filter(
            bots_private_to_others(user=user, path="bot_version__bot")
        )
    )
    if user is not None and user.is_authenticated:
        return matches.filter(Q(owner_id=user.id) | ~hidden)
    return matches.filter(~hidden)


def matches_with_seats(*, matches: QuerySet[Match]) -> QuerySet[Match]:
    """``matches`` as a list of them shows them: no moves, ``seed_shown`` annotated, the seats with their bots."""
    return (
        matches.defer("moves")
        .annotate(seed_shown=seed_shown())
        .prefetch_related(
            Prefetch(
                "match_seats",
                queryset=MatchSeat.objects.select_related("bot_version__bot").defer("stderr", "bot_version__package"),
            )
        )
    )


def match_list(
    *,
    user: Any,
    tournament_id: int | None = None,
    bot_id: int | None = None,
    status: str | None = None,
    by_finish: bool = False,
) -> QuerySet[Match]:
    """Matches the user may see, newest first (``seed_shown`` annotated); ``by_finish``: in finish order."""
    matches = matches_with_seats(matches=matches_visible(user=user))
    if tournament_id is not None:
        matches = matches.filter(tournament_id=tournament_id)
    if bot_id is not None:
        matches = matches.filter(match_seats__bot_version__bot_id=bot_id).distinct()
    if status:
        matches = matches.filter(status=status)
    return matches.order_by("finished_at", "id") if by_finish else matches.order_by("-id")


def match_get(*, user: Any, match_id: int) -> Match | None:
    """The match with its seats and rating changes, if the user may see it (``seed_shown`` annotated)."""
    return (
        matches_visible(user=user)
        .annotate(seed_shown=seed_shown())
        .prefetch_related(
            Prefetch(
                "match_seats",
                queryset=MatchSeat.objects.select_related("bot_version__bot__owner").defer("bot_version__package"),
            ),
            "rating_changes__rating",
        )
        .filter(id=match_id)
        .first()
    )


def bot_forfeits(*, user: Any, bot_id: int, limit: int = 10) -> list[dict[str, Any]]:
    """The bot's latest forfeits in matches the user may see: match, seat, version, status, detail, meaning."""
    seats = (
        MatchSeat.objects.filter(
            bot_version__bot_id=bot_id,
            match__in=matches_visible(user=user).filter(status=Match.Status.FINISHED),
        )
        .exclude(status__in=("ok", ""))
        .select_related("match", "bot_version")
        .only("seat", "status", "bot_version__number", "match__result_reason", "match__finished_at")
        .order_by("-match_id")[:limit]
    )
    rows = []
    for seat in seats:
        forfeit = forfeit_details(seat.match.result_reason).get(seat.seat)
        rows.append(
            {
                "match": seat.match_id,
                "finished_at": seat.match.finished_at,
                "seat": seat.seat,
                "version": seat.bot_version.number,
                "status": seat.status,
                "detail": forfeit.detail if forfeit else "",
                "explained": forfeit_explained(seat.status),
            }
        )
    return rows
