"""Celery tasks of ratings: keeping the pools' whole-history fits (leaderboard error bars) current."""

from __future__ import annotations

from django.conf import settings

from workers.celery_app import app, beat_every


@app.task(ignore_result=True)
def pool_fits_refresh() -> int:
    """Refit the rating pools whose ratings moved since their last fit (scheduled by beat)."""
    from tournaments.ratings.fits import pool_fits_refresh as refresh

    return len(refresh())


# On the short-task queue; expires after one interval so a stopped worker finds no backlog.
beat_every(
    settings.ARBITER_POOL_FIT_EVERY_S,
    pool_fits_refresh,
    queue=settings.ARBITER_BEAT_QUEUE,
    expires=settings.ARBITER_POOL_FIT_EVERY_S,
)
