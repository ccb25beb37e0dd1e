"""A match's end written: its result, a service error, a match nobody could run, errored ones run again.

A result or an error is written only while the match is RUNNING under the
attempt that claimed it (a conditional UPDATE), and its rating changes are
applied once (the pool's applier clears the match's ``rating_pending`` in the
transaction that applies them, ``ratings/applier.py``), so a redelivered or
re-run match never counts twice.  The consequences, in order, are in
``matches.life``.

Why the record is written as it is: every worker pays it for every match
against the one database.  On PostgreSQL a result is one UPDATE of the match
that both checks the attempt and returns the row for the hooks, and one
UPDATE of all its seats; the tournament's row is not locked: its count of
ended matches (``matches.tally``) is added to last, and held only until the
commit.  SQLite, the embedded default, reads the match and its seats first.
"""

from __future__ import annotations

import json
import logging
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import QuerySet

from tournaments.dbclock import db_clock
from tournaments.matches.hooks import match_ended, match_ratings, match_requeued, match_tallied
from tournaments.matches.life import matches_enqueue
from tournaments.matches.marks import RERUN_PREFIX, WORKER, recovery_mark
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.tally import tally_add
from tournaments.prepared import prepared_cursor
from workers.match import MatchRecord

logger = logging.getLogger(__name__)

STDERR_LIMIT = 64 * 1024


def _tournaments_lock(tournament_ids: QuerySet[Any] | Iterable[int | None]) -> None:
    """Lock tournament rows, in id order (``tournament_ids``: ids, or a query of them: one statement).

    Always tournaments first, then matches: tournament_cancel takes the same
    order, so the two cannot deadlock.
    """
    ids: Any = tournament_ids if isinstance(tournament_ids, QuerySet) else [t for t in tournament_ids if t is not None]
    tournaments = Match._meta.get_field("tournament").related_model._default_manager
    list(tournaments.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))


def _tournament_of(match_id: int) -> QuerySet[Any]:
    return Match.objects.filter(id=match_id).values_list("tournament_id", flat=True)


def _dropped(match_id: int, attempt: int, match: Match | None) -> None:
    if match is None:
        logger.warning("match %s vanished", match_id)
    else:
        logger.warning(
            "dropping result of match %s attempt %s: it is %s under attempt %s",
            match_id,
            attempt,
            match.status,
            match.attempt,
        )


def _ended(match: Match) -> None:
    """What follows a match's end, in its transaction: its kind's hooks, then its tournament's count.

    The count comes last: its row is held from there to the commit, and the
    competition decides from it whether the tournament is finished.
    """
    match_ended(match)
    if match.tournament_id is not None:
        ended = tally_add(counts={match.tournament_id: 1})[match.tournament_id]
        match_tallied(match, ended)


def _lock_running(*, match_id: int, attempt: int) -> Match | None:
    """Lock the match's tournament (if any) then the match; the match if still RUNNING under ``attempt``."""
    _tournaments_lock(_tournament_of(match_id))
    match = Match.objects.select_for_update().filter(id=match_id).first()
    if match is None or match.status != Match.Status.RUNNING or match.attempt != attempt:
        _dropped(match_id, attempt, match)
        return None
    return match


_SEAT_FIELDS = ["rank", "score", "status", "stderr", "cpu_ms", "peak_rss_kb", "reported_name", "reported_version"]


def _seat_values(*, seats: int, record: MatchRecord, match_id: int) -> list[tuple[Any, ...]]:
    """Each seat's (seat, rank, score, status, stderr, cpu ms, peak RSS, name, version) from the record."""
    if len(record.ranks) != seats or len(record.seat_records) != seats:
        raise ValueError(f"match {match_id} has {seats} seats, the result has {len(record.ranks)} ranks")
    values = []
    for seat in range(seats):
        report = record.seat_records[seat]
        values.append(
            (
                seat,
                int(record.ranks[seat]),
                float(record.scores[seat]) if record.scores is not None else None,
                str(report.status)[:20],
                report.stderr[-STDERR_LIMIT:],
                report.cpu_ms,
                report.peak_rss_kb,
                (report.name or "")[:100],
                (report.version or "")[:100],
            )
        )
    return values


