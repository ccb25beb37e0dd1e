"""Celery tasks of builds: build one version, send again the builds that wait too long.

Tasks take ids and call one service (``tournaments.bots.builds``), imported when they run.
"""

from __future__ import annotations

from celery import Task
from django.conf import settings

from workers.celery_app import app, beat_every, worker_identity


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def version_build(self: Task, version_id: int) -> str:
    """Build one version here if this worker has its runtime and nobody else holds it."""
    from tournaments.bots.builds import version_build_run

    return version_build_run(version_id=version_id, worker=worker_identity(hostname=self.request.hostname))


@app.task(ignore_result=True, acks_late=False)
def builds_sweep() -> int:
    """Send again the builds whose message or worker was lost (scheduled by beat)."""
    from tournaments.bots.builds import builds_resend

    return builds_resend()


beat_every(settings.ARBITER_SWEEP_EVERY_S, builds_sweep, queue=settings.ARBITER_BEAT_QUEUE,
           expires=4 * settings.ARBITER_SWEEP_EVERY_S)  # fmt: skip
