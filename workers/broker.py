"""Celery's Redis transport with one guard, so that a worker reconnects after Redis goes away.

When the broker connection breaks, Celery's consumer first collects the
connection (which forgets its transport) and then closes it.  If the task
channel still had a BRPOP in flight and messages delivered but not acked, the
first pass cannot finish closing it (the read fails on the dead socket) and the
second pass asks kombu's Redis channel for a new connection pool to put those
messages back: with the transport already forgotten, building it fails with
``AttributeError: 'NoneType' object has no attribute 'hostname'``, which
Celery does not count as a connection error and the worker exits.

The guard raises a connection error there instead: Redis is unreachable at
that moment anyway, so the put-back could not have succeeded, and Celery
already treats that error as "broker lost, reconnect".  What stays unacked in
Redis comes back after the visibility timeout, and the dispatcher resends a
queued match from the database long before that.
"""

from __future__ import annotations

from typing import Any

from kombu.transport import redis as kombu_redis


class Channel(kombu_redis.Channel):
    """The Redis channel; it fails as a lost connection once its connection is closed."""

    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        transport: Any = self.connection
        if transport is None or transport.client is None:
            raise ConnectionError("the broker connection of this channel is closed")
        # kombu's stubs leave its private methods out.
        params: dict[str, Any] = super()._connparams(asynchronous=asynchronous)  # type: ignore[misc]
        return params


class Transport(kombu_redis.Transport):
    """The Redis transport (``redis://`` URLs) with the guarded channel."""

    Channel = Channel
