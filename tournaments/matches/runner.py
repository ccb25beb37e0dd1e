"""Running a match on this worker: the claim, packages, the heartbeat, the referee, the record.

``match_run_next`` is what the ``run_next`` task calls.  Everything it writes
goes through ``matches.life`` under the attempt it claimed, so a message
delivered twice, or a worker that comes back after losing its lease, never
counts a result twice.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections.abc import Iterator

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection

from engines import InvalidOptionsError
from tournaments.bots.selectors import bot_version_package
from tournaments.matches.life import (
    match_claim_next,
    match_heartbeat,
    match_record_error,
    match_record_result,
    match_time_limit_s,
)
from tournaments.matches.selectors import match_spec
from workers.match import MatchRecord, MatchSpec
from workers.packages import PackageCache, PackageUnavailableError
from workers.referee import play_match
from workers.sandbox import BotProgram, InfrastructureError

logger = logging.getLogger(__name__)


def worker_identity(*, hostname: str | None) -> str:
    """``<celery node name or host name>:<pid>``: enough to find the process that holds a lease."""
    return f"{hostname or os.uname().nodename}:{os.getpid()}"[:200]


def _heartbeat(match_id: int, attempt: int, stop: threading.Event) -> None:
    """Renew this attempt's lease until ``stop`` is set (on its own database connection)."""
    try:
        while not stop.wait(settings.ARBITER_HEARTBEAT_S):
            if not match_heartbeat(match_id=match_id, attempt=attempt):
                # The sweeper gave the match to someone else: our result will be dropped.
                logger.warning("match %s attempt %s lost its lease", match_id, attempt)
                return
    finally:
        connection.close()


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


def _play(match_id: int, attempt: int) -> MatchRecord | str:
    """Play the claimed match: its record, or the status its error left it in."""
    try:
        spec = match_spec(match_id=match_id)
        with _time_limit(match_time_limit_s(seats=spec.seats, clock=spec.clock)):
            return play_match(spec, _programs(spec), limits=settings.ARBITER_SANDBOX)
    except PackageUnavailableError as exc:
        return str(match_record_error(match_id=match_id, attempt=attempt, reason=str(exc), retry=False))
    except InvalidOptionsError as exc:
        # Options or seats the engine refuses: running again cannot help.
        reason = f"invalid match: {exc}"
        return str(match_record_error(match_id=match_id, attempt=attempt, reason=reason, retry=False))
    except InfrastructureError as exc:
        return str(match_record_error(match_id=match_id, attempt=attempt, reason=f"infrastructure: {exc}"))
    except SoftTimeLimitExceeded:
        reason = "the match exceeded its time limit"
        return str(match_record_error(match_id=match_id, attempt=attempt, reason=reason))
    except Exception as exc:
        # Whatever else went wrong here is this worker's problem (a bad setting, a full disk, a bug),
        # never the match's: it runs again, elsewhere if this worker keeps failing.
        logger.exception("match %s attempt %s failed", match_id, attempt)
        reason = f"{type(exc).__name__}: {exc}"
        return str(match_record_error(match_id=match_id, attempt=attempt, reason=reason))


def match_run_next(*, worker: str) -> str:
    """Claim the fairest queued match, play and record it; returns what happened (for the task's log)."""
    claimed = match_claim_next(worker=worker)
    if claimed is None:
        return "nothing queued"
    match_id, attempt = claimed
    stop = threading.Event()
    beat = threading.Thread(target=_heartbeat, args=(match_id, attempt, stop), daemon=True)
    beat.start()
    try:
        played = _play(match_id, attempt)
    finally:
        stop.set()
    if isinstance(played, str):
        return played
    recorded = match_record_result(match_id=match_id, attempt=attempt, record=played)
    return "finished" if recorded else "dropped"
