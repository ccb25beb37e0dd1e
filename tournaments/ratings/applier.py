"""Applying recorded matches to the ratings: one applier per pool at a time, many matches per transaction.

Why not simply in each recording transaction, as before: there every worker
that recorded a match of a bot waited for that bot's rating rows, locked by
another worker until its commit, so the workers of a busy pool recorded one
after the other.  Now a recorded rated match is marked ``rating_pending`` and
the pool's applier applies pending matches in finish order (``finished_at``,
then id), up to ``BATCH`` per transaction, with exactly the arithmetic of
the rebuild (``services.ratings_apply_matches``: the ratings read and
locked once, counted in memory match after match, written back once), and
clears their flags in the same transaction: a match is applied once,
however often the applier runs.  A batch costs the same seven statements
whether it holds one match or two hundred.

One applier per pool: a run holds the pool's lock (a PostgreSQL advisory
lock, for its transaction; SQLite, the embedded default, has one writer at a
time anyway).  The recording worker itself tries it at the end of its
recording transaction, without waiting (``matches.record``): when the pool
is free, which is the usual case, the match's rating changes commit with its
result; when another run holds the pool, the worker leaves its match pending
and, once committed, asks for the ``ratings_apply`` task on the short-task
queue, which waits for the lock and applies whatever is pending.  Beat's
catch-up (every ``ARBITER_RATINGS_APPLY_EVERY_S``) applies what a lost
message left.  No worker ever waits for another's rating rows.

Order: matches are applied in finish order, but two may commit out of that
order; what counts is the order of application, which
``rebuild.ratings_replay`` follows (a match's first rating change's id), so
live ratings always equal the rebuild.
"""

from __future__ import annotations

import logging
import zlib

from django.conf import settings
from django.db import connection, transaction

from tournaments.matches.models import Match
from tournaments.prepared import prepared_cursor
from tournaments.ratings.services import RatedSeat, ratings_apply_matches
from tournaments.ratings.tasks import ratings_apply

logger = logging.getLogger(__name__)

# Matches applied per transaction.
BATCH = 200
# The advisory lock's first key: the ratings' pools (the second is the pool's checksum).
_LOCK_CLASS = 7_311


def _pool_lock(pool: str, *, wait: bool) -> bool:
    """Take the pool's applier lock until this transaction ends; False when another run holds it and not ``wait``."""
    if connection.vendor != "postgresql":
        return True
    key = zlib.crc32(pool.encode()) - 2**31  # PostgreSQL's int4
    with prepared_cursor() as cursor:
        if wait:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, key])
            return True
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, key])
        return bool(cursor.fetchone()[0])


# A pool's pending matches in finish order, up to a batch, with their seats and each seat's owner:
# one statement (a match without seats, which cannot be, would still be read and cleared).
_PENDING_SQL = """
WITH pending AS (
    SELECT id, finished_at FROM matches_match
    WHERE rating_pending AND rating_pool = %s
    ORDER BY finished_at, id LIMIT %s
)
SELECT p.id, s.seat, s.team, s.rank, s.bot_version_id, b.owner_id
FROM pending p
LEFT JOIN matches_matchseat s ON s.match_id = p.id
LEFT JOIN bots_botversion v ON v.id = s.bot_version_id
LEFT JOIN bots_bot b ON b.id = v.bot_id
ORDER BY p.finished_at, p.id, s.seat
"""


def _pending(pool: str) -> dict[int, list[RatedSeat]]:
    """Up to BATCH pending matches of the pool, in finish order, each with its seats."""
    matches: dict[int, list[RatedSeat]] = {}
    with prepared_cursor() as cursor:
        cursor.execute(_PENDING_SQL, [pool, BATCH])
        for match_id, seat, team, rank, version_id, owner_id in cursor.fetchall():
            seats = matches.setdefault(match_id, [])
            if seat is not None:
                seats.append(RatedSeat(seat=seat, team=team, rank=rank, bot_version_id=version_id, owner_id=owner_id))
    return matches


def _apply_batch(pool: str, *, wait: bool) -> int | None:
    """Apply up to BATCH pending matches of the pool in one transaction; None when another run holds it.

    A fixed number of statements however many matches (``ratings_apply_matches``).
    """
    with transaction.atomic():
        if not _pool_lock(pool, wait=wait):
            return None
        matches = _pending(pool)
        if not matches:
            return 0
        ratings_apply_matches(pool=pool, matches=list(matches.items()))
        Match.objects.filter(id__in=list(matches)).update(rating_pending=False)
    return len(matches)


def ratings_apply_pending(*, pool: str, wait: bool = True) -> int | None:
    """Apply every recorded match of ``pool`` whose rating changes are pending; returns how many this run applied.

    ``wait``: for another run of the pool's applier to end first (a task on the
    short-task queue may wait); without it, returns None at once when another
    run holds the pool (a recording worker, which then asks for the task).
    """
    applied = 0
    while True:
        done = _apply_batch(pool, wait=wait)
        if done is None:
            return None
        if not done:
            return applied
        applied += done
        if done < BATCH:
            return applied


def ratings_apply_all() -> int:
    """Apply what is pending in every pool (beat's catch-up); returns how many matches were applied."""
    pending = Match.objects.filter(rating_pending=True).order_by()  # no ordering column in the DISTINCT
    pools = list(pending.values_list("rating_pool", flat=True).distinct())
    return sum(ratings_apply_pending(pool=pool) or 0 for pool in pools)


def ratings_apply_soon(*, pool: str) -> None:
    """Ask for the pool's applier on the short-task queue; never raises (beat's catch-up applies it otherwise)."""
    try:
        ratings_apply.apply_async(args=(pool,), queue=settings.ARBITER_BEAT_QUEUE)
    except Exception:  # the broker is away: the catch-up applies the match within its interval
        logger.warning("could not ask for the ratings of pool %s; beat's catch-up applies them", pool)
