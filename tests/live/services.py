"""The shared PostgreSQL and Redis of a test or benchmark run: throwaway databases and private queues.

A set never touches the database named in ``ARBITER_TEST_DATABASE_URL``: it
works in a database of its own next to it (same server, a name derived from
it), and on the shared Redis only under its own queue name.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse, urlunparse

import psycopg


def with_database(url: str, name: str, host: str | None = None) -> str:
    """``url`` naming database ``name`` (and, given ``host``, that host instead, same port)."""
    parts = urlparse(url)
    if host is not None:
        netloc = parts.netloc.rsplit("@", 1)
        netloc[-1] = f"{host}:{parts.port or 5432}"
        parts = parts._replace(netloc="@".join(netloc))
    return urlunparse(parts._replace(path=f"/{name}"))


def database_name(server_url: str, suffix: str) -> str:
    """``<base>_<suffix>``, where base is the database named in ``server_url``."""
    return f"{urlparse(server_url).path.lstrip('/') or 'arbiter'}_{suffix}"


def _admin(server_url: str) -> psycopg.Connection[Any]:

    return psycopg.connect(with_database(server_url, "postgres"), autocommit=True)


def database_exists(server_url: str, name: str) -> bool:
    with _admin(server_url) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone() is not None


def database_create(server_url: str, name: str, template: str | None = None) -> str:
    """A fresh database ``name`` (dropped first if left over), empty or a copy of ``template``; its URL."""
    with _admin(server_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"' + (f' TEMPLATE "{template}"' if template else ""))
    return with_database(server_url, name)


def database_drop(server_url: str, name: str) -> None:
    with _admin(server_url) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def queue_purge(redis_url: str, queue: str) -> None:
    """Forget whatever is left in a private queue: its Redis lists and their bindings.

    The settings derive the beat queue from ARBITER_QUEUE (``<queue>.beat``):
    both start with its name.
    Kombu keeps bindings under ``_kombu.binding.<queue>`` and ``_kombu.binding_permanent.<queue>``.
    """
    import redis

    client = redis.Redis.from_url(redis_url)
    try:
        keys = [*client.scan_iter(match=f"{queue}*"), *client.scan_iter(match=f"_kombu.binding*.{queue}*")]
        if keys:
            client.delete(*keys)
    finally:
        client.close()
