"""Applying recorded matches to the ratings: one applier per pool at a time, many matches per transaction.

Why not in the recording transaction: there every worker that recorded a
match of a bot held that bot's rating rows locked until its commit, so the
workers of a busy pool recorded one after the other.  Now a worker records
its match (``matches.record.match_record_result``) with ``rating_pending`` set
and touches no rating row; the pool's applier applies pending matches in
finish order (``finished_at``, then id), up to ``BATCH`` per transaction,
each with exactly the arithmetic of the live path and the rebuild
(``services.ratings_apply_match``), and clears their flags in the same
transaction: a match is applied once, however often the applier runs.

One applier per pool: each run takes the pool's lock without waiting (a
PostgreSQL advisory lock for the transaction; SQLite, the embedded default,
has one writer at a time anyway) and leaves at once when another run holds
it, which takes whatever is pending when it looks.  A match recorded while
another run held the lock is applied by the next run: the one its own
record's message asks for, the next match of the pool, or the catch-up that
beat runs every ``ARBITER_RATINGS_APPLY_EVERY_S`` (which also covers a lost
message or a worker killed between its record and its message).

Order: the applier applies in finish order, but two matches may commit out of
that order; what counts is the order of application, which
``rebuild.ratings_replay`` follows (a match's first rating change's id, then
the pending ones in finish order), so live ratings always equal the rebuild.
"""

from __future__ import annotations

import logging
import zlib

from django.conf import settings
from django.db import connection, transaction

from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.services import ratings_apply_match
from tournaments.ratings.tasks import ratings_apply

logger = logging.getLogger(__name__)

# Matches applied per transaction.
BATCH = 200
# The advisory lock's first key: the ratings' pools (the second is the pool's checksum).
_LOCK_CLASS = 7_311


def _pool_lock(pool: str) -> bool:
    """Take the pool's applier lock for this transaction, without waiting; False when another run holds it."""
    if connection.vendor != "postgresql":
        return True
    key = zlib.crc32(pool.encode()) - 2**31  # PostgreSQL's int4
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_xact_lock(%s, %s)", [_LOCK_CLASS, key])
        return bool(cursor.fetchone()[0])


def _apply_batch(pool: str) -> int | None:
    """Apply up to BATCH pending matches of the pool in one transaction; None when another run holds it."""
    with transaction.atomic():
        if not _pool_lock(pool):
            return None
        matches = list(
            Match.objects.filter(rating_pending=True, rating_pool=pool)
            .order_by("finished_at", "id")
            .only("id", "rating_pool")[:BATCH]
        )
        if not matches:
            return 0
        seats: dict[int, list[MatchSeat]] = {m.pk: [] for m in matches}
        for seat in MatchSeat.objects.filter(match_id__in=list(seats)).order_by("match_id", "seat"):
            seats[seat.match_id].append(seat)
        for match in matches:
            ratings_apply_match(match=match, seats=seats[match.pk])
        Match.objects.filter(id__in=list(seats)).update(rating_pending=False)
    return len(matches)


def ratings_apply_pending(*, pool: str) -> int:
    """Apply every recorded match of ``pool`` whose rating changes are pending; returns how many this run applied.

    Returns at once (0) when another run applies the pool: that run, or the
    next one, takes what is pending (see the module's docstring).
    """
    applied = 0
    while True:
        done = _apply_batch(pool)
        if not done:
            return applied
        applied += done
        if done < BATCH:
            return applied


def ratings_apply_all() -> int:
    """Apply what is pending in every pool (beat's catch-up); returns how many matches were applied."""
    pending = Match.objects.filter(rating_pending=True).order_by()  # no ordering column in the DISTINCT
    pools = list(pending.values_list("rating_pool", flat=True).distinct())
    return sum(ratings_apply_pending(pool=pool) for pool in pools)


def ratings_apply_soon(*, pool: str) -> None:
    """Ask for the pool's applier on the short-task queue; never raises (beat's catch-up applies it otherwise)."""
    try:
        ratings_apply.apply_async(args=(pool,), queue=settings.ARBITER_BEAT_QUEUE)
    except Exception:  # the broker is away: the catch-up applies the match within its interval
        logger.warning("could not ask for the ratings of pool %s; beat's catch-up applies them", pool)
