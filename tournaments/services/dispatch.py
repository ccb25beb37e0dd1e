"""The dispatcher: every QUEUED match has a message somewhere, even after the broker lost them.

The database is the source of truth for what must run.  ``match_send``
stamps ``Match.enqueued_at`` whenever it sends a run_match message.  If the
broker loses its messages (Redis restarted empty, a queue purged by hand, a
send that failed after the row was committed), the rows stay QUEUED with no
message and nothing would ever run them.  Beat runs ``matches_dispatch``
every ``ARBITER_DISPATCH_EVERY_S`` seconds; it re-sends QUEUED matches whose
last message is older than ``ARBITER_DISPATCH_AFTER_S``.

A duplicate message is harmless (the claim is a conditional UPDATE, so the
second copy finds the match taken and does nothing) but costs a round trip,
so the dispatcher holds back while the broker still holds at least one
waiting message per QUEUED match: then nothing can be missing yet.  Once
the backlog drains below that, any match still without a message is stale
and is re-sent, so every queued match is eventually run.
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q

from tournaments.models import Match
from tournaments.services.clock import db_clock, db_now
from tournaments.services.queue import match_send

logger = logging.getLogger(__name__)


def match_queues() -> list[str]:
    """Every queue a run_match message may sit in."""
    queues = getattr(settings, "ARBITER_QUEUES", None) or {"tournament": settings.CELERY_TASK_DEFAULT_QUEUE}
    return list(dict.fromkeys(queues.values()))


def broker_backlog(*, queues: list[str]) -> int | None:
    """Messages waiting in ``queues`` (not those a worker holds), or None when the broker cannot say."""
    from workers.celery_app import app

    try:
        with app.connection_for_write() as conn:
            channel = conn.default_channel
            total = 0
            for queue in queues:
                try:
                    total += channel.queue_declare(queue=queue, passive=True).message_count
                except conn.channel_errors:
                    # Redis drops an empty list, and a restarted broker knows no queue at all.
                    channel = conn.channel()
            return total
    except Exception:  # an unreachable broker: we cannot tell, so do not hold back
        logger.warning("dispatcher: could not read the broker's backlog", exc_info=True)
        return None


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
        rows = list(
            queued.filter(stale)
            .select_for_update(skip_locked=True)
            .order_by("id")
            .values("id", "seats", "startup_ms", "game_ms", "kind")[:limit]
        )
        Match.objects.filter(id__in=[r["id"] for r in rows]).update(enqueued_at=db_now())

        def send() -> None:
            for r in rows:
                match_send(
                    match_id=r["id"], seats=r["seats"], startup_ms=r["startup_ms"], game_ms=r["game_ms"], kind=r["kind"]
                )

        transaction.on_commit(send)
    logger.warning(
        "dispatcher: re-sent %d queued match(es) (%d queued, %s message(s) waiting)",
        len(rows),
        waiting,
        "unknown" if backlog is None else backlog,
    )
    return len(rows)
