"""One clock for every host: the database's.

Workers on several machines stamp heartbeats, claims, finish times and
enqueue times.  Their own clocks may disagree by seconds, which would make a
lease look expired too early (or never) and put two matches sharing a bot in
the wrong finish order.  On PostgreSQL every such stamp is therefore taken by
the server (``STATEMENT_TIMESTAMP()``: the start of the statement that
writes or reads it, so a stamp taken after waiting for another transaction's
locks is always later than that transaction's); the embedded SQLite setup
has one machine and uses Python's clock.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db import connection
from django.db.models.functions import Now
from django.utils import timezone


def _server_clock() -> bool:
    return connection.vendor == "postgresql"


def db_now() -> Any:
    """A value for a DateTimeField write: the database's time (an expression) or, on SQLite, ours."""
    return Now() if _server_clock() else timezone.now()


def db_clock() -> datetime:
    """The database's current time as a value, for cut-offs computed in Python."""
    if not _server_clock():
        return timezone.now()
    with connection.cursor() as cursor:
        cursor.execute("SELECT STATEMENT_TIMESTAMP()")
        return cursor.fetchone()[0]
