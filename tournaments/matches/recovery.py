"""Recovering lost work: the lease sweeper and the dispatcher.

**Leases.**  A claim gives the claiming worker a lease on the match: the row
records the worker (``host:pid``), the attempt number and a heartbeat time,
renewed every ``ARBITER_HEARTBEAT_S`` seconds while it plays.  A worker that
dies (kill -9, a lost machine, a cut network link) stops renewing; once its
lease is older than ``ARBITER_LEASE_S`` the sweeper (``matches_expire_leases``,
run by beat) ends that attempt as an infrastructure error: the match is
QUEUED again and re-sent, or ERRORED with the reason once it has used up
``ARBITER_MATCH_MAX_ATTEMPTS``.  Never a forfeit, never a rating change.  If
the silent worker was only slow and comes back, its result carries the old
attempt number and ``match_record_result`` drops it (and logs it).

**The dispatcher.**  The database is the source of truth for what must run.
Every run_match message stamps ``Match.enqueued_at``.  If the broker loses
its messages (Redis restarted empty, a queue purged by hand, a send that
failed after the row was committed), the rows stay QUEUED with no message
and nothing would ever run them.  Beat runs ``matches_dispatch`` every
``ARBITER_DISPATCH_EVERY_S`` seconds; it re-sends QUEUED matches whose last
message is older than ``ARBITER_DISPATCH_AFTER_S``.

A duplicate message is harmless (the claim is a conditional UPDATE, so the
second copy finds the match taken and does nothing) but costs a round trip,
so the dispatcher holds back while the broker still holds at least one
waiting message per QUEUED match: then nothing can be missing yet.  Once
the backlog drains below that, any match still without a message is stale
and is re-sent, so every queued match is eventually run.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from tournaments.dbclock import db_clock, db_now
from tournaments.matches.life import match_record_error, matches_enqueue
from tournaments.matches.models import Match
from workers.celery_app import queue_depths

logger = logging.getLogger(__name__)


def match_queues() -> list[str]:
    """Every queue a run_match message may sit in."""
    queues = settings.ARBITER_QUEUES
    return list(dict.fromkeys(queues.values()))


def broker_backlog(*, queues: list[str]) -> int | None:
    """Messages waiting in ``queues`` (not those a worker holds), or None when the broker cannot say."""
    depths = queue_depths(queues)
    if depths is None:
        logger.warning("dispatcher: could not read the broker's backlog")
        return None
    return sum(depths.values())


def matches_dispatch(*, older_than_s: float | None = None, limit: int | None = None) -> int:
    """Re-send QUEUED matches whose message may be lost; returns how many were re-sent."""
    older_than_s = settings.ARBITER_DISPATCH_AFTER_S if older_than_s is None else older_than_s
    limit = limit or settings.ARBITER_DISPATCH_BATCH
    cutoff = db_clock() - timedelta(seconds=older_than_s)
    # Never sent at all (a lost tournament_enqueue): measured from creation.
    stale = Q(enqueued_at__lt=cutoff) | Q(enqueued_at__isnull=True, created__lt=cutoff)
    queued = Match.objects.filter(status=Match.Status.QUEUED)
    if not queued.filter(stale).exists():
        return 0
    waiting = queued.count()
    backlog = broker_backlog(queues=match_queues())
    if backlog is not None and backlog >= waiting:
        logger.info("dispatcher: %d queued match(es), %d message(s) waiting: nothing to re-send", waiting, backlog)
        return 0
    with transaction.atomic():
        # skip_locked: two dispatchers running at once split the work instead of doubling it.
        ids = list(
            queued.filter(stale).select_for_update(skip_locked=True).order_by("id").values_list("id", flat=True)[:limit]
        )
        # Stamped now, not at send time: a second dispatcher must not find these stale meanwhile.
        Match.objects.filter(id__in=ids).update(enqueued_at=db_now())
        matches_enqueue(match_ids=ids)
    logger.warning(
        "dispatcher: re-sent %d queued match(es) (%d queued, %s message(s) waiting)",
        len(ids),
        waiting,
        "unknown" if backlog is None else backlog,
    )
    return len(ids)


def matches_expire_leases(*, now: datetime | None = None) -> int:
    """End every running attempt whose lease has expired; returns how many were ended.

    Each is ended with ``match_record_error`` under the attempt it was found
    with, so a heartbeat or a result that lands in between wins and the
    sweeper changes nothing.
    """
    now = now or db_clock()
    cutoff = now - timedelta(seconds=settings.ARBITER_LEASE_S)
    expired = list(
        Match.objects.filter(status=Match.Status.RUNNING, heartbeat_at__lt=cutoff)
        .order_by("id")
        .values_list("id", "attempt", "worker", "heartbeat_at")
    )
    ended = 0
    for match_id, attempt, worker, heartbeat_at in expired:
        silent = (now - heartbeat_at).total_seconds() if heartbeat_at else 0.0
        reason = f"infrastructure: lease expired (worker {worker or '?'} silent for {silent:.0f} s)"
        if match_record_error(match_id=match_id, attempt=attempt, reason=reason) is not None:
            ended += 1
    if ended:
        logger.warning("sweeper: ended %d attempt(s) whose lease expired", ended)
    return ended
