"""Big round robins are inserted by a task, a batch per transaction, after the request that started them.

``tournament_start`` counts the plan and sets ``planned``; ``tournament_matches_fill``
inserts what is missing, in plan order, and hands each batch to the workers as
it commits.  It can run any number of times, at once too: each batch is
decided under the tournament's row lock from the matches that already exist.
The beat sends it again for any running tournament still short of its plan
(a lost message, a worker killed half way).
"""

from __future__ import annotations

import logging

from django.conf import settings
from django.db import transaction
from django.db.models import Count, F

from tournaments.bots.models import Bot
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.tournaments import withdrawn_in
from tournaments.competitions.services.tournaments import tournament_matches_insert
from tournaments.matches.life import matches_cancel, matches_enqueue
from tournaments.matches.models import Match

logger = logging.getLogger(__name__)


def tournament_matches_fill(*, tournament_id: int) -> int:
    """Insert the running tournament's planned matches that do not exist yet; returns how many were inserted."""
    inserted = 0
    while True:
        with transaction.atomic():
            tournament = Tournament.objects.select_for_update().filter(pk=tournament_id).first()
            if tournament is None or tournament.status != Tournament.Status.RUNNING:
                return inserted  # cancelled meanwhile: nothing more to play
            have = Match.objects.filter(tournament_id=tournament_id).count()
            if have >= tournament.planned:
                return inserted
            ids = tournament_matches_insert(
                tournament=tournament, start=have, stop=have + settings.ARBITER_TOURNAMENT_INLINE_MATCHES
            )
            # A bot withdrawn since the start does not play the games still to come.
            gone = Bot.objects.filter(withdrawn_in(tournament=tournament)).values("id")
            matches_cancel(matches=Match.objects.filter(id__in=ids, match_seats__bot_version__bot_id__in=gone))
            queued = list(Match.objects.filter(id__in=ids, status=Match.Status.QUEUED).values_list("id", flat=True))
            matches_enqueue(match_ids=queued)
        inserted += len(ids)
        logger.info("tournament %s: %d of %d matches inserted", tournament_id, have + len(ids), tournament.planned)


def tournaments_unfilled() -> list[int]:
    """Running tournaments with fewer matches than their plan (their fill is lost or under way)."""
    return list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING, planned__gt=0)
        .annotate(inserted=Count("matches"))
        .filter(inserted__lt=F("planned"))
        .order_by("id")
        .values_list("id", flat=True)
    )
