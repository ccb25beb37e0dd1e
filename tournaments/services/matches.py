"""A match's life: claim, result or error, requeue.

A claim is a conditional UPDATE (QUEUED -> RUNNING, attempt + 1): only one
worker wins it.  A result or an error is written only if the match is still
RUNNING under the attempt that claimed it, in one transaction with its
rating changes, so a redelivered or re-run match never counts twice.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F

from tournaments.models import Match, MatchSeat, Tournament
from tournaments.services.clock import db_clock, db_now
from tournaments.services.queue import match_send
from tournaments.services.ratings import ratings_apply_match
from tournaments.services.tournaments import tournament_finish_if_done

logger = logging.getLogger(__name__)

STDERR_LIMIT = 64 * 1024


@dataclass(frozen=True)
class SeatOutcome:
    status: str = "ok"
    stderr: str = ""
    cpu_ms: int | None = None
    peak_rss_kb: int | None = None
    name: str = ""
    version: str = ""


@dataclass(frozen=True)
class MatchOutcome:
    """What the referee reports, in plain data (the services never see referee objects)."""

    ranks: list[int]
    reason: str
    seats: list[SeatOutcome]
    scores: list[float] | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)
    engine_version: str = ""


def match_claim(*, match_id: int, worker: str) -> int | None:
    """Take a queued match for this worker; returns the attempt number, or None if someone else has it."""
    now = db_now()  # the database's clock: workers on several hosts share it (services/clock.py)
    with transaction.atomic():
        claimed = Match.objects.filter(id=match_id, status=Match.Status.QUEUED).update(
            status=Match.Status.RUNNING,
            attempt=F("attempt") + 1,
            worker=worker[:200],
            claimed_at=now,
            heartbeat_at=now,
        )
        if not claimed:
            return None
        # Still inside the transaction: the row is ours until commit.
        return Match.objects.values_list("attempt", flat=True).get(id=match_id)


def match_heartbeat(*, match_id: int, attempt: int) -> bool:
    """Note that the worker running this attempt is alive; False when the match is no longer ours."""
    from tournaments.services.leases import match_lease_renew

    return match_lease_renew(match_id=match_id, attempt=attempt)


def _lock_running(*, match_id: int, attempt: int) -> Match | None:
    """Lock the tournament (if any) then the match; the match if still RUNNING under ``attempt``.

    Always tournament first, then match: tournament_cancel takes the same
    order, so the two cannot deadlock.
    """
    tournament_id = Match.objects.filter(id=match_id).values_list("tournament_id", flat=True).first()
    if tournament_id is not None:
        Tournament.objects.select_for_update().filter(pk=tournament_id).values_list("pk", flat=True).first()
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


def match_record_result(*, match_id: int, attempt: int, outcome: MatchOutcome) -> bool:
    """Record a finished match and apply its Elo changes, once.  False when the result was dropped."""
    with transaction.atomic():
        match = _lock_running(match_id=match_id, attempt=attempt)
        if match is None:
            return False
        seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
        if len(outcome.ranks) != len(seats) or len(outcome.seats) != len(seats):
            raise ValueError(f"match {match_id} has {len(seats)} seats, the result has {len(outcome.ranks)} ranks")
        for seat in seats:
            report = outcome.seats[seat.seat]
            seat.rank = int(outcome.ranks[seat.seat])
            seat.score = float(outcome.scores[seat.seat]) if outcome.scores is not None else None
            seat.status = report.status[:20]
            seat.stderr = report.stderr[-STDERR_LIMIT:]
            seat.cpu_ms = report.cpu_ms
            seat.peak_rss_kb = report.peak_rss_kb
            seat.reported_name = (report.name or "")[:100]
            seat.reported_version = (report.version or "")[:100]
        MatchSeat.objects.bulk_update(
            seats,
            ["rank", "score", "status", "stderr", "cpu_ms", "peak_rss_kb", "reported_name", "reported_version"],
        )
        match.status = Match.Status.FINISHED
        match.moves = outcome.moves
        match.result_reason = outcome.reason
        match.error_reason = ""
        if outcome.engine_version:
            match.engine_version = outcome.engine_version
        if match.rated:
            ratings_apply_match(match=match, seats=seats)
        # Taken after the rating rows are locked: for two matches sharing a bot,
        # finish order is the order their rating changes were applied.  The
        # database's clock, so workers on hosts with skewed clocks agree too
        # (read as a value, so the saved object holds a datetime, not an expression).
        match.finished_at = db_clock()
        match.save(update_fields=["status", "moves", "result_reason", "error_reason", "engine_version", "finished_at"])
        if match.tournament_id is not None:
            tournament_finish_if_done(tournament_id=match.tournament_id)
        # -- version tests: recount the test, stop it or queue more pairs (own savepoint) --
        if match.kind == Match.Kind.VERSION_TEST:
            _version_test_ended(match.pk)
        # -- end version tests --
    return True


# -- version tests --
def _version_test_ended(match_id: int) -> None:
    """Advance the match's version test (tournaments.services.version_tests); never fails the match."""
    from tournaments.services.version_tests import version_test_match_finished

    version_test_match_finished(match_id=match_id)


