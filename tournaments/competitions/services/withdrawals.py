"""Bots withdrawn by their owners: what becomes of their tournament matches not yet played."""

from __future__ import annotations

import logging

from django.db.models import Q

from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_finish_if_done
from tournaments.dbclock import db_now
from tournaments.matches.models import Match

logger = logging.getLogger(__name__)


def withdrawn_in(*, tournament: Tournament) -> Q:
    """Bots (as a condition on Bot) that may no longer play in ``tournament``: inactive, or another's private bot."""
    return Q(active=False) | (Q(visibility=Bot.Visibility.PRIVATE) & ~Q(owner_id=tournament.owner_id))


def tournament_bot_withdrawn(bot: Bot) -> None:
    """A bot was deactivated or made private: cancel its tournament matches not yet begun.

    They are cancelled, never forfeited: nobody gains or loses points or rating
    from a game that was not played.  A private bot keeps playing in its own
    owner's tournaments; a deactivated one stops everywhere.  Runs inside the
    transaction that withdrew the bot.
    """
    queued = Match.objects.filter(
        kind=Match.Kind.TOURNAMENT, status=Match.Status.QUEUED, match_seats__bot_version__bot_id=bot.pk
    )
    if bot.active:
        queued = queued.exclude(tournament__owner_id=bot.owner_id)
    ids = list(queued.values_list("id", flat=True).distinct())
    if not ids:
        return
    tournament_ids = set(Match.objects.filter(id__in=ids).values_list("tournament_id", flat=True))
    # Tournament rows first, in id order, as a recording does: no deadlock with a worker.
    list(Tournament.objects.select_for_update().filter(id__in=tournament_ids).order_by("id").values_list("id"))
    cancelled = Match.objects.filter(id__in=ids, status=Match.Status.QUEUED).update(
        status=Match.Status.CANCELLED, finished_at=db_now()
    )
    logger.info("bot %s withdrawn: %d queued tournament match(es) cancelled", bot.pk, cancelled)
    for tournament_id in sorted(tournament_ids):
        tournament_finish_if_done(tournament_id=tournament_id)
