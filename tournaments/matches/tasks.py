"""Celery tasks of a match's life: run one, sweep expired leases, re-send lost messages.

Tasks take ids and call one service.  Services send these tasks, so each
task imports its service when it runs (the services import this module,
never the other way round at import time).
"""

from __future__ import annotations

from django.conf import settings

from workers.celery_app import app, beat_every


@app.task(bind=True, acks_late=True, reject_on_worker_lost=True, ignore_result=True)
def run_match(self, match_id: int) -> str:  # type: ignore[no-untyped-def]
    """Claim, play and record one match."""
    from tournaments.matches.runner import match_run, worker_identity

    return match_run(match_id=match_id, worker=worker_identity(hostname=self.request.hostname))


# The sweeper and the dispatcher are acknowledged on receipt: a lost run is harmless (beat
# sends another), and a worker holding no unacknowledged message survives a broker restart
# better (kombu's Redis transport can crash while restoring them on a lost connection).
@app.task(ignore_result=True, acks_late=False)
def matches_sweep() -> int:
    """Re-queue (or error) running matches whose lease expired (scheduled by beat)."""
    from tournaments.matches.recovery import matches_expire_leases

    return matches_expire_leases()


@app.task(ignore_result=True, acks_late=False)
def matches_dispatch() -> int:
    """Re-send queued matches whose message the broker may have lost (scheduled by beat)."""
    from tournaments.matches.recovery import matches_dispatch as dispatch

    return dispatch()


# Both are cheap and idempotent; they share the beat queue, which a small worker on the
# scheduler machine consumes so they never wait behind long matches.  A few intervals
# of expiry keep a backlog bounded.
for _task, _every in (
    (matches_sweep, settings.ARBITER_SWEEP_EVERY_S),
    (matches_dispatch, settings.ARBITER_DISPATCH_EVERY_S),
):
    beat_every(_every, _task, queue=settings.ARBITER_BEAT_QUEUE, expires=4 * _every)
