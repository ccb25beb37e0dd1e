"""Statements a worker runs for every match, planned once per connection (PostgreSQL).

Django's PostgreSQL backend binds parameters on the client: every statement
reaches the server as new text, to be parsed and planned afresh.  For most
statements that costs little, but the fair pick with its claim
(``matches/claim.py``: a dozen subqueries) took 2.3-2.6 ms to plan for about
1 ms of work (``EXPLAIN ANALYZE`` on a bench database), at least once a match
and on the one database every worker shares.

The cursor here binds on the server and has psycopg prepare each statement
on its connection the first time, then execute it by name (Django turns
psycopg's automatic preparing off for every connection, so it is asked for
statement by statement).  The server plans the first five runs for their
values and then keeps a generic plan when that costs no more, which for the
claim it does: its parameters are only the owner's share, three row limits
and the worker's name.  A worker keeps its connection across tasks
(``CELERY_DB_REUSE_MAX``), so the planning is paid a few times per process.

Prepared statements live on the server connection: a pooler must hand each
client the same one (PgBouncer in session mode, as ``bench.scale`` runs it,
or 1.21 and later with ``max_prepared_statements``).
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.db import connection


class _PreparingCursor(psycopg.Cursor[Any]):
    """A server-binding cursor that prepares every statement it runs (once per connection)."""

    def execute(
        self, query: Any, params: Any = None, *, prepare: bool | None = None, binary: bool | None = None
    ) -> Any:
        return super().execute(query, params, prepare=True, binary=binary)

    def _send_query_prepared(self, name: bytes, pgq: Any, *, binary: bool | None = None) -> None:
        # psycopg leaves the cursor's last query unset for a statement run by name, and Django's
        # query log (DEBUG, CaptureQueriesContext: the statement counts) reads it from there.
        self._query = pgq
        super()._send_query_prepared(name, pgq, binary=binary)


def prepared_cursor() -> Any:
    """A cursor on Django's connection whose statements are prepared on PostgreSQL (elsewhere Django's own).

    It is wrapped as ``connection.cursor()`` wraps its own (the same execute
    wrappers and, where queries are logged, the same log), so counting tests and
    ``CaptureQueriesContext`` see its statements.  For statements whose text
    repeats (placeholders, not values, in it): each distinct text is prepared once.
    """
    if connection.vendor != "postgresql":
        return connection.cursor()
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        # Django's None forbids preparing outright, even when asked.  Its own cursors bind on the
        # client and never prepare; this one asks itself, so any number lets it.
        raw.prepare_threshold = 5
    # Django's own step from a driver cursor to its wrapper (thread check, debug log).
    return connection._prepare_cursor(_PreparingCursor(raw))  # type: ignore[attr-defined]
