"""Leases on running matches: who plays a match, and what happens when it goes quiet.

A claim (``match_claim``) gives the claiming worker a lease on the match: the
row records the worker (``host:pid``), the attempt number and a heartbeat
time.  While it plays, the worker renews the lease every
``ARBITER_HEARTBEAT_S`` seconds.  A worker that dies (kill -9, a lost
machine, a cut network link) stops renewing; once its lease is older than
``ARBITER_LEASE_S`` the sweeper (``matches_expire_leases``, run by beat)
ends that attempt as an infrastructure error: the match is QUEUED again and
re-sent, or ERRORED with the reason once it has used up
``ARBITER_MATCH_MAX_ATTEMPTS``.  Never a forfeit, never a rating change.

If the silent worker was only slow and comes back, its result carries the
old attempt number and ``match_record_result`` drops it (and logs it).
"""

from __future__ import annotations

import logging
import os
from datetime import datetime, timedelta

from django.conf import settings

from tournaments.models import Match
from tournaments.services.clock import db_clock, db_now

logger = logging.getLogger(__name__)


def worker_identity(*, hostname: str | None) -> str:
    """``<celery node name or host name>:<pid>``: enough to find the process that holds a lease."""
    return f"{hostname or os.uname().nodename}:{os.getpid()}"[:200]


def match_lease_renew(*, match_id: int, attempt: int) -> bool:
    """Renew the lease of this attempt (a heartbeat); False when the match is no longer this attempt's."""
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING, attempt=attempt).update(heartbeat_at=db_now())
    )


def matches_expire_leases(*, now: datetime | None = None) -> int:
    """End every running attempt whose lease has expired; returns how many were ended.

    Each is ended with ``match_record_error`` under the attempt it was found
    with, so a heartbeat or a result that lands in between wins and the
    sweeper changes nothing.
    """
    from tournaments.services.matches import match_record_error  # matches imports this module's helpers

    now = now or db_clock()
    cutoff = now - timedelta(seconds=settings.ARBITER_LEASE_S)
    expired = list(
        Match.objects.filter(status=Match.Status.RUNNING, heartbeat_at__lt=cutoff)
        .order_by("id")
        .values_list("id", "attempt", "worker", "heartbeat_at")
    )
    ended = 0
    for match_id, attempt, worker, heartbeat_at in expired:
        silent = (now - heartbeat_at).total_seconds()
        reason = f"infrastructure: lease expired (worker {worker or '?'} silent for {silent:.0f} s)"
        if match_record_error(match_id=match_id, attempt=attempt, reason=reason) is not None:
            ended += 1
    if ended:
        logger.warning("sweeper: ended %d attempt(s) whose lease expired", ended)
    return ended
