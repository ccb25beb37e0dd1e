"""Building a version on the service: requested at upload, claimed by one worker, ended once.

A version whose bot.json names a ``build`` gets a ``BotBuild`` row (BUILDING)
in its upload's transaction, and on commit a ``version_build`` message.  A
worker that has the build's runtime (``gcc`` for ``["gcc", ...]``) claims it
with a conditional UPDATE, so two workers never build the same version, runs
it in the sandbox (``workers.packages.build``) and records READY with the built
archive, or FAILED with the reason.  The claim holds the build until
``lease_until`` (the build's time limit plus a lease): a worker that died
mid-build loses it there, and the sweeper (``builds_resend``, run by beat)
sends it again, up to ``ARBITER_BUILD_ATTEMPTS`` claims.  A worker without
the runtime leaves the build and notes so in its log ("waiting for a worker
with gcc"); the sweeper sends it again later.  So does a worker whose bots run
unsandboxed (``workers.packages.build.builds_here``).
"""

from __future__ import annotations

import hashlib
import logging
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q

from tournaments.bots.models import BotBuild, BotVersion
from tournaments.bots.selectors import bot_version_sources
from tournaments.bots.tasks import version_build
from tournaments.dbclock import db_clock
from workers.packages.build import BuildLimits, BuildOutcome, build_package, builds_here
from workers.sandbox.runtimes import runtime_available, runtime_of
from workers.sandbox.start import InfrastructureError

logger = logging.getLogger(__name__)


def build_request(*, version: BotVersion, command: tuple[str, ...]) -> BotBuild:
    """Ask for ``version`` to be built with ``command`` (inside the upload's transaction; sent on commit)."""
    build = BotBuild.objects.create(version=version, command=list(command), lease_until=_resend_at(db_clock()))
    transaction.on_commit(lambda: _send(version.id))
    return build


def _resend_at(now: datetime) -> datetime:
    return now + timedelta(seconds=settings.ARBITER_BUILD_RESEND_S)


def _send(version_id: int) -> None:
    try:
        version_build.apply_async(args=(version_id,))
    except Exception:  # the broker is down: the sweeper sends it once it is back
        logger.warning("could not send the build of version %s; the sweeper sends it", version_id)


def build_claim(*, version_id: int, worker: str) -> tuple[int, list[str]] | None:
    """Take the build of ``version_id`` for this worker: (attempt, build command), or None if not to be had.

    Only a BUILDING build nobody holds (never claimed, or its holder's lease is over) is taken.
    """
    now = db_clock()
    lease = timedelta(seconds=settings.ARBITER_BUILD_SECONDS + settings.ARBITER_LEASE_S)
    free = Q(worker="") | Q(lease_until__lt=now)
    with transaction.atomic():
        taken = (
            BotBuild.objects.filter(free, version_id=version_id, status=BotBuild.Status.BUILDING)
            .filter(attempt__lt=settings.ARBITER_BUILD_ATTEMPTS)
            .update(worker=worker[:200], lease_until=now + lease, attempt=F("attempt") + 1)
        )
        if not taken:
            return None
        attempt, command = BotBuild.objects.values_list("attempt", "command").get(version_id=version_id)
        return attempt, list(command)


def build_record(*, version_id: int, attempt: int, outcome: BuildOutcome) -> bool:
    """End the build under the attempt that claimed it: READY with its archive, or FAILED; False if not ours."""
    fields: dict[str, object] = {"log": outcome.log, "finished": db_clock(), "lease_until": None}
    if outcome.ok:
        fields.update(
            status=BotBuild.Status.READY,
            archive=outcome.archive,
            checksum=hashlib.sha256(outcome.archive).hexdigest(),
        )
    else:
        fields.update(status=BotBuild.Status.FAILED)
    ended = BotBuild.objects.filter(version_id=version_id, attempt=attempt, status=BotBuild.Status.BUILDING).update(
        **fields
    )
    if not ended:
        logger.warning("dropping the build of version %s attempt %s: no longer this attempt's", version_id, attempt)
    return bool(ended)


