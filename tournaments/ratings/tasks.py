"""Celery tasks of ratings: applying recorded matches (``applier.py``), keeping pool fits current."""

from __future__ import annotations

from django.conf import settings

from workers.celery_app import app, beat_every


@app.task(ignore_result=True)
def ratings_apply(pool: str) -> int:
    """Apply the pool's recorded matches whose rating changes are pending (sent after each rated record)."""
    from tournaments.ratings.applier import ratings_apply_pending

    return ratings_apply_pending(pool=pool, wait=True) or 0


@app.task(ignore_result=True)
def ratings_apply_catch_up() -> int:
    """Apply whatever is pending in any pool (scheduled by beat: a lost message, a worker killed after its record)."""
    from tournaments.ratings.applier import ratings_apply_all

    return ratings_apply_all()


@app.task(ignore_result=True)
def pool_fits_refresh() -> int:
    """Refit the rating pools whose ratings moved since their last fit (scheduled by beat)."""
    from tournaments.ratings.fits import pool_fits_refresh as refresh

    return len(refresh())


# On the short-task queue; each expires after one interval so a stopped worker finds no backlog.
beat_every(
    settings.ARBITER_POOL_FIT_EVERY_S,
    pool_fits_refresh,
    queue=settings.ARBITER_BEAT_QUEUE,
    expires=settings.ARBITER_POOL_FIT_EVERY_S,
)
beat_every(
    settings.ARBITER_RATINGS_APPLY_EVERY_S,
    ratings_apply_catch_up,
    queue=settings.ARBITER_BEAT_QUEUE,
    expires=settings.ARBITER_RATINGS_APPLY_EVERY_S,
)
