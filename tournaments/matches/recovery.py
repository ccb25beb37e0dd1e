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

**Outages.**  A lease counts only time the sweeper itself was watching.  When
the sweeper comes back after not running for a while (the database was down,
or beat was), every worker's renewals failed as well, through no fault of
theirs; so for one lease after its return it ends nothing, and the workers
that kept playing record their results under the attempts they hold.

**The dispatcher.**  The database is the source of truth for what must run;
the broker holds one ``run_next`` message per queued match (a message names no
match: the worker claims the fairest one, matches/queue.py).  If the broker
loses messages (Redis restarted empty, a queue purged by hand, a send that
failed while the broker was down), queued matches outnumber the messages and
some would never run.  Beat runs ``matches_dispatch`` every
``ARBITER_DISPATCH_EVERY_S`` seconds: it sends as many messages as are
missing, so every match is announced once, and never more than once while
the broker keeps what it is given.  A message too many is harmless: the
worker that takes it finds nothing to claim and stops.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import Count

from tournaments.dbclock import db_clock
from tournaments.matches.life import matches_wake
from tournaments.matches.marks import EXPIRED, SWEEP, SWEEP_RESUMED, WORKER_LOST, recovery_mark
from tournaments.matches.models import Match, RecoveryMark
from tournaments.matches.queue import queued_count
from tournaments.matches.record import match_end_unrunnable, match_record_error
from workers.celery_app import queue_depths

logger = logging.getLogger(__name__)


def _sweep_resumed(now: datetime) -> datetime | None:
    """Note this sweep; when the sweeper had not run for a while, now.  Returns when it last resumed."""
    marks = dict(RecoveryMark.objects.filter(name__in=[SWEEP, SWEEP_RESUMED]).values_list("name", "at"))
    last, resumed = marks.get(SWEEP), marks.get(SWEEP_RESUMED)
    # A gap that could have cost a live worker its lease; three missed sweeps at most.
    gap = min(3 * settings.ARBITER_SWEEP_EVERY_S, settings.ARBITER_LEASE_S / 2)
    if last is not None and (now - last).total_seconds() > gap:
        logger.warning("sweeper: back after %.0f s without a sweep; no lease ends for %.0f s",
                       (now - last).total_seconds(), settings.ARBITER_LEASE_S)  # fmt: skip
        recovery_mark(name=SWEEP_RESUMED, add=1, at=now)
        resumed = now
    recovery_mark(name=SWEEP, add=1, at=now)
    return resumed


def matches_dispatch(*, limit: int | None = None) -> int:
    """Send the run_next messages the broker is missing; returns how many were sent."""
    queued = queued_count()
    if queued == 0:
        return 0
    depths = queue_depths([settings.CELERY_TASK_DEFAULT_QUEUE])
    if depths is None:
        logger.warning("dispatcher: %d queued match(es), the broker cannot be asked: nothing sent", queued)
        return 0
    waiting = sum(depths.values())
    missing = min(queued - waiting, limit or settings.ARBITER_DISPATCH_BATCH)
    if missing <= 0:
        return 0
    sent = matches_wake(count=missing)
    logger.warning("dispatcher: %d queued match(es), %d message(s) waiting: sent %d", queued, waiting, sent)
    return sent


def matches_end_unrunnable(*, now: datetime | None = None) -> int:
    """End the queued matches that waited ``ARBITER_RUNTIME_WAIT_S`` for a worker with their runtime.

    Only when no worker ran that runtime all that time: a busy worker that has
    it (a long queue) makes the match wait its turn, not end.
    """
    now = now or db_clock()
    limit = settings.ARBITER_RUNTIME_WAIT_S
    cutoff = now - timedelta(seconds=limit)
    rows = (
        Match.objects.filter(status=Match.Status.QUEUED, waiting_since__lt=cutoff)
        .exclude(waiting_for="")
        .values_list("id", "waiting_for", "waiting_since")
    )
    ended = 0
    served: dict[str, bool] = {}
    for match_id, waiting_for, since in list(rows):
        if since is None:
            continue
        # Some worker ran this runtime within the window: it exists and is busy, the match waits its turn.
        runtimes = [r for r in waiting_for.split(", ") if r]
        if any(_runtime_served(runtime=r, since=cutoff, cache=served) for r in runtimes):
            continue
        ended += match_end_unrunnable(match_id=match_id, waited_s=(now - since).total_seconds())
    return ended


def _runtime_served(*, runtime: str, since: datetime, cache: dict[str, bool]) -> bool:
    """Did any worker claim a match needing ``runtime`` after ``since``?"""
    if runtime not in cache:
        cache[runtime] = Match.objects.filter(
            claimed_at__gte=since, match_seats__bot_version__command__0=runtime
        ).exists()
    return cache[runtime]


def matches_waiting_for_runtimes() -> dict[str, int]:
    """Queued matches a worker could not run, by the runtime(s) they wait for (for /healthz)."""
    rows = (
        Match.objects.filter(status=Match.Status.QUEUED)
        .exclude(waiting_for="")
        .values_list("waiting_for")
        .annotate(n=Count("id"))
    )
    return {runtime: n for runtime, n in rows}


def matches_expire_leases(*, now: datetime | None = None) -> int:
    """End every running attempt whose lease has expired; returns how many were ended.

    Each is ended with ``match_record_error`` under the attempt it was found
    with, so a heartbeat or a result that lands in between wins and the
    sweeper changes nothing.
    """
    now = now or db_clock()
    cutoff = now - timedelta(seconds=settings.ARBITER_LEASE_S)
    resumed = _sweep_resumed(now)
    if resumed is not None and resumed > cutoff:
        return 0
    expired = list(
        Match.objects.filter(status=Match.Status.RUNNING, heartbeat_at__lt=cutoff)
        .order_by("id")
        .values_list("id", "attempt", "worker", "heartbeat_at")
    )
    ended = 0
    for match_id, attempt, worker, heartbeat_at in expired:
        silent = (now - heartbeat_at).total_seconds() if heartbeat_at else 0.0
        reason = f"infrastructure: lease expired (worker {worker or '?'} silent for {silent:.0f} s)"
        if match_record_error(match_id=match_id, attempt=attempt, reason=reason, cause=WORKER_LOST) is not None:
            ended += 1
    if ended:
        recovery_mark(name=EXPIRED, add=ended)
        logger.warning("sweeper: ended %d attempt(s) whose lease expired", ended)
    return ended
