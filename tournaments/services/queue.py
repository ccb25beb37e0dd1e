"""Handing matches to the broker.

The database says what must run; the broker only says when.  These functions
are called from ``transaction.on_commit`` so a worker never sees a match id
before its row exists.  Tasks are sent by name, so the service layer does
not import the task module (which imports the services).
"""

from __future__ import annotations

from django.conf import settings

from tournaments.scheduling import match_time_limits

RUN_MATCH = "workers.tasks.run_match"
TOURNAMENT_ENQUEUE = "workers.tasks.tournament_enqueue"


def match_send(*, match_id: int, seats: int, startup_ms: int, game_ms: int, kind: str = "tournament") -> None:
    """Send one run_match message with time limits derived from the match's clocks.

    The match's kind picks its queue (``settings.ARBITER_QUEUES``).
    """
    from workers.celery_app import app

    soft, hard = match_time_limits(
        seats=seats, startup_ms=startup_ms, game_ms=game_ms, margin_s=settings.ARBITER_TASK_MARGIN_S
    )
    queue = settings.ARBITER_QUEUES.get(kind, settings.CELERY_TASK_DEFAULT_QUEUE)
    # -- dispatcher (services/dispatch.py): note when the match's latest message left --
    from tournaments.models import Match
    from tournaments.services.clock import db_now

    Match.objects.filter(id=match_id, status=Match.Status.QUEUED).update(enqueued_at=db_now())
    # -- end dispatcher --
    app.send_task(RUN_MATCH, args=[match_id], soft_time_limit=soft, time_limit=hard, queue=queue)


def tournament_send(*, tournament_id: int) -> None:
    """Send one message that makes a worker enqueue every queued match of the tournament.

    A 100-bot round robin has thousands of matches; sending them from a
    worker keeps the web request that started the tournament short.
    """
    from workers.celery_app import app

    app.send_task(TOURNAMENT_ENQUEUE, args=[tournament_id])
