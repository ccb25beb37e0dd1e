"""Running a match on this worker: the claim, packages, the heartbeat, the referee, the record.

``match_run_next`` is what the ``run_next`` task calls.  Everything it writes
goes through ``matches.life`` under the attempt it claimed, so a message
delivered twice, or a worker that comes back after losing its lease, never
counts a result twice.
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import InterfaceError, OperationalError, close_old_connections

from engines import InvalidOptionsError
from tournaments.bots.selectors import bot_version_package
from tournaments.dbclock import db_clock
from tournaments.matches.claim import match_claim_next
from tournaments.matches.clocks import match_time_limit_s
from tournaments.matches.heartbeat import backoff, heartbeat, reconnect
from tournaments.matches.live import LivePublisher
from tournaments.matches.marks import DATABASE, OUTSIDE_KILL, SLOT, WORKER, trash_marks_note, worker_health_note
from tournaments.matches.record import match_record_error, match_record_result
from workers.match import MatchRecord, MatchSpec
from workers.packages.cache import PackageCache, PackageUnavailableError
from workers.referee.conversation import MatchStopped
from workers.referee.play import play_match
from workers.sandbox.selfcheck import worker_problems
from workers.sandbox.start import BotProgram, ExternalKillError, InfrastructureError, SlotRangeConflictError

logger = logging.getLogger(__name__)

T = TypeVar("T")


def _persist(what: str, write: Callable[[], T]) -> T:
    """``write()``, retried with backoff while the database is unreachable, for ``ARBITER_RESULT_RETRY_S``.

    A match played while the database was down is worth keeping: every write
    is conditional on the attempt that claimed the match (``matches.life``),
    so a retry after a commit whose answer was lost, or after the sweeper gave
    the match away, changes nothing.
    """
    deadline = time.monotonic() + settings.ARBITER_RESULT_RETRY_S
    failures = 0
    while True:
        try:
            done = write()
        except (OperationalError, InterfaceError) as exc:
            failures += 1
            pause = backoff(failures)
            if time.monotonic() + pause > deadline:
                logger.error("%s: the database stayed unreachable; giving the result up (%s)", what, exc)
                raise
            if failures == 1:
                logger.warning("%s: database unavailable (%s); retrying for up to %.0f s", what, exc,
                               settings.ARBITER_RESULT_RETRY_S)  # fmt: skip
            reconnect()
            time.sleep(pause)
            continue
        if failures:
            logger.warning("%s: recorded after %d failed attempt(s)", what, failures)
        return done


def _error(
    match_id: int, attempt: int, reason: str, *, retry: bool = True, cause: str = WORKER, charged: bool = True
) -> str:
    """Record a service error of this attempt (kept through a database outage); the status it left."""
    status = _persist(
        f"match {match_id} attempt {attempt}",
        lambda: match_record_error(
            match_id=match_id, attempt=attempt, reason=reason, retry=retry, cause=cause, charged=charged
        ),
    )
    return str(status)


def _cause(exc: BaseException) -> str:
    """Which kind of service failure ended an attempt (for the re-run counts)."""
    if isinstance(exc, ExternalKillError):
        return OUTSIDE_KILL
    if isinstance(exc, (OperationalError, InterfaceError)):
        return DATABASE
    if isinstance(exc, SlotRangeConflictError) or "slot" in str(exc):
        return SLOT
    return WORKER


def _programs(spec: MatchSpec) -> list[BotProgram]:
    """Each seat's unpacked bot, from this worker's package cache."""
    cache = PackageCache(settings.ARBITER_PACKAGE_CACHE, max_bytes=settings.ARBITER_PACKAGE_CACHE_MB * 1024 * 1024)
    programs = []
    for bot in spec.bots:

        def fetch(version_id: int = bot.version_id) -> tuple[bytes, str]:
            try:
                data, filename, _ = bot_version_package(version_id=version_id)
            except ObjectDoesNotExist as exc:
                raise PackageUnavailableError(f"bot version {version_id} no longer exists") from exc
            return data, filename

        programs.append(cache.program(checksum=bot.checksum, command=bot.command, fetch=fetch))
    return programs


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    """Raise SoftTimeLimitExceeded in this thread after ``seconds`` (the match's own bound).

    A message names no match, so Celery cannot know the limit when it is sent;
    the worker sets it once it knows the match.  Only the main thread of a
    process gets signals: elsewhere (tests calling the task in a thread) there is no limit.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise SoftTimeLimitExceeded(f"the match ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _play(
    spec: MatchSpec, attempt: int, node: str, cancelled: threading.Event, live: LivePublisher
) -> MatchRecord | str:
    """Play the claimed match: its record, or the status its error (or its cancel) left it in.

    Every ply's public view goes to ``live`` as it is played, for the match's page.

    An attempt that failed because this worker is broken (its self-check fails
    now) is not counted against the match.  A match cancelled meanwhile
    (``cancelled`` set by the heartbeat) has its bots killed and nothing recorded.
    """
    match_id = int(spec.match_id)
    try:
        with _time_limit(match_time_limit_s(seats=spec.seats, clock=spec.clock)):
            return play_match(spec, _programs(spec), limits=settings.ARBITER_SANDBOX, stop=cancelled, on_move=live)
    except MatchStopped:
        # Its row already says cancelled, and no write of this attempt would be taken: nothing to record.
        logger.warning("match %s attempt %s: cancelled while it ran; its bots were stopped", match_id, attempt)
        return "cancelled"
    except PackageUnavailableError as exc:
        return _error(match_id, attempt, str(exc), retry=False)
    except InvalidOptionsError as exc:
        # Options or seats the engine refuses: running again cannot help.
        return _error(match_id, attempt, f"invalid match: {exc}", retry=False)
    except InfrastructureError as exc:
        charged = not worker_fitness(node=node, fresh=True)
        return _error(match_id, attempt, f"infrastructure: {exc}", cause=_cause(exc), charged=charged)
    except SoftTimeLimitExceeded:
        return _error(match_id, attempt, "the match exceeded its time limit")
    except Exception as exc:
        # Whatever else went wrong here is this worker's problem (a bad setting, a full disk, a bug),
        # never the match's: it runs again, elsewhere if this worker keeps failing.
        logger.exception("match %s attempt %s failed", match_id, attempt)
        charged = not worker_fitness(node=node, fresh=True)
        return _error(match_id, attempt, f"{type(exc).__name__}: {exc}", cause=_cause(exc), charged=charged)


_fitness: dict[str, tuple[float, list[str]]] = {}


def worker_fitness(*, node: str, fresh: bool = False) -> list[str]:
    """This worker's problems (temp space, package cache, sandbox); empty when it may take matches.

    A pass is trusted for ``ARBITER_WORKER_CHECK_EVERY_S``; a failure is checked
    again every time, so the worker takes matches again as soon as it is fixed.
    Each change is noted in the database for /healthz and /metrics, with the trash's counts.
    """
    now = time.monotonic()
    cached = _fitness.get(node)
    if not fresh and cached is not None and not cached[1] and now - cached[0] < settings.ARBITER_WORKER_CHECK_EVERY_S:
        return cached[1]
    problems = worker_problems(
        limits=settings.ARBITER_SANDBOX,
        package_cache=Path(settings.ARBITER_PACKAGE_CACHE),
        min_free_mb=settings.ARBITER_WORKER_MIN_FREE_MB,
    )
    changed = cached is None or cached[1] != problems
    if problems and changed:
        logger.error("worker %s is unfit and takes no matches: %s", node, "; ".join(problems))
    elif changed and cached is not None:
        logger.warning("worker %s passed its self-check again and takes matches", node)
    if changed or problems:  # a failure is noted each time, so /healthz sees it is current
        try:
            worker_health_note(worker=node, problems=problems, at=db_clock())
        except (OperationalError, InterfaceError) as exc:  # the database is away: the next check notes it
            logger.warning("worker %s: could not note its self-check (%s)", node, exc)
            reconnect()
    try:
        trash_marks_note()  # what this process's trash could not delete, for /metrics
    except (OperationalError, InterfaceError):  # the database is away: the counts wait for the next check
        reconnect()
    _fitness[node] = (now, problems)
    return problems


class WorkerUnfitError(RuntimeError):
    """This worker failed its self-check: it must not take a match (the message goes back)."""


def match_run_next(*, worker: str) -> str:
    """Claim the fairest queued match, play and record it; returns what happened (for the task's log).

    Raises WorkerUnfitError, claiming nothing, while this worker fails its self-check.
    """
    node = worker.rsplit(":", 1)[0]
    problems = worker_fitness(node=node)
    if problems:
        raise WorkerUnfitError("; ".join(problems))
    claimed = match_claim_next(worker=worker)
    if claimed is None:
        return "nothing queued"
    match_id, attempt, spec = claimed
    # The lease is renewed (by this process's one heartbeat thread) until the result is in,
    # through any wait for the database.
    lease = heartbeat.hold(match_id=match_id, attempt=attempt)
    live = LivePublisher(match_id=match_id, attempt=attempt)
    try:
        played = _play(spec, attempt, node, lease.cancelled, live)
        if isinstance(played, str):
            return played
        record: MatchRecord = played
        recorded = _persist(
            f"match {match_id} attempt {attempt}",
            lambda: match_record_result(match_id=match_id, attempt=attempt, record=record),
        )
    finally:
        heartbeat.release(lease)
        live.close()
    return "finished" if recorded else "dropped"


# What a match's run may end in for the loop to go on with the next one: anything else (a
# service error) goes back to one match per message.
_LOOP_ON = {"finished", "dropped", "cancelled"}


def match_run_loop(*, worker: str, seconds: float) -> str:
    """Run the next queued match, then the next ones while any is queued, for up to ``seconds``.

    Returns the one run's outcome (``match_run_next``), or, after several,
    how many ended in each outcome ("3 finished, 1 nothing queued") for the
    task's log.  Each claim is the fair pick of its moment (matches/queue.py),
    as a new message's would be.  The messages of the matches played here
    stay in the queue; a worker that takes one later finds the next queued
    match or nothing.  Raises WorkerUnfitError only before the first claim; a
    later failure of the worker or the database ends the loop, with the
    match it holds dealt with as in one run.
    """
    outcomes = [match_run_next(worker=worker)]
    deadline = time.monotonic() + seconds
    while outcomes[-1] in _LOOP_ON and time.monotonic() < deadline:
        # What the task's prerun does before each message: a connection that broke is replaced.
        close_old_connections()
        try:
            outcomes.append(match_run_next(worker=worker))
        except (WorkerUnfitError, OperationalError, InterfaceError) as exc:
            logger.warning("worker %s stops taking matches in this task: %s", worker, exc)
            outcomes.append("stopped")
    if len(outcomes) == 1:
        return outcomes[0]
    return ", ".join(f"{n} {outcome}" for outcome, n in Counter(outcomes).items())
