"""The Celery application, configured from Django settings (``CELERY_*``).

Run a worker with ``celery -A workers.celery_app worker``.  The broker is
Redis in production and Celery's file-system transport under ``var/``
when nothing is configured (see tournaments/settings.py).  Tasks live in
the Django apps they serve (``tournaments/<domain>/tasks.py``) and are found
by autodiscovery; each of those modules adds its own periodic tasks to beat.
"""

from __future__ import annotations

import os
from typing import Any

from celery import Celery
from celery.signals import worker_init

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")

app = Celery("arbiter")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def beat_every(seconds: float, task: Any, *, queue: str, expires: float) -> None:
    """Have beat send ``task`` every ``seconds`` to ``queue``; an unconsumed message expires after ``expires``."""
    name = f"arbiter-{task.name.rsplit('.', 1)[-1].replace('_', '-')}"
    app.add_periodic_task(seconds, task.s(), name=name, queue=queue, expires=expires)


@worker_init.connect
def _report_sandbox(**_: Any) -> None:
    """At a worker's start: log what its bot sandbox lacks; refuse to start on a slot uid range conflict."""
    from django.conf import settings

    from workers.sandbox import report_at_start

    report_at_start(settings.ARBITER_SANDBOX)