# The result under the claiming attempt, as one UPDATE that checks the attempt and returns the
# row (without its moves) for the hooks; stamped by the server's clock (tournaments/dbclock.py).
_FINISH_SQL = """
UPDATE matches_match
SET status = 'finished', moves = %s, result_reason = %s, error_reason = '', waiting_for = '', waiting_since = NULL,
    rating_pending = rated, engine_version = COALESCE(NULLIF(%s, ''), engine_version),
    finished_at = STATEMENT_TIMESTAMP()
WHERE id = %s AND status = 'running' AND attempt = %s
RETURNING {columns}
"""
# Every seat in one UPDATE, matched on (match, seat).
_SEATS_SQL = """
UPDATE matches_matchseat AS s
SET rank = v.rank, score = v.score, status = v.status, stderr = v.stderr, cpu_ms = v.cpu_ms,
    peak_rss_kb = v.peak_rss_kb, reported_name = v.reported_name, reported_version = v.reported_version
FROM (VALUES {rows}) AS v(seat, rank, score, status, stderr, cpu_ms, peak_rss_kb, reported_name, reported_version)
WHERE s.match_id = %s AND s.seat = v.seat
"""
_SEAT_ROW = "(%s::integer, %s::integer, %s::double precision, %s::text, %s::text, %s::integer, %s::integer, %s, %s)"


def _finish_postgresql(*, match_id: int, attempt: int, record: MatchRecord) -> Match | None:
    """Finish the match under ``attempt`` and write its seats (two statements); None when it is not ours."""
    columns = ", ".join(str(f.column) for f in Match._meta.concrete_fields if f.name != "moves")
    params = [json.dumps(record.moves_json()), record.reason, record.engine_version or "", match_id, attempt]
    finished = list(Match.objects.raw(_FINISH_SQL.format(columns=columns), params))
    if not finished:
        _dropped(match_id, attempt, Match.objects.filter(id=match_id).only("status", "attempt").first())
        return None
    match = finished[0]
    values = _seat_values(seats=match.seats, record=record, match_id=match_id)
    with prepared_cursor() as cursor:
        rows = ", ".join([_SEAT_ROW] * len(values))
        cursor.execute(_SEATS_SQL.format(rows=rows), [v for row in values for v in row] + [match_id])
        if cursor.rowcount != match.seats:
            raise ValueError(f"match {match_id} has {cursor.rowcount} seat rows for {match.seats} seats")
    return match


def _finish_orm(*, match_id: int, attempt: int, record: MatchRecord) -> Match | None:
    """Finish the match under ``attempt`` and write its seats, read first (SQLite); None when it is not ours."""
    match = Match.objects.select_for_update().filter(id=match_id).first()
    if match is None or match.status != Match.Status.RUNNING or match.attempt != attempt:
        _dropped(match_id, attempt, match)
        return None
    seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    values = _seat_values(seats=len(seats), record=record, match_id=match_id)
    for seat, row in zip(seats, values, strict=True):
        for name, value in zip(_SEAT_FIELDS, row[1:], strict=True):
            setattr(seat, name, value)
    MatchSeat.objects.bulk_update(seats, _SEAT_FIELDS)
    match.status = Match.Status.FINISHED
    match.moves = record.moves_json()
    match.result_reason = record.reason
    match.error_reason = ""
    match.waiting_for, match.waiting_since = "", None
    match.rating_pending = match.rated
    if record.engine_version:
        match.engine_version = record.engine_version
    match.finished_at = db_clock()
    match.save(update_fields=[*_FINISHED_FIELDS, "finished_at"])
    return match


_FINISHED_FIELDS = ["status", "moves", "result_reason", "error_reason", "engine_version"]
_FINISHED_FIELDS += ["waiting_for", "waiting_since", "rating_pending"]


def match_record_result(*, match_id: int, attempt: int, record: MatchRecord) -> bool:
    """Record a finished match and apply its consequences, once.  False when the result was dropped.

    A rated match is recorded with ``rating_pending`` set; at the end of the
    transaction the pool's applier is tried without waiting
    (``ratings/applier.py``): usually it applies the match's rating changes in
    this transaction; when another run holds the pool, the match stays
    pending and the applier task is asked for once this commits.
    """
    with transaction.atomic():
        if connection.vendor == "postgresql":
            match = _finish_postgresql(match_id=match_id, attempt=attempt, record=record)
        else:
            match = _finish_orm(match_id=match_id, attempt=attempt, record=record)
        if match is None:
            return False
        if match.rated and not match_ratings().apply_now(match.rating_pool):
            pool = match.rating_pool
            transaction.on_commit(lambda: match_ratings().apply_later(pool))
        _ended(match)
    return True


