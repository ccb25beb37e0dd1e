"""Celery tasks: thin adapters from a message to the referee and the services.

``run_match`` claims a match (a conditional UPDATE, so a redelivered message
does nothing), unpacks the bots' packages into a cache keyed by checksum,
plays the match with the referee (no Django inside) and records the result
under the attempt that claimed it.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from pathlib import Path

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection

from tournaments.selectors.bots import bot_version_package
from tournaments.selectors.matches import MatchSpec, match_spec, matches_queued
from tournaments.services.dispatch import matches_dispatch as dispatch_queued
from tournaments.services.games import game_sync
from tournaments.services.leases import matches_expire_leases, worker_identity
from tournaments.services.matches import (
    MatchOutcome,
    SeatOutcome,
    match_claim,
    match_heartbeat,
    match_record_error,
    match_record_result,
)
from tournaments.services.queue import match_send

logger = logging.getLogger(__name__)


class PackageUnavailableError(Exception):
    """A bot's package is missing or cannot be unpacked: the match cannot be played."""


def _program_for(*, version_id: int, checksum: str, command: list[str]):  # -> workers.sandbox.BotProgram
    """The unpacked bot, from the cache (directory named by the package's sha256) or freshly unpacked."""
    from workers.packages import PackageError, unpack_package
    from workers.sandbox import BotProgram

    cache: Path = settings.ARBITER_PACKAGE_CACHE
    dest = cache / checksum
    if dest.is_dir() and command:
        return BotProgram(directory=dest, command=tuple(command))
    try:
        data, filename, stored_checksum = bot_version_package(version_id=version_id)
    except ObjectDoesNotExist as exc:
        raise PackageUnavailableError(f"bot version {version_id} no longer exists") from exc
    if stored_checksum != checksum or hashlib.sha256(data).hexdigest() != checksum:
        raise PackageUnavailableError(f"package of bot version {version_id} does not match its checksum")
    cache.mkdir(parents=True, exist_ok=True)
    try:
        return unpack_package(data, filename, dest)
    except PackageError as exc:
        raise PackageUnavailableError(f"package of bot version {version_id} is invalid: {exc}") from exc
    except OSError:
        # Another worker process unpacked the same package at the same moment
        # (its rename won; ours finds the directory there): use its copy.
        if dest.is_dir() and command:
            return BotProgram(directory=dest, command=tuple(command))
        raise  # anything else is the machine's problem: the match is run again


def _heartbeat(match_id: int, attempt: int, stop: threading.Event) -> None:
    """Renew this attempt's lease until ``stop`` is set (own DB connection; services/leases.py)."""
    try:
        while not stop.wait(settings.ARBITER_HEARTBEAT_S):
            if not match_heartbeat(match_id=match_id, attempt=attempt):
                # The sweeper gave the match to someone else: our result will be dropped.
                logger.warning("match %s attempt %s lost its lease", match_id, attempt)
                return
    finally:
        connection.close()


def _play(spec: MatchSpec):  # -> workers.referee.MatchRecord
    from workers.referee import Clock, play_match

    bots = [_program_for(version_id=s.bot_version_id, checksum=s.checksum, command=s.command) for s in spec.seats]
    return play_match(
        engine_id=spec.engine_id,
        options=spec.options,
        seed=spec.seed,
        seats=len(spec.seats),
        bots=bots,
        clock=Clock(move_ms=spec.move_ms, game_ms=spec.game_ms, startup_ms=spec.startup_ms),
        match_id=str(spec.match_id),
    )


def _outcome(record) -> MatchOutcome:  # record: workers.referee.MatchRecord
    return MatchOutcome(
        ranks=list(record.ranks),
        scores=list(record.scores) if record.scores is not None else None,
        reason=record.reason,
        engine_version=record.engine_version,
        moves=[{"seat": m.seat, "move": m.move, "ms": m.ms} for m in record.moves],
        seats=[
            SeatOutcome(
                status=r.status,
                stderr=r.stderr or "",
                cpu_ms=r.cpu_ms,
                peak_rss_kb=r.peak_rss_kb,
                name=r.name or "",
                version=r.version or "",
            )
            for r in record.seat_records
        ],
    )


