"""``/healthz``: can this process reach the database and the broker, and start a sandbox?

The answer is JSON, status 200 when every check passes and 503 otherwise, so a
load balancer, Docker's HEALTHCHECK or Kubernetes can act on the code alone and
a human can read why.  The sandbox check runs ``workers.sandbox.start``'s self-test
(``/usr/bin/true`` in a full bubblewrap sandbox); it costs a process start, so
its answer is kept for a while: a pass for ``ARBITER_HEALTH_SANDBOX_TTL``
seconds (300), a failure for 15 s.  ``ARBITER_HEALTH_SANDBOX=0`` leaves the
check out (reported as skipped) on web machines that never run bots.
"""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from kombu import Connection

from tournaments.bots.builds import builds_waiting_for_runtimes
from tournaments.dbclock import db_clock
from tournaments.matches.marks import SWEEP, recovery_marks, workers_unfit
from tournaments.matches.models import Match
from tournaments.matches.recovery import matches_waiting_for_runtimes
from workers.sandbox import start

BROKER_TIMEOUT_S = 3
# A worker's failed self-check is news for this long (an unfit worker notes it again every few seconds).
UNFIT_WINDOW_S = 300
_FAILURE_TTL_S = 15.0


@dataclass
class Check:
    """The outcome of one check."""

    ok: bool
    ms: float
    detail: str = ""
    cached: bool = False
    skipped: bool = False


def _timed(func: Any) -> Check:
    start = time.monotonic()
    try:
        detail = func()
        ok = True
    except Exception as exc:  # any failure is the answer, not an error of the endpoint
        ok, detail = False, f"{type(exc).__name__}: {exc}"[:500]
    return Check(ok=ok, ms=round((time.monotonic() - start) * 1000, 1), detail=detail or "")


def check_database() -> Check:
    """Run ``SELECT 1`` on the default database."""

    def probe() -> str:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
        return connection.vendor

    return _timed(probe)


def check_broker() -> Check:
    """Open (and close) a connection to the Celery broker within a few seconds."""

    def probe() -> str:
        url = settings.CELERY_BROKER_URL
        options = dict(settings.CELERY_BROKER_TRANSPORT_OPTIONS)
        with Connection(url, transport_options=options, connect_timeout=BROKER_TIMEOUT_S) as conn:
            conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_S)  # 0: no retry
            # Redis connects lazily: ask it something so a dead server fails here.
            channel = conn.default_channel
            client = getattr(channel, "client", None)
            if client is not None and hasattr(client, "ping"):
                client.ping()
            return url.split(":", 1)[0]

    return _timed(probe)


_sandbox_lock = threading.Lock()
_sandbox_cache: dict[str, Any] = {}


def check_sandbox() -> Check:
    """The sandbox self-test, remembered for a while (see the module docstring)."""
    if not settings.ARBITER_HEALTH_SANDBOX:
        return Check(ok=True, ms=0.0, detail="not checked on this machine (ARBITER_HEALTH_SANDBOX=0)", skipped=True)
    ttl_ok = settings.ARBITER_HEALTH_SANDBOX_TTL
    # One self-test at a time per process; concurrent probes wait and share its answer.
    with _sandbox_lock:
        cached = _sandbox_cache.get("result")
        if cached is not None:
            check, expires = cached
            if time.monotonic() < expires:
                return Check(**{**asdict(check), "cached": True})
        check = _timed(_sandbox_probe)
        _sandbox_cache["result"] = (check, time.monotonic() + (ttl_ok if check.ok else _FAILURE_TTL_S))
        return check


def _sandbox_probe() -> str:
    limits = settings.ARBITER_SANDBOX
    # The self-test's own memory is per process and keeps successes only; forget it so that a
    # sandbox that broke since (bwrap removed, user namespaces turned off) shows up here.
    start._checked.clear()
    found = start.capabilities(limits)
    if found["sandbox"] != "bubblewrap":
        # Only reached with ARBITER_ALLOW_UNSANDBOXED=1: bots would run without isolation.
        raise start.SandboxUnavailableError("bubblewrap unusable; bots would run unsandboxed")
    # What falls back to something weaker here (no control groups, say) is said, not failed on.
    gaps = "; ".join(found["gaps"]) or "none"
    runtimes = ", ".join(name for name, here in found["runtimes"].items() if here) or "none"
    return f"bubblewrap self-test passed; cgroups: {found['cgroups']}; runtimes: {runtimes}; gaps: {gaps}"


def sweep_age_s() -> float | None:
    """Seconds since the lease sweeper last ran (the database's clock); None when it never has."""
    _, at = recovery_marks().get(SWEEP, (0, None))
    return None if at is None else max(0.0, (db_clock() - at).total_seconds())


def check_sweeper() -> Check:
    """Has beat's lease sweeper run within three of its intervals (or is there nothing for it to watch)?"""

    def probe() -> str:
        age, limit = sweep_age_s(), 3 * settings.ARBITER_SWEEP_EVERY_S
        if age is not None and age <= limit:
            return f"last sweep {age:.0f} s ago"
        active = Match.objects.filter(status__in=[Match.Status.QUEUED, Match.Status.RUNNING]).exists()
        if age is None and not active:
            return "no sweep yet, and no match waits or runs"
        seen = "never" if age is None else f"{age:.0f} s ago"
        raise RuntimeError(f"the lease sweeper last ran {seen} (limit {limit:.0f} s): is beat running?")

    return _timed(probe)


def unfit_workers() -> dict[str, str]:
    """Workers whose self-check failed lately: node -> what is wrong."""
    return workers_unfit(since=db_clock() - timedelta(seconds=UNFIT_WINDOW_S))


def check_workers() -> Check:
    """Did any worker fail its self-check lately?"""

    def probe() -> str:
        unfit = unfit_workers()
        if unfit:
            raise RuntimeError("; ".join(f"{node}: {why}" for node, why in sorted(unfit.items())))
        return "no worker reported a failed self-check"

    return _timed(probe)


def check_runtimes() -> Check:
    """Is any work waiting for a runtime no worker that saw it has (matches, and version builds)?"""

    def probe() -> str:
        waiting = [f"{n} match(es) wait for a worker with {runtime}" for runtime, n in
                   sorted(matches_waiting_for_runtimes().items())]  # fmt: skip
        waiting += [f"{n} build(s) wait for a worker with {runtime}" for runtime, n in
                    sorted(builds_waiting_for_runtimes().items())]  # fmt: skip
        if waiting:
            raise RuntimeError("; ".join(waiting))
        return "no work waits for a runtime"

    return _timed(probe)


def health_report() -> tuple[bool, dict[str, Any]]:
    """Run every check; (no failing check, the JSON body).  A late sweeper degrades, it does not fail."""
    checks = {"database": check_database(), "broker": check_broker(), "sandbox": check_sandbox()}
    ok = all(c.ok for c in checks.values())
    for name, check in (("sweeper", check_sweeper), ("workers", check_workers), ("runtimes", check_runtimes)):
        checks[name] = check() if checks["database"].ok else Check(ok=False, ms=0.0, detail="no database")
    late = ("sweeper", "workers", "runtimes")
    status = "failing" if not ok else "ok" if all(checks[n].ok for n in late) else "degraded"
    body = {
        "status": status,
        "checks": {name: {k: v for k, v in asdict(c).items() if v or k in ("ok", "ms")} for name, c in checks.items()},
    }
    return ok, body


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    """200 with the checks when all pass, 503 with the same body otherwise."""
    ok, body = health_report()
    return JsonResponse(body, status=200 if ok else 503)