def _release(*, version_id: int, attempt: int, note: str) -> None:
    """Give a claimed build back (this machine's fault): the sweeper sends it again after a pause."""
    BotBuild.objects.filter(version_id=version_id, attempt=attempt, status=BotBuild.Status.BUILDING).update(
        worker="", lease_until=_resend_at(db_clock()), log=note
    )


def version_build_run(*, version_id: int, worker: str) -> str:
    """Build version ``version_id`` here if this worker can and nobody else has; what happened (for the log)."""
    command = BotBuild.objects.filter(version_id=version_id).values_list("command", flat=True).first()
    if command is None:
        return "no such build"
    if not builds_here(settings.ARBITER_SANDBOX):
        BotBuild.objects.filter(version_id=version_id, status=BotBuild.Status.BUILDING, worker="").update(
            log=f"waiting for a worker with a sandbox (worker {worker} runs bots unsandboxed)"
        )
        return "left for a worker with a sandbox"
    runtime = runtime_of(command)
    if runtime is not None and not runtime_available(runtime):
        BotBuild.objects.filter(version_id=version_id, status=BotBuild.Status.BUILDING, worker="").update(
            log=f"waiting for a worker with {runtime} (worker {worker} has none)"
        )
        return f"left for a worker with {runtime}"
    claimed = build_claim(version_id=version_id, worker=worker)
    if claimed is None:
        return "not to be had"
    attempt, command = claimed
    data, filename = bot_version_sources(version_id=version_id)
    try:
        outcome = build_package(
            data,
            filename,
            tuple(command),
            bots=settings.ARBITER_SANDBOX,
            limits=BuildLimits.from_env(runtime_of(command)),
        )
    except Exception as exc:
        # No slot, no sandbox, a full disk: this worker's fault, never the author's.
        if not isinstance(exc, InfrastructureError):
            logger.exception("build of version %s attempt %s failed on this worker", version_id, attempt)
        logger.warning("build of version %s attempt %s: this worker could not run it (%s)", version_id, attempt, exc)
        _release(version_id=version_id, attempt=attempt, note=f"to be built again (a worker failed: {exc})")
        return "given back"
    build_record(version_id=version_id, attempt=attempt, outcome=outcome)
    return "ready" if outcome.ok else "failed"


def builds_waiting_for_runtimes() -> dict[str, int]:
    """Builds that a worker left for want of their program, by that program (for /healthz)."""
    left = BotBuild.objects.filter(status=BotBuild.Status.BUILDING, worker="")
    commands = left.filter(log__startswith="waiting for a worker with ")
    counts: dict[str, int] = {}
    for command in commands.values_list("command", flat=True):
        runtime = runtime_of(command) or "?"
        counts[runtime] = counts.get(runtime, 0) + 1
    return counts


def builds_resend(*, now: datetime | None = None) -> int:
    """Send again every build that waits past its time; fail those whose workers kept dying.  How many were sent."""
    now = now or db_clock()
    waiting = list(
        BotBuild.objects.filter(status=BotBuild.Status.BUILDING, lease_until__lt=now).values_list(
            "version_id", "attempt", "worker"
        )
    )
    sent = 0
    for version_id, attempt, worker in waiting:
        if worker and attempt >= settings.ARBITER_BUILD_ATTEMPTS:
            BotBuild.objects.filter(version_id=version_id, attempt=attempt, status=BotBuild.Status.BUILDING).update(
                status=BotBuild.Status.FAILED,
                finished=now,
                lease_until=None,
                log=f"the build was started {attempt} times and its worker stopped each time (last: {worker})",
            )
            continue
        resent = BotBuild.objects.filter(
            version_id=version_id, attempt=attempt, status=BotBuild.Status.BUILDING, lease_until__lt=now
        ).update(worker="", lease_until=_resend_at(now))
        if resent:
            if worker:
                logger.warning("build of version %s: worker %s stopped mid-build; sent again", version_id, worker)
            _send(version_id)
            sent += 1
    return sent
