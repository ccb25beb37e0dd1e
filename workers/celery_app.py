"""The Celery application, configured from Django settings (``CELERY_*``).

Run a worker with ``celery -A workers.celery_app worker``.  The broker is
Redis in production and Celery's file-system transport under ``var/``
when nothing is configured (see tournaments/settings.py).
"""

from __future__ import annotations

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

# Tasks live in workers/tasks.py, outside the Django app, so name the module;
# it is imported when the worker starts, after Celery's Django fix-up has set Django up.
app = Celery("arbiter", include=["workers.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")


# -- beat: start times, recurring schedules, ladders (docs/organisers.md) --
# Intervals come from settings (env ARBITER_SCHEDULE_POLL_S, ARBITER_LADDER_POLL_S).
# These messages go to their own small queue so a long tournament queue cannot
# delay them, and expire after one interval so a stopped worker finds no backlog.
@app.on_after_configure.connect
def _schedules_beat(sender: Celery, **kwargs: object) -> None:
    from django.conf import settings

    for name, task, every in (
        ("arbiter-tournaments-start-due", "workers.tasks.tournaments_start_due", settings.ARBITER_SCHEDULE_POLL_S),
        ("arbiter-schedules-run-due", "workers.tasks.schedules_run_due", settings.ARBITER_SCHEDULE_POLL_S),
        ("arbiter-ladders-top-up", "workers.tasks.ladders_top_up", settings.ARBITER_LADDER_POLL_S),
    ):
        sender.add_periodic_task(
            every, sender.signature(task), name=name, queue=settings.ARBITER_BEAT_QUEUE, expires=every
        )


# -- end beat: start times, recurring schedules, ladders --


# -- beat: lease sweeper and dispatcher (docs/operations.md) --
# Intervals come from settings (env ARBITER_SWEEP_EVERY_S, ARBITER_DISPATCH_EVERY_S).
# Both tasks are cheap and idempotent; they share the beat queue, which a small
# worker on the scheduler machine should consume (-Q <queue>.beat) so they never
# wait behind long matches.  A few intervals of expiry keep a backlog bounded.
@app.on_after_configure.connect
def _exactly_once_beat(sender: Celery, **kwargs: object) -> None:
    from django.conf import settings

    for name, task, every in (
        ("arbiter-matches-sweep", "workers.tasks.matches_sweep", settings.ARBITER_SWEEP_EVERY_S),
        ("arbiter-matches-dispatch", "workers.tasks.matches_dispatch", settings.ARBITER_DISPATCH_EVERY_S),
    ):
        sender.add_periodic_task(
            every, sender.signature(task), name=name, queue=settings.ARBITER_BEAT_QUEUE, expires=4 * every
        )


# -- end beat: lease sweeper and dispatcher --
