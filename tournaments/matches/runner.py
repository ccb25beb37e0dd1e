"""Running a claimed match on this worker: packages, the heartbeat, the referee, the record.

``match_run`` is what the ``run_match`` task calls.  Everything it writes
goes through ``matches.life`` under the attempt it claimed, so a message
delivered twice, or a worker that comes back after losing its lease, never
counts a result twice.
"""

from __future__ import annotations

import logging
import os
import threading

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.core.exceptions import ObjectDoesNotExist
from django.db import connection

from engines import InvalidOptionsError
from tournaments.bots.selectors import bot_version_package
from tournaments.matches.life import match_claim, match_heartbeat, match_record_error, match_record_result
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
    cache = PackageCache(settings.ARBITER_PACKAGE_CACHE)
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


def _play(match_id: int, attempt: int) -> MatchRecord | str:
    """Play the claimed match: its record, or the status its error left it in."""
    try:
        spec = match_spec(match_id=match_id)
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


def match_run(*, match_id: int, worker: str) -> str:
    """Claim, play and record one match; returns what happened (for the task's log)."""
    attempt = match_claim(match_id=match_id, worker=worker)
    if attempt is None:
        return "not claimed"
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