def match_record_error(
    *, match_id: int, attempt: int, reason: str, retry: bool = True, cause: str = WORKER, charged: bool = True
) -> str | None:
    """An error of the service, not of a bot: re-run the match, or ERRORED once out of attempts.

    Never a forfeit and never a rating change.  ``retry=False`` (a package
    that cannot be unpacked, say) errors at once.  A re-run is counted under
    ``cause`` (``matches.marks``).  ``charged=False`` (a worker that found
    itself broken) gives the attempt back: the match is queued again with its
    attempt count as before the claim.  Returns the new status, or None when
    the match was no longer this attempt's.
    """
    with transaction.atomic():
        match = _lock_running(match_id=match_id, attempt=attempt)
        if match is None:
            return None
        match.error_reason = reason[:2000]
        match.worker = ""
        # Claimed by a worker that could run it: whatever it waited for is there.
        match.waiting_for, match.waiting_since = "", None
        if retry and (not charged or match.attempt < settings.ARBITER_MATCH_MAX_ATTEMPTS):
            match.status = Match.Status.QUEUED
            if not charged:
                # Safe to reuse: the only writer of this attempt is the worker giving it back.
                match.attempt -= 1
            match.save(update_fields=["status", "error_reason", "worker", "attempt", "waiting_for", "waiting_since"])
            recovery_mark(name=RERUN_PREFIX + cause, add=1)
            matches_enqueue(match_ids=[match.pk])
        else:
            match.status = Match.Status.ERRORED
            match.finished_at = db_clock()
            match.save(
                update_fields=["status", "error_reason", "worker", "finished_at", "waiting_for", "waiting_since"]
            )
            _ended(match)
    logger.warning("match %s attempt %s: %s -> %s", match_id, attempt, reason, match.status)
    return match.status


def matches_requeue_errored(*, match_ids: Sequence[int] | None = None, tournament_id: int | None = None) -> int:
    """Put ERRORED matches back in the queue (each gets one more attempt); returns how many.

    A finished tournament with errored matches runs again until they are done
    (its ``requeued`` hook reopens it).
    """
    matches = Match.objects.filter(status=Match.Status.ERRORED).exclude(tournament__status="cancelled")
    if match_ids is not None:
        matches = matches.filter(id__in=list(match_ids))
    if tournament_id is not None:
        matches = matches.filter(tournament_id=tournament_id)
    with transaction.atomic():
        _tournaments_lock(matches.values_list("tournament_id", flat=True))
        requeued = list(matches.select_for_update().only("id", "kind", "tournament_id"))
        ids = [m.pk for m in requeued]
        Match.objects.filter(id__in=ids).update(status=Match.Status.QUEUED, finished_at=None)
        back: Counter[int | None] = Counter(match.tournament_id for match in requeued)
        tally_add(counts={tournament_id: -n for tournament_id, n in back.items()})
        for match in requeued:
            match_requeued(match)
        matches_enqueue(match_ids=ids)
    return len(ids)


def match_end_unrunnable(*, match_id: int, waited_s: float) -> bool:
    """ERRORED (never rated, never a forfeit): a queued match no worker could run for ``waited_s``."""
    with transaction.atomic():
        _tournaments_lock(Match.objects.filter(id=match_id).values_list("tournament_id", flat=True))
        match = Match.objects.select_for_update().filter(id=match_id, status=Match.Status.QUEUED).first()
        if match is None or not match.waiting_for:
            return False
        match.status = Match.Status.ERRORED
        match.error_reason = f"no worker with {match.waiting_for} took it in {waited_s:.0f} s"
        match.finished_at = db_clock()
        match.save(update_fields=["status", "error_reason", "finished_at"])
        _ended(match)
    logger.warning("match %s: %s", match_id, match.error_reason)
    return True
