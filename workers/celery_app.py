"""The Celery application, configured from Django settings (``CELERY_*``).

Run a worker with ``celery -A workers.celery_app worker``.  The broker is
Redis in production and Celery's file-system transport under ``var/``
when nothing is configured (see tournaments/settings.py).  Tasks live in
the Django apps they serve (``tournaments/<domain>/tasks.py``) and are found
by autodiscovery; each of those modules adds its own periodic tasks to beat.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
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


def queue_depths(queues: Sequence[str], *, timeout_s: int = 2) -> dict[str, int] | None:
    """Messages waiting in each queue (not those a worker holds); None when the broker cannot be asked."""
    try:
        with app.connection_for_write(connect_timeout=timeout_s) as conn:
            conn.ensure_connection(max_retries=0, timeout=timeout_s)  # 0: no retry
            channel: Any = conn.default_channel  # kombu types it as the abstract StdChannel
            depths = {}
            for queue in queues:
                try:
                    depths[queue] = channel.queue_declare(queue=queue, passive=True).message_count
                except conn.channel_errors:
                    # Redis drops an empty list, and a restarted broker knows no queue at all: nothing waits.
                    depths[queue] = 0
                    channel = conn.channel()
            return depths
    except Exception:  # an unreachable broker: the caller decides what "unknown" means
        return None


@worker_init.connect
def _report_sandbox(**_: Any) -> None:
    """At a worker's start: log what its bot sandbox lacks; refuse to start on a slot uid range conflict.

    Then, in this main process (the subreaper its pool processes' orphans go
    to), reap the launchers a pool process killed mid-match leaves behind.
    """
    from django.conf import settings

    from workers.sandbox import report_at_start
    from workers.strays import start_stray_reaper

    report_at_start(settings.ARBITER_SANDBOX)
    start_stray_reaper()
