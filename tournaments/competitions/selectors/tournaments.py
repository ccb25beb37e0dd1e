"""Reading tournaments."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, TypedDict

from django.db.models import Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce

from engines import get_engine
from tournaments.bots.models import Bot
from tournaments.bots.selectors import bots_private_to_others
from tournaments.competitions.brackets import knockout_size
from tournaments.competitions.models import Participant, Tournament
from tournaments.competitions.plans import gauntlet_size
from tournaments.competitions.swiss import swiss_size
from tournaments.games.config import game_config_check
from tournaments.matches.models import Match

if TYPE_CHECKING:  # the stubs' helper, installed for type checking only
    from django_stubs_ext import WithAnnotations


def withdrawn_in(*, tournament: Tournament) -> Q:
    """Bots (as a condition on Bot) that may no longer play in ``tournament``: inactive, or another's private bot."""
    return Q(active=False) | (Q(visibility=Bot.Visibility.PRIVATE) & ~Q(owner_id=tournament.owner_id))


class Withdrawn(TypedDict):
    """The annotation of :func:`participants_seeded`."""

    withdrawn: bool


def participants_seeded(*, tournament: Tournament) -> QuerySet[WithAnnotations[Participant, Withdrawn]]:
    """The tournament's participants in seed (entry) order, each annotated ``withdrawn`` (``withdrawn_in``)."""
    return (
        Participant.objects.filter(tournament=tournament)
        .annotate(
            withdrawn=Exists(
                Bot.objects.filter(withdrawn_in(tournament=tournament), pk=OuterRef("bot_version__bot_id"))
            )
        )
        .order_by("number")
    )


def tournaments_visible(*, user: Any) -> QuerySet[Tournament]:
    """Tournaments the user may see: none where another owner entered a private bot, unless the user organised it.

    Private bots enter only their owner's tournaments, so such a tournament is
    its owner's (and staff's) alone.  A bot made private after it played in
    someone else's tournament does not take that tournament away from the
    others in it: history stays as it was played.
    """
    tournaments = Tournament.objects.all()
    if getattr(user, "is_staff", False):
        return tournaments
    hidden = Exists(
        Participant.objects.filter(
            tournament_id=OuterRef("pk"), bot_version__bot__owner_id=OuterRef("owner_id")
        ).filter(bots_private_to_others(user=user, path="bot_version__bot"))
    )
    if user is not None and user.is_authenticated:
        return tournaments.filter(Q(owner_id=user.id) | ~hidden)
    return tournaments.filter(~hidden)


def _errored_matches() -> QuerySet[Match]:
    """The errored matches of the tournament in the outer query (the index on tournament and status serves it)."""
    return Match.objects.filter(tournament_id=OuterRef("pk"), status=Match.Status.ERRORED)


def tournaments_count_errored(*, tournaments: QuerySet[Tournament]) -> QuerySet[Tournament]:
    """``tournaments``, each with ``errored_matches``: how many of its matches are ERRORED.

    A correlated count in the same statement, evaluated only for the rows
    fetched, so a page of a list costs one query whatever its length.
    """
    count = _errored_matches().order_by().values("tournament_id").annotate(n=Count("id")).values("n")
    return tournaments.annotate(errored_matches=Coalesce(Subquery(count, output_field=IntegerField()), 0))


def tournaments_filter_errored(*, tournaments: QuerySet[Tournament], errored: bool) -> QuerySet[Tournament]:
    """Only the tournaments with at least one errored match (``errored``), or only those with none."""
    has = Exists(_errored_matches())
    return tournaments.filter(has if errored else ~has)


def tournament_list(
    *, user: Any, game_id: str | None = None, status: str | None = None, errored: bool | None = None
) -> QuerySet[Tournament]:
    """Tournaments the user may see, newest first, each with its count of errored matches (``errored_matches``).

    ``errored``: True for only those with errored matches, False for only those without.
    """
    tournaments = tournaments_count_errored(
        tournaments=tournaments_visible(user=user).select_related("owner").order_by("-id")
    )
    if game_id:
        tournaments = tournaments.filter(game_id=game_id)
    if status:
        tournaments = tournaments.filter(status=status)
    if errored is not None:
        tournaments = tournaments_filter_errored(tournaments=tournaments, errored=errored)
    return tournaments


def tournament_get(*, user: Any, tournament_id: int) -> Tournament | None:
    """The tournament if the user may see it."""
    return tournaments_visible(user=user).select_related("owner").filter(id=tournament_id).first()


def tournament_participants(*, tournament: Tournament) -> list[dict[str, Any]]:
    """Participants in entry order: version id, bot id and name, version number."""
    entries = (
        Participant.objects.filter(tournament=tournament)
        .select_related("bot_version__bot")
        .defer("bot_version__package")
        .order_by("number")
    )
    return [
        {
            "bot_version": e.bot_version_id,
            "bot": e.bot_version.bot_id,
            "bot_name": e.bot_version.bot.name,
            "version": e.bot_version.number,
        }
        for e in entries
    ]


def round_robin_match_count(
    *,
    game_id: str,
    seats: int | None,
    options: dict[str, Any] | None,
    participants: int,
    format: str,
    games_per_pairing: int,
    rounds: int = 0,
) -> int:
    """How many matches a round robin with these settings plays, or a Swiss or knockout at most (ServiceError for
    settings the game refuses).

    For a gauntlet, ``participants`` is its field, each member playing the challenger ``games_per_pairing`` games.
    """
    gauntlet = format == Tournament.Format.GAUNTLET
    config = game_config_check(
        engine=get_engine(game_id), seats=seats, options=options, two_sides="A gauntlet" if gauntlet else ""
    )
    if gauntlet:
        return gauntlet_size(field=participants, games_per_pairing=games_per_pairing)
    if format in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION):
        double = format == Tournament.Format.DOUBLE_ELIMINATION
        return knockout_size(participants=participants, double=double, games_per_pairing=games_per_pairing)
    if format == Tournament.Format.SWISS:
        return swiss_size(participants=participants, rounds=rounds, games_per_pairing=games_per_pairing)
    legs = 2 if format == Tournament.Format.DOUBLE else 1
    # Every group of distinct participants, one per team, plays games_per_pairing games per leg
    # (plans.round_robin_plan), counted here without listing the groups.
    return math.comb(participants, len(config.teams)) * games_per_pairing * legs
