"""A tournament's end: its count of ended matches reaching the plan, the finish, and an errored match run again.

The record path adds one to the tournament's count of ended matches
(``matches.tally``) last in its transaction and hands the count to the
tournament kind's ``tallied`` hook (``services/rounds.py``), which calls
:func:`tournament_matches_ended` here: a round robin or gauntlet is then
finished, a tournament played in rounds gets its next round.
"""

from __future__ import annotations

from collections.abc import Callable

from django.db import DatabaseError, transaction
from django.db.models import Exists, F, OuterRef

from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.rounds import ROUND_FORMATS
from tournaments.dbclock import db_now
from tournaments.matches.models import Match, TournamentTally


def tournament_matches_ended(match: Match, ended: int, *, in_rounds: Callable[[int], None]) -> None:
    """The record path's finish detection: ``ended`` of the match's tournament's matches have ended.

    Called last in the transaction that recorded (or errored for good) one of
    its matches, holding the tournament's count of ended matches
    (``matches.tally``), not the tournament's row.  Below the plan it reads
    only the plan; at the plan, a round robin or gauntlet is finished once no
    match is queued or running, and a tournament played in rounds is handed to
    ``in_rounds`` (its next round, services/rounds.py).  Either takes the
    tournament's row without waiting: a cancel or withdrawal holding it may be
    waiting for this very match, so then the check runs again, in the usual
    order, once this commits.
    """
    tournament_id = match.tournament_id
    if tournament_id is None:
        return
    row = Tournament.objects.filter(pk=tournament_id).values_list("planned", "format").first()
    if row is None or ended < row[0]:
        return
    check = in_rounds if row[1] in ROUND_FORMATS else _finish
    try:
        with transaction.atomic():
            held = Tournament.objects.select_for_update(nowait=True).filter(pk=tournament_id).exists()
    except DatabaseError:  # another transaction holds the row (it may be waiting for this match)
        held = False
    if held:
        check(tournament_id)
    else:
        transaction.on_commit(lambda: _check_later(tournament_id, check), robust=True)


def _finish(tournament_id: int) -> None:
    tournament_finish_if_done(tournament_id=tournament_id)


def _check_later(tournament_id: int, check: Callable[[int], None]) -> None:
    """The finish (or next round) check in its own transaction, the tournament's row first (as a cancel takes it)."""
    with transaction.atomic():
        if Tournament.objects.select_for_update().filter(pk=tournament_id).exists():
            check(tournament_id)


def tournament_finish_if_done(*, tournament_id: int) -> None:
    """Mark a running tournament FINISHED once every planned match exists and none is queued or running."""
    matches = Match.objects.filter(tournament_id=tournament_id)
    if matches.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).exists():
        return
    planned = Tournament.objects.filter(pk=tournament_id).values_list("planned", flat=True).first() or 0
    if matches.count() < planned:
        return  # the rest of a big round robin is still being inserted
    # A tournament played in rounds is not over before its last round (services/rounds.py).
    Tournament.objects.filter(
        pk=tournament_id, status=Tournament.Status.RUNNING, current_round__gte=F("rounds")
    ).update(status=Tournament.Status.FINISHED, finished=db_now())


def tournament_match_requeued(match: Match) -> None:
    """An errored match of a finished tournament runs again: the tournament is running until it is done."""
    if match.tournament_id is not None:
        Tournament.objects.filter(pk=match.tournament_id, status=Tournament.Status.FINISHED).update(
            status=Tournament.Status.RUNNING, finished=None
        )


def tournaments_finish_overdue() -> list[int]:
    """The beat's sweep: finish every running round robin or gauntlet whose matches have all ended; their ids.

    The record path finishes a tournament itself, or right after its commit when
    a cancel held the tournament's row (:func:`tournament_matches_ended`): a
    process that dies between that commit and the check would leave a
    tournament whose every match has ended still running.  Tournaments played
    in rounds have their own sweep (``rounds.tournaments_rounds_advance``).
    """
    reached = TournamentTally.objects.filter(tournament_id=OuterRef("pk"), ended__gte=OuterRef("planned"))
    due = (
        Tournament.objects.filter(status=Tournament.Status.RUNNING, planned__gt=0)
        .exclude(format__in=list(ROUND_FORMATS))
        .filter(Exists(reached))
    )
    finished = []
    for tournament_id in due.order_by("id").values_list("id", flat=True):
        with transaction.atomic():
            # The tournament's row first, as a cancel takes it.
            if Tournament.objects.select_for_update().filter(pk=tournament_id).exists():
                tournament_finish_if_done(tournament_id=tournament_id)
        if Tournament.objects.filter(pk=tournament_id, status=Tournament.Status.FINISHED).exists():
            finished.append(tournament_id)
    return finished
