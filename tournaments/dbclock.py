"""One clock for every host: the database's.

Workers on several machines stamp heartbeats, claims, finish times and
enqueue times.  Their own clocks may disagree by seconds, which would make a
lease look expired too early (or never) and put two matches sharing a bot in
the wrong finish order.  On PostgreSQL every such stamp is therefore taken by
the server (``STATEMENT_TIMESTAMP()``: the start of the statement that
writes or reads it, so a stamp taken after waiting for another transaction's
locks is always later than that transaction's); the embedded SQLite setup
has one machine and uses Python's clock.

The rule, for all of Arbiter (ruff's banned-api, TID251, holds code to it):

* Every time written to a row (a claim, a heartbeat, a start, a finish, an
  expiry, a next run, a refit request) and every time compared with one (a
  lease's end, "the past hour", "today", a due start or run) is the
  database's.  Times users give (a tournament's ``start_at``, a schedule's
  time of day) are read on that clock too: the beat compares them with it.
* ``db_now()`` is for a time that goes into a query: an UPDATE, a create or
  a filter, at no extra cost.  On PostgreSQL it is an expression, so it may
  be offset by a timedelta inside the query, but it is never read back from
  a model instance nor used in Python.  ``db_clock()`` costs a round trip
  and gives a datetime: for arithmetic, a date, a stamp set on an instance
  that is read or returned afterwards, a ``now`` handed on to other services.
* A service that takes ``now=`` (for tests) defaults it to ``db_clock()``,
  or to ``db_now()`` where the time only goes into its own queries and a
  statement more would count (once per match); tests and benchmarks that
  compare times with stamps take them from here.
* Python's wall clock (django.utils.timezone's ``now``, datetime's ``now``
  and ``utcnow``) is read here alone, for SQLite; anywhere else only for a
  time that is neither stored nor compared with a stored one, on a line
  marked ``# noqa: TID251`` with the reason.  Durations within one process
  (``time.monotonic``), the ages of files and the throttle's windows in the
  cache (``time.time``) are no row's times: the rule leaves them alone.
* Not yet under the rule: Django's ``auto_now_add`` and ``auto_now``
  (``created``, ``updated``, ``synced_at``) stamp with the saving host's
  clock.  They are shown, and compared only with cut-offs of an hour or
  more (tournaments per hour, challenges per UTC day, the ladder's window,
  idempotency keys' lifetime), where seconds of skew do not matter;
  ``db_default=Now()`` would bring them under it, with a migration per app.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models.functions import Now
from django.utils import timezone


def _server_clock() -> bool:
    return connection.vendor == "postgresql"


def _python_clock() -> datetime:
    return timezone.now()  # noqa: TID251 - the rule's one reading of Python's clock: SQLite's, one machine


def db_now() -> Any:
    """A time for a query (a write or a filter): the database's (an expression) or, on SQLite, ours."""
    return Now() if _server_clock() else _python_clock()


def db_clock() -> datetime:
    """The database's current time as a value, for cut-offs computed in Python and stamps read back."""
    if not _server_clock():
        return _python_clock()
    with connection.cursor() as cursor:
        cursor.execute("SELECT STATEMENT_TIMESTAMP()")
        return cursor.fetchone()[0]
