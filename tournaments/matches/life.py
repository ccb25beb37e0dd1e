"""A match's life, from its row to its consequences.

::

    matches_create ─► QUEUED ─► matches_enqueue (on commit: one run_next message per match)
                                   │
    match_claim_next (the fairest queued match, matches/queue.py: QUEUED → RUNNING,
                      attempt + 1; a conditional UPDATE: one winner)
                                   │
    match_heartbeat (renews the lease while the worker plays)   matches_cancel ─► CANCELLED
                                   │                              (queued or running: the worker
                                   │                               stops the bots, records nothing)
    match_record_result ─► FINISHED          match_record_error ─► QUEUED again, or ERRORED
                                   │                                      │
                                   └──────────── consequences ────────────┘

A result or an error is written only while the match is RUNNING under the
attempt that claimed it, in one transaction with its rating changes, so a
redelivered or re-run match never counts twice.  The worker side of a run
(packages, the referee, the heartbeat thread) is ``matches.runner``; the
sweeper and the dispatcher, which recover lost work, are ``matches.recovery``.

The consequences of a match that ended (finished, or errored for good), in
this order:

1. its rating changes, for a rated result (the ratings' hook), in the
   recording transaction;
2. its competition's ``ended`` hook, in the same transaction: the
   tournament may be finished, the version test recounted and topped up;
3. after commit, the competition's ``committed`` hook: the tournament's
   performance table is asked for a refit, the ladder tops itself up.

Ratings and competitions sit above matches, so they register their hooks
when their apps start (``ratings/apps.py``; ``competitions/apps.py``, per
``Match.Kind``) in ``matches.hooks`` instead of being imported here.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet

from engines import get_engine
from tournaments.dbclock import db_clock, db_now
from tournaments.matches.hooks import match_ended, match_ratings, match_requeued
from tournaments.matches.marks import RERUN_PREFIX, WORKER, recovery_mark
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.queue import queue_candidates
from tournaments.matches.selectors import match_commands
from tournaments.matches.tasks import matches_wake_task, run_next
from workers.match import Clock, MatchRecord
from workers.sandbox.runtimes import runtimes_missing

logger = logging.getLogger(__name__)

STDERR_LIMIT = 64 * 1024
BATCH_SIZE = 1000
# Up to this many messages are sent by the committing process itself; more, by a task.
WAKE_INLINE = 50
# Rounds of candidates a worker tries before it gives its message up (others keep winning).
CLAIM_ROUNDS = 20


# -- creating and enqueueing ----------------------------------------------------------


@dataclass(frozen=True)
class MatchConfig:
    """What every match of one batch shares: the game, its seats and teams, the pool, the clock, the owner."""

    kind: str
    game_id: str
    options: dict[str, Any]
    seats: int
    teams: list[list[int]]
    rating_pool: str
    rated: bool
    clock: Clock
    owner_id: int | None  # whose work it is (None: the service's own, the ladder)
    tournament_id: int | None = None
    priority: int = 0


@dataclass(frozen=True)
class Lineup:
    """One match of a batch: the bot version of each team (team order), its seed and its place in the series."""

    versions: tuple[int, ...]
    seed: int
    index: int = 0


def matches_create(*, config: MatchConfig, lineups: Sequence[Lineup]) -> list[Match]:
    """Insert QUEUED matches and their seats, in batches; the caller enqueues them after commit.

    Every kind of match (round robin, ladder, challenge, version test) is made here.
    """
    engine_version = get_engine(config.game_id).version
    lineup_versions = [lu.versions for lu in lineups]
    shared = match_ratings().unrated_lineups(config.rating_pool, lineup_versions) if config.rated else set()
    matches = [
        Match(
            kind=config.kind,
            tournament_id=config.tournament_id,
            owner_id=config.owner_id,
            priority=config.priority,
            index=lineup.index,
            game_id=config.game_id,
            engine_version=engine_version,
            options=config.options,
            seats=config.seats,
            seed=lineup.seed,
            rating_pool=config.rating_pool,
            rated=config.rated and position not in shared,
            move_ms=config.clock.move_ms,
            game_ms=config.clock.game_ms,
            startup_ms=config.clock.startup_ms,
        )
        for position, lineup in enumerate(lineups)
    ]
    Match.objects.bulk_create(matches, batch_size=BATCH_SIZE)
    seats = [
        MatchSeat(match=match, seat=seat, team=team, bot_version_id=lineup.versions[team])
        for match, lineup in zip(matches, lineups, strict=True)
        for team, team_seats in enumerate(config.teams)
        for seat in team_seats
    ]
    MatchSeat.objects.bulk_create(seats, batch_size=BATCH_SIZE)
    return matches


def matches_wake(*, count: int) -> int:
    """Send ``count`` run_next messages now; returns how many were sent (0 when the broker is down).

    A message names no match: the worker that takes it claims the fairest
    queued one (matches/queue.py).  Never raises: a message not sent now is
    sent by the dispatcher (matches/recovery.py), which keeps one per queued match.
    """
    sent = 0
    try:
        # One producer (and connection) for the whole batch: a big round robin announces thousands.
        with run_next.app.producer_or_acquire() as producer:
            for _ in range(count):
                run_next.apply_async(queue=settings.CELERY_TASK_DEFAULT_QUEUE, producer=producer)
                sent += 1
    except Exception:
        logger.warning("the broker took %d of %d run_next messages; the dispatcher sends the rest", sent, count)
    return sent


def matches_enqueue(*, match_ids: Sequence[int]) -> None:
    """Once the current transaction commits, make sure a worker comes for each of these matches.

    The database says what must run, the broker only says when: a worker must
    never be woken before the rows exist.  Many matches at once (a big round
    robin) are announced by a task on the short-task queue, so the request
    that made them stays short.
    """
    count = len(match_ids)
    if count == 0:
        return
    if count <= WAKE_INLINE:
        transaction.on_commit(lambda: matches_wake(count=count))
    else:
        transaction.on_commit(lambda: _wake_later(count))


def _wake_later(count: int) -> None:
    try:
        matches_wake_task.apply_async(args=(count,), queue=settings.ARBITER_BEAT_QUEUE)
    except Exception:  # the broker is down: the dispatcher sends them once it is back
        logger.warning("could not ask for %d run_next messages; the dispatcher sends them", count)


# -- claiming and holding ------------------------------------------------------------


def match_claim(*, match_id: int, worker: str) -> int | None:
    """Take a queued match for this worker; returns the attempt number, or None if someone else has it."""
    now = db_now()  # the database's clock: workers on several hosts share it (tournaments/dbclock.py)
    with transaction.atomic():
        claimed = Match.objects.filter(id=match_id, status=Match.Status.QUEUED).update(
            status=Match.Status.RUNNING,
            attempt=F("attempt") + 1,
            worker=worker[:200],
            claimed_at=now,
            heartbeat_at=now,
            waiting_for="",
            waiting_since=None,
        )
        if not claimed:
            return None
        # Still inside the transaction: the row is ours until commit.
        return Match.objects.values_list("attempt", flat=True).get(id=match_id)


def match_claim_next(*, worker: str) -> tuple[int, int] | None:
    """Take the fairest queued match (matches/queue.py); (match id, attempt), or None when none is left.

    Workers racing for the same match: the losers look again (the winner's
    match is no longer queued), so a message never goes unused while work waits.
    A match whose bots need a runtime this worker lacks (``workers.sandbox.runtimes``) is
    left to another worker.  A match held back by its owner's share is taken only
    when this worker can run none of the others (matches/queue.py).
    """
    skipped: set[int] = set()
    for _ in range(CLAIM_ROUNDS):
        seen = lost = False
        for match_id, held, service in queue_candidates(skip=skipped):
            seen = True
            if (held or service) and lost:
                # An owner lost a match to another worker and may have more queued: look again
                # rather than give the slot to an owner holding their share, or to the ladder.
                break
            missing = runtimes_missing(match_commands(match_id=match_id))
            if missing:
                # Left queued for a worker that has the runtime (played here it would be a crash);
                # the next round looks past it.
                logger.info("worker %s leaves match %s: no %s here", worker, match_id, ", ".join(sorted(missing)))
                match_note_waiting(match_id=match_id, runtimes=missing)
                skipped.add(match_id)
                continue
            attempt = match_claim(match_id=match_id, worker=worker)
            if attempt is not None:
                return match_id, attempt
            lost = True
        if not seen:
            return None
    logger.warning(
        "worker %s lost %d claim rounds in a row; its message goes back to the dispatcher", worker, CLAIM_ROUNDS
    )
    return None


def match_note_waiting(*, match_id: int, runtimes: Iterable[str]) -> None:
    """Note that a queued match waits for a worker with ``runtimes`` (shown by the API and /healthz).

    The first note's time stays: the sweeper ends a match that waited ``ARBITER_RUNTIME_WAIT_S``.
    """
    Match.objects.filter(id=match_id, status=Match.Status.QUEUED, waiting_for="").update(
        waiting_for=", ".join(sorted(runtimes))[:60], waiting_since=db_now()
    )


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
        match_ended(match)
    logger.warning("match %s: %s", match_id, match.error_reason)
    return True


def match_cancelled(*, match_id: int) -> bool:
    """Whether the match was cancelled: its worker then stops the bots at once (one read by primary key)."""
    return Match.objects.filter(id=match_id, status=Match.Status.CANCELLED).exists()


def match_heartbeat(*, match_id: int, attempt: int) -> bool:
    """Renew this attempt's lease; False when the match is no longer this attempt's.

    A worker that stops renewing (killed, cut off) loses the match to the
    sweeper once the lease is older than ``ARBITER_LEASE_S`` (``matches.recovery``).
    """
    return bool(
        Match.objects.filter(id=match_id, status=Match.Status.RUNNING, attempt=attempt).update(heartbeat_at=db_now())
    )


def matches_cancel(*, matches: QuerySet[Match], at: datetime | None = None) -> int:
    """Cancel those of ``matches`` that are queued or running; returns how many.  Never rated, never a forfeit.

    A running one is cancelled under whatever attempt holds it: its worker sees
    that within ``ARBITER_CANCEL_CHECK_S`` (``matches.runner``), kills the bots
    and records nothing, and any late write of that attempt is refused (every
    write is conditional on RUNNING).  The caller either holds the competition's
    row locked before the matches (as a recording does: tournaments), or holds
    no competition row at all (a recording locks its match, then the row).
    ``at``: the finish time to stamp (default: the database's now).
    """
    return matches.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).update(
        status=Match.Status.CANCELLED, finished_at=at if at is not None else db_now()
    )


# -- results and errors --------------------------------------------------------------


def _tournaments_lock(tournament_ids: Iterable[int | None]) -> None:
    """Lock tournament rows, in id order.

    Always tournaments first, then matches: tournament_cancel takes the same
    order, so the two cannot deadlock.
    """
    ids = sorted({t for t in tournament_ids if t is not None})
    if ids:
        tournaments = Match._meta.get_field("tournament").related_model._default_manager
        list(tournaments.select_for_update().filter(pk__in=ids).order_by("pk").values_list("pk", flat=True))


def _lock_running(*, match_id: int, attempt: int) -> Match | None:
    """Lock the match's tournament (if any) then the match; the match if still RUNNING under ``attempt``."""
    _tournaments_lock(Match.objects.filter(id=match_id).values_list("tournament_id", flat=True))
    match = Match.objects.select_for_update().filter(id=match_id).first()
    if match is None:
        logger.warning("match %s vanished", match_id)
        return None
    if match.status != Match.Status.RUNNING or match.attempt != attempt:
        logger.warning(
            "dropping result of match %s attempt %s: it is %s under attempt %s",
            match_id,
            attempt,
            match.status,
            match.attempt,
        )
        return None
    return match


def _seats_record(*, match: Match, record: MatchRecord) -> list[MatchSeat]:
    """Write each seat's rank, score, status and usage from the record; returns the seats."""
    seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    if len(record.ranks) != len(seats) or len(record.seat_records) != len(seats):
        raise ValueError(f"match {match.pk} has {len(seats)} seats, the result has {len(record.ranks)} ranks")
    for seat in seats:
        report = record.seat_records[seat.seat]
        seat.rank = int(record.ranks[seat.seat])
        seat.score = float(record.scores[seat.seat]) if record.scores is not None else None
        seat.status = str(report.status)[:20]
        seat.stderr = report.stderr[-STDERR_LIMIT:]
        seat.cpu_ms = report.cpu_ms
        seat.peak_rss_kb = report.peak_rss_kb
        seat.reported_name = (report.name or "")[:100]
        seat.reported_version = (report.version or "")[:100]
    MatchSeat.objects.bulk_update(
        seats, ["rank", "score", "status", "stderr", "cpu_ms", "peak_rss_kb", "reported_name", "reported_version"]
    )
    return seats


def match_record_result(*, match_id: int, attempt: int, record: MatchRecord) -> bool:
    """Record a finished match and apply its consequences, once.  False when the result was dropped."""
    with transaction.atomic():
        match = _lock_running(match_id=match_id, attempt=attempt)
        if match is None:
            return False
        seats = _seats_record(match=match, record=record)
        match.status = Match.Status.FINISHED
        match.moves = record.moves_json()
        match.result_reason = record.reason
        match.error_reason = ""
        if record.engine_version:
            match.engine_version = record.engine_version
        if match.rated:
            match_ratings().apply(match, seats)
        # Taken after the rating rows are locked: for two matches sharing a bot,
        # finish order is the order their rating changes were applied.  The
        # database's clock, so workers on hosts with skewed clocks agree too
        # (read as a value, so the saved object holds a datetime, not an expression).
        match.finished_at = db_clock()
        match.save(update_fields=["status", "moves", "result_reason", "error_reason", "engine_version", "finished_at"])
        match_ended(match)
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
        if retry and (not charged or match.attempt < settings.ARBITER_MATCH_MAX_ATTEMPTS):
            match.status = Match.Status.QUEUED
            if not charged:
                # Safe to reuse: the only writer of this attempt is the worker giving it back.
                match.attempt -= 1
            match.save(update_fields=["status", "error_reason", "worker", "attempt"])
            recovery_mark(name=RERUN_PREFIX + cause, add=1)
            matches_enqueue(match_ids=[match.pk])
        else:
            match.status = Match.Status.ERRORED
            match.finished_at = db_clock()
            match.save(update_fields=["status", "error_reason", "worker", "finished_at"])
            match_ended(match)
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
        for match in requeued:
            match_requeued(match)
        matches_enqueue(match_ids=ids)
    return len(ids)
