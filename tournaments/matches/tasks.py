"""Celery tasks of a match's life: run one, sweep expired leases, re-send lost messages.

Tasks take ids and call one service.  Services send these tasks, so each
task imports its service when it runs (the services import this module,
never the other way round at import time).
"""

from __future__ import annotations

import logging
import time

from celery import Task
from celery.exceptions import Reject
from django.conf import settings

from workers.celery_app import app, beat_every, worker_identity

logger = logging.getLogger(__name__)

# run_next messages one wake task sends before handing the rest to the next one.
WAKE_SLICE = 1000
# How long an unfit worker holds a message before giving it back.
UNFIT_PAUSE_S = 5.0


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_next(self: Task) -> str:
    """Claim the fairest queued match, play it and record it (a message names no match); then the next ones.

    While matches are queued, the process claims the next one itself for up
    to ``ARBITER_RUN_LOOP_S`` (``matches.runner.match_run_loop``): a message
    and its acknowledgement per match cost a broker round trip between every
    two matches.  A worker that fails its self-check puts the message back
    for another worker, after a pause so that it does not spin on it.
    """
    from tournaments.matches.runner import WorkerUnfitError, match_run_loop

    try:
        return match_run_loop(
            worker=worker_identity(hostname=self.request.hostname), seconds=settings.ARBITER_RUN_LOOP_S
        )
    except WorkerUnfitError as exc:
        logger.warning("this worker failed its self-check (%s): the message goes back", exc)
        time.sleep(UNFIT_PAUSE_S)
        raise Reject("this worker failed its self-check", requeue=True) from None


@app.task(ignore_result=True, acks_late=False)
def matches_wake_task(count: int) -> int:
    """Send ``count`` run_next messages (a big batch of new matches), a slice at a time.

    It runs on the short-task queue: each slice is short, and the rest goes
    back in the queue behind whatever else waits there (a sweep, a top-up).
    """
    from tournaments.matches.life import matches_wake

    now = min(count, WAKE_SLICE)
    sent = matches_wake(count=now)
    if count > now and sent == now:
        matches_wake_task.apply_async(args=(count - now,), queue=settings.ARBITER_BEAT_QUEUE)
    return sent


# The sweeper and the dispatcher are acknowledged on receipt: a lost run is harmless (beat
# sends another), and a worker holding no unacknowledged message survives a broker restart
# better (kombu's Redis transport can crash while restoring them on a lost connection).
@app.task(ignore_result=True, acks_late=False)
def matches_sweep() -> int:
    """Re-queue (or error) running matches whose lease expired (scheduled by beat)."""
    from tournaments.matches.recovery import matches_expire_leases

    return matches_expire_leases()


@app.task(ignore_result=True, acks_late=False)
def matches_unrunnable() -> int:
    """End queued matches that waited too long for a worker with their runtime (scheduled by beat)."""
    from tournaments.matches.recovery import matches_end_unrunnable

    return matches_end_unrunnable()


@app.task(ignore_result=True, acks_late=False)
def matches_dispatch() -> int:
    """Re-send queued matches whose message the broker may have lost (scheduled by beat)."""
    from tournaments.matches.recovery import matches_dispatch as dispatch

    return dispatch()


# Both are cheap and idempotent; they share the beat queue, which a small worker on the
# scheduler machine consumes so they never wait behind long matches.  A few intervals
# of expiry keep a backlog bounded.
for _task, _every in (
    (matches_sweep, settings.ARBITER_SWEEP_EVERY_S),
    (matches_dispatch, settings.ARBITER_DISPATCH_EVERY_S),
    (matches_unrunnable, settings.ARBITER_DISPATCH_EVERY_S),
):
    beat_every(_every, _task, queue=settings.ARBITER_BEAT_QUEUE, expires=4 * _every)
