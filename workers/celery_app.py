"""The Celery application, configured from Django settings (``CELERY_*``).

Run a worker with ``celery -A workers.celery_app worker``.  The broker is
Redis in production and the file-system transport of ``workers.broker_files``
(``arbiterfs://``) under ``var/`` when nothing is configured (see
tournaments/settings.py).  Tasks live in
the Django apps they serve (``tournaments/<domain>/tasks.py``) and are found
by autodiscovery; each of those modules adds its own periodic tasks to beat.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun, worker_init, worker_process_init
from kombu.transport import redis as kombu_redis

from workers import broker_files

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "tournaments.settings")
broker_files.register()  # before the settings name arbiterfs:// and anything connects


class RedisChannel(kombu_redis.Channel):
    """kombu's Redis channel, failing as a lost connection once its connection is closed.

    When Redis goes away, Celery's consumer first collects the connection
    (which forgets its transport), then closes it.  A task channel that still
    had a BRPOP in flight (a free slot) and a message delivered but not acked
    (a running match) cannot finish closing the first time (the read fails on
    the dead socket); the second time kombu builds a new connection pool to put
    the message back, from the forgotten transport, and fails with
    ``AttributeError: 'NoneType' object has no attribute 'hostname'``, which
    Celery does not count as a connection error: the worker exits.

    Raising a connection error there instead is safe: Redis is unreachable at
    that moment, so the put-back could not have succeeded, and Celery answers
    that error by reconnecting.  What stays unacked in Redis comes back after
    the visibility timeout, and the dispatcher sends a queued match again from
    the database long before that.
    """

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport: Any = self.connection
        if transport is None or transport.client is None:
            raise ConnectionError("the broker connection of this channel is closed")
        # kombu's stubs leave its private methods out.
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]
        return params


class RedisTransport(kombu_redis.Transport):
    """The Redis transport of ``redis://`` brokers (tournaments/settings.py), with the guarded channel."""

    Channel = RedisChannel


app = Celery("arbiter")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def beat_every(seconds: float, task: Any, *, queue: str, expires: float) -> None:
    """Have beat send ``task`` every ``seconds`` to ``queue``; an unconsumed message expires after ``expires``."""
    name = f"arbiter-{task.name.rsplit('.', 1)[-1].replace('_', '-')}"
    app.add_periodic_task(seconds, task.s(), name=name, queue=queue, expires=expires)


def worker_identity(*, hostname: str | None) -> str:
    """``<celery node name or host name>:<pid>``: enough to find the process that holds a lease or a build."""
    return f"{hostname or os.uname().nodename}:{os.getpid()}"[:200]


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


@worker_process_init.connect
def _own_process_group(**_: Any) -> None:
    """Each pool process leads a process group of its own, so that a signal to the worker's group
    (Ctrl-C, ``kill -TERM -PGID``, a supervisor's stop) reaches the main process alone.

    Otherwise the one SIGTERM killed pool processes at any point, one of them now and then
    while it held the lock of the pool's shared task queue: its siblings then waited on that
    lock for ever and the main process's warm shutdown with them.  The main process stops
    its pool in order instead (running matches end first); a pool process whose main
    process dies is killed by the kernel (Celery sets its parent-death signal).
    """
    os.setpgid(0, 0)


@task_prerun.connect
@task_postrun.connect
def _connections_age(**_: Any) -> None:
    """Around every task: close this thread's database connections that broke or outlived ``CONN_MAX_AGE``.

    What Django does around each request.  Celery's own fixup would close them
    all after every task (a new PostgreSQL backend per match); with
    ``CELERY_DB_REUSE_MAX`` set it leaves them open, and this keeps a connection
    that a database restart broke from failing the next task as well.
    """
    from django.db import close_old_connections

    close_old_connections()


@worker_init.connect
def _report_sandbox(**_: Any) -> None:
    """At a worker's start: log what its bot sandbox lacks; refuse to start on a slot uid range conflict.

    Then, in this main process (the subreaper its pool processes' orphans go
    to), reap the launchers a pool process killed mid-match leaves behind.
    """
    from django.conf import settings

    from workers.sandbox.start import report_at_start
    from workers.sandbox.strays import start_stray_reaper

    report_at_start(settings.ARBITER_SANDBOX)
    start_stray_reaper()