# -- end version tests --


def match_record_error(*, match_id: int, attempt: int, reason: str, retry: bool = True) -> str | None:
    """An error of the service, not of a bot: re-run the match, or ERRORED once out of attempts.

    Never a forfeit and never a rating change.  ``retry=False`` (a package
    that cannot be unpacked, say) errors at once.  Returns the new status,
    or None when the match was no longer this attempt's.
    """
    with transaction.atomic():
        match = _lock_running(match_id=match_id, attempt=attempt)
        if match is None:
            return None
        match.error_reason = reason[:2000]
        match.worker = ""
        if retry and match.attempt < settings.ARBITER_MATCH_MAX_ATTEMPTS:
            match.status = Match.Status.QUEUED
            match.save(update_fields=["status", "error_reason", "worker"])
            transaction.on_commit(
                lambda: match_send(
                    match_id=match.pk,
                    seats=match.seats,
                    startup_ms=match.startup_ms,
                    game_ms=match.game_ms,
                    kind=match.kind,  # back to its own queue
                )
            )
        else:
            match.status = Match.Status.ERRORED
            match.finished_at = db_clock()
            match.save(update_fields=["status", "error_reason", "worker", "finished_at"])
            if match.tournament_id is not None:
                tournament_finish_if_done(tournament_id=match.tournament_id)
            # -- version tests: a pair with an errored game is left out; the test moves on --
            if match.kind == Match.Kind.VERSION_TEST:
                _version_test_ended(match.pk)
            # -- end version tests --
    logger.warning("match %s attempt %s: %s -> %s", match_id, attempt, reason, match.status)
    return match.status


def matches_requeue_errored(*, match_ids: list[int] | None = None, tournament: Tournament | None = None) -> int:
    """Put ERRORED matches back in the queue (each gets one more attempt); returns how many."""
    with transaction.atomic():
        if tournament is not None:
            Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        matches = Match.objects.select_for_update().filter(status=Match.Status.ERRORED)
        if match_ids is not None:
            matches = matches.filter(id__in=match_ids)
        if tournament is not None:
            matches = matches.filter(tournament=tournament)
        matches = matches.exclude(tournament__status=Tournament.Status.CANCELLED)
        rows = list(matches.values("id", "seats", "startup_ms", "game_ms", "tournament_id", "kind"))
        ids = [r["id"] for r in rows]
        Match.objects.filter(id__in=ids).update(status=Match.Status.QUEUED, finished_at=None)
        # A finished tournament with errored matches runs again until they are done.
        tournament_ids = {r["tournament_id"] for r in rows if r["tournament_id"] is not None}
        Tournament.objects.filter(pk__in=tournament_ids, status=Tournament.Status.FINISHED).update(
            status=Tournament.Status.RUNNING, finished=None
        )

        def send() -> None:
            for r in rows:
                match_send(
                    match_id=r["id"], seats=r["seats"], startup_ms=r["startup_ms"], game_ms=r["game_ms"], kind=r["kind"]
                )

        transaction.on_commit(send)
    return len(ids)


def matches_requeue_stale(*, now: Any = None) -> int:
    """Re-run RUNNING matches whose lease expired (the sweeper, services/leases.py); returns how many."""
    from tournaments.services.leases import matches_expire_leases

    return matches_expire_leases(now=now)