@shared_task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True, name="workers.tasks.run_match")
def run_match(self, match_id: int) -> str:
    """Claim, play and record one match."""
    from workers.referee import InfrastructureError

    # (Celery's Django fix-up closes stale database connections around each task.)
    worker = worker_identity(hostname=self.request.hostname)
    attempt = match_claim(match_id=match_id, worker=worker)
    if attempt is None:
        return "not claimed"
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(match_id, attempt, stop), daemon=True)
    beat.start()
    try:
        spec = match_spec(match_id=match_id)
        record = _play(spec)
    except PackageUnavailableError as exc:
        match_record_error(match_id=match_id, attempt=attempt, reason=str(exc), retry=False)
        return "errored"
    except ValueError as exc:
        # Options, seats or bot counts the engine refuses: running again cannot help.
        match_record_error(match_id=match_id, attempt=attempt, reason=f"invalid match: {exc}", retry=False)
        return "errored"
    except InfrastructureError as exc:
        status = match_record_error(match_id=match_id, attempt=attempt, reason=f"infrastructure: {exc}")
        return str(status)
    except SoftTimeLimitExceeded:
        status = match_record_error(match_id=match_id, attempt=attempt, reason="the match exceeded its time limit")
        return str(status)
    except Exception as exc:
        logger.exception("match %s attempt %s failed", match_id, attempt)
        status = match_record_error(match_id=match_id, attempt=attempt, reason=f"{type(exc).__name__}: {exc}")
        return str(status)
    finally:
        stop.set()
    recorded = match_record_result(match_id=match_id, attempt=attempt, outcome=_outcome(record))
    if recorded:
        _request_performance_refit(match_id)
    return "finished" if recorded else "dropped"


# -- performance table (tournaments.services.performance) --


def _request_performance_refit(match_id: int) -> None:
    """Ask (debounced) for a refit of the match's tournament table; never fails the match."""
    from tournaments.services.performance import performance_match_finished

    try:
        performance_match_finished(match_id=match_id)
    except Exception:  # the result is recorded; a missed refit is caught up by the next one or a read
        logger.exception("performance refit request after match %s failed", match_id)


@shared_task(ignore_result=True, name="workers.tasks.performance_refit")
def performance_refit(tournament_id: int) -> int:
    """Refit and store a tournament's performance table; returns the finished matches it covers."""
    from tournaments.services.performance import performance_refresh

    return performance_refresh(tournament_id=tournament_id).matches


# -- end performance table --


@shared_task(ignore_result=True, name="workers.tasks.tournament_enqueue")
def tournament_enqueue(tournament_id: int) -> int:
    """Send one run_match per queued match of a tournament, in schedule order."""
    rows = matches_queued(tournament_id=tournament_id)
    for row in rows:
        match_send(match_id=row["id"], seats=row["seats"], startup_ms=row["startup_ms"], game_ms=row["game_ms"])
    return len(rows)


# The sweeper and the dispatcher are acknowledged on receipt: a lost run is harmless (beat
# sends another), and a worker holding no unacknowledged message survives a broker restart
# better (kombu's Redis transport can crash while restoring them on a lost connection).
@shared_task(ignore_result=True, acks_late=False, name="workers.tasks.matches_sweep")
def matches_sweep() -> int:
    """Re-queue (or error) running matches whose lease expired (scheduled by beat)."""
    return matches_expire_leases()


@shared_task(ignore_result=True, acks_late=False, name="workers.tasks.matches_dispatch")
def matches_dispatch() -> int:
    """Re-send queued matches whose message the broker may have lost (scheduled by beat)."""
    return dispatch_queued()


# -- beat: start times, recurring schedules, ladders (docs/organisers.md) --


@shared_task(ignore_result=True, name="workers.tasks.tournaments_start_due")
def tournaments_start_due() -> int:
    """Start the draft tournaments whose start time has come (scheduled by beat)."""
    from tournaments.services.schedules import tournaments_start_due as start_due

    return len(start_due())


@shared_task(ignore_result=True, name="workers.tasks.schedules_run_due")
def schedules_run_due() -> int:
    """Create and start the due edition of every recurring schedule (scheduled by beat)."""
    from tournaments.services.schedules import schedules_run_due as run_due

    return len(run_due())


@shared_task(ignore_result=True, name="workers.tasks.ladders_top_up")
def ladders_top_up() -> int:
    """Queue ladder matches while other work is scarce (scheduled by beat)."""
    from tournaments.services.ladder import ladders_top_up as top_up

    return len(top_up())


# -- end beat: start times, recurring schedules, ladders --


@worker_ready.connect
def _on_worker_ready(**kwargs: object) -> None:
    # Engines added since the last migrate show up without one.
    try:
        game_sync()
    except Exception:  # a worker without a migrated database still starts; the task will say why
        logger.exception("game_sync at worker start failed")
