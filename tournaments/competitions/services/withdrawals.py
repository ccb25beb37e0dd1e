"""Bots withdrawn by their owners: what becomes of their tournament matches not yet played out."""

from __future__ import annotations

import logging

from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.rounds import tournament_after_cancelled
from tournaments.matches.life import matches_cancel
from tournaments.matches.models import Match

logger = logging.getLogger(__name__)


def tournament_bot_withdrawn(bot: Bot) -> None:
    """A bot was deactivated or made private: cancel its tournament matches not yet played out.

    Queued ones, and running ones (their workers stop the bots within
    ``ARBITER_CANCEL_CHECK_S``).  They are cancelled, never forfeited: nobody
    gains or loses points or rating from a game that was not played to its
    end.  A private bot keeps playing in its own owner's tournaments; a
    deactivated one stops everywhere.  Runs inside the transaction that
    withdrew the bot.
    """
    unplayed = Match.objects.filter(
        kind=Match.Kind.TOURNAMENT,
        status__in=[Match.Status.QUEUED, Match.Status.RUNNING],
        match_seats__bot_version__bot_id=bot.pk,
    )
    if bot.active:
        unplayed = unplayed.exclude(tournament__owner_id=bot.owner_id)
    ids = list(unplayed.values_list("id", flat=True).distinct())
    if not ids:
        return
    tournament_ids = set(Match.objects.filter(id__in=ids).values_list("tournament_id", flat=True))
    # Tournament rows first, in id order, as a recording does: no deadlock with a worker.
    list(Tournament.objects.select_for_update().filter(id__in=tournament_ids).order_by("id").values_list("id"))
    cancelled = matches_cancel(matches=Match.objects.filter(id__in=ids))
    logger.info("bot %s withdrawn: %d queued or running tournament match(es) cancelled", bot.pk, cancelled)
    for tournament_id in sorted(tournament_ids):
        tournament_after_cancelled(tournament_id=tournament_id)
