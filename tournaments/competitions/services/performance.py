"""Keeping the cached performance table of each tournament up to date.

Fitting a large tournament takes a fraction of a second, too much to redo on
every finished match and on every standings request.  So a finished match
only *requests* a refit, and requests are debounced per tournament: at most
one ``performance_refit`` task is sent per ``ARBITER_PERFORMANCE_DEBOUNCE_S``
seconds (default 30), delayed by that long so it covers the whole batch of
results that arrives meanwhile.

Why nothing is lost: the request is made after the match's transaction has
committed, and the task clears ``requested_at`` *before* it reads the
matches.  A result committed before that clear is seen by the task's read;
a result whose request comes after the clear finds no pending request and
sends a new task.  Both steps are single conditional UPDATEs, so several
worker processes can race on them safely.  Duplicate tasks are harmless:
a refit is idempotent.  The window is on the database's clock, like every
stamp (tournaments/dbclock.py).
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q

from tournaments.competitions.models import PerformanceFit, Tournament
from tournaments.competitions.selectors.performance import performance_compute
from tournaments.competitions.selectors.standings import tournament_standings
from tournaments.competitions.tasks import performance_refit
from tournaments.dbclock import db_now
from tournaments.matches.models import Match

logger = logging.getLogger(__name__)


def _debounce() -> timedelta:
    return timedelta(seconds=settings.ARBITER_PERFORMANCE_DEBOUNCE_S)


def _row(tournament: Tournament) -> PerformanceFit:
    """The cache row for the tournament's pool, created empty on first use (creation races tolerated)."""
    try:
        with transaction.atomic():
            row, _ = PerformanceFit.objects.get_or_create(tournament=tournament, pool=tournament.rating_pool)
    except IntegrityError:  # another process created it between our look and our insert
        row = PerformanceFit.objects.get(tournament=tournament, pool=tournament.rating_pool)
    return row


def performance_refresh(*, tournament_id: int) -> PerformanceFit:
    """Refit the tournament now and store the table (what the Celery task runs)."""
    tournament = Tournament.objects.get(pk=tournament_id)
    row = _row(tournament)
    # Clear the pending request before reading anything: see the module docstring.
    PerformanceFit.objects.filter(pk=row.pk).update(requested_at=None)
    order = [r["bot_version"] for r in tournament_standings(tournament=tournament, performance=False)]
    payload = performance_compute(tournament=tournament, order=order)
    PerformanceFit.objects.filter(pk=row.pk).update(payload=payload, computed_at=db_now(), matches=payload["matches"])
    row.refresh_from_db()
    return row


# (tournament, pool) table rows this process has seen exist, bounded: a worker records many
# matches of one tournament, and each would otherwise look for the row again.
_KNOWN_ROWS: set[tuple[int, str]] = set()
_KNOWN_ROWS_MAX = 10_000


def _rows_known(tournament_id: int, pool: str) -> None:
    if len(_KNOWN_ROWS) >= _KNOWN_ROWS_MAX:
        _KNOWN_ROWS.clear()
    _KNOWN_ROWS.add((tournament_id, pool))


def performance_request_refit(*, tournament_id: int, pool: str | None = None, now: datetime | None = None) -> bool:
    """Ask for a refit of the tournament's table, debounced; True when a task was sent.

    Call it outside (after) the transaction that recorded the result.  With
    the ``pool`` known (a recorded match's), the usual case is one UPDATE: the
    table row exists from the tournament's first result on.
    """
    # In the UPDATEs, not read first: every recorded tournament match comes here, and a
    # statement more per match is a statement more for every worker (tests/service/test_statements.py).
    at = db_now() if now is None else now
    delay = _debounce()
    due = Q(requested_at__isnull=True) | Q(requested_at__lte=at - delay)
    claimed = 0
    if pool is not None:
        rows = PerformanceFit.objects.filter(tournament_id=tournament_id, pool=pool)
        claimed = rows.filter(due).update(requested_at=at)
        if claimed:
            _rows_known(tournament_id, pool)
        # A row seen once is there for good (it goes only with its tournament): no look again.
        if not claimed and ((tournament_id, pool) in _KNOWN_ROWS or rows.exists()):
            _rows_known(tournament_id, pool)
            return False  # a refit asked for moments ago is on its way and will include this result
    if not claimed:
        tournament = Tournament.objects.filter(pk=tournament_id).first()
        if tournament is None:
            return False
        row = _row(tournament)
        _rows_known(tournament_id, row.pool)
        claimed = PerformanceFit.objects.filter(pk=row.pk).filter(due).update(requested_at=at)
    if not claimed:
        return False
    _send(tournament_id=tournament_id, countdown=delay.total_seconds())
    return True


def performance_match_recorded(match: Match) -> None:
    """After a tournament match's result is committed: ask (debounced) for a refit of its table."""
    if match.tournament_id is not None:
        performance_request_refit(tournament_id=match.tournament_id, pool=match.rating_pool)


def _send(*, tournament_id: int, countdown: float) -> None:
    # The short-task queue: behind the match queues a refit could wait for hours.
    performance_refit.apply_async(args=(tournament_id,), countdown=countdown, queue=settings.ARBITER_BEAT_QUEUE)
