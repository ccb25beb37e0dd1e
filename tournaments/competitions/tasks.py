"""Celery tasks of competitions: start what is due, top up ladders, refit performance tables.

Tasks take ids and call one service.  Services send these tasks, so each
task imports its service when it runs (the services import this module,
never the other way round at import time).
"""

from __future__ import annotations

from django.conf import settings

from workers.celery_app import app, beat_every


@app.task(ignore_result=True)
def performance_refit(tournament_id: int) -> int:
    """Refit and store a tournament's performance table; returns the finished matches it covers."""
    from tournaments.competitions.services.performance import performance_refresh

    return performance_refresh(tournament_id=tournament_id).matches


@app.task(ignore_result=True)
def tournament_fill(tournament_id: int) -> int:
    """Insert a big round robin's matches in batches; returns how many were inserted."""
    from tournaments.competitions.services.filling import tournament_matches_fill

    return tournament_matches_fill(tournament_id=tournament_id)


@app.task(ignore_result=True)
def tournaments_fill_unfilled() -> int:
    """Send the fill again for every running tournament short of its plan (scheduled by beat)."""
    from tournaments.competitions.services.filling import tournaments_unfilled

    ids = tournaments_unfilled()
    for tournament_id in ids:
        tournament_fill.apply_async(args=(tournament_id,), queue=settings.ARBITER_BEAT_QUEUE)
    return len(ids)


@app.task(ignore_result=True)
def tournaments_rounds_advance() -> int:
    """Plan the next round of every Swiss whose round is over but was not planned (scheduled by beat)."""
    from tournaments.competitions.services.rounds import tournaments_rounds_advance as advance

    return len(advance())


@app.task(ignore_result=True)
def tournaments_finish_overdue() -> int:
    """Finish the round robins and gauntlets whose matches all ended but whose finish was lost (scheduled by beat)."""
    from tournaments.competitions.services.endings import tournaments_finish_overdue as finish_overdue

    return len(finish_overdue())


@app.task(ignore_result=True)
def tournaments_start_due() -> int:
    """Start the draft tournaments whose start time has come (scheduled by beat)."""
    from tournaments.competitions.services.schedules import tournaments_start_due as start_due

    return len(start_due())


@app.task(ignore_result=True)
def schedules_run_due() -> int:
    """Create and start the due edition of every recurring schedule (scheduled by beat)."""
    from tournaments.competitions.services.schedules import schedules_run_due as run_due

    return len(run_due())


@app.task(ignore_result=True)
def ladders_top_up() -> int:
    """Queue ladder matches while other work is scarce (scheduled by beat)."""
    from tournaments.competitions.services.ladders import ladders_top_up as top_up

    return len(top_up())


# These go to their own small queue so a long tournament queue cannot delay them,
# and expire after one interval so a stopped worker finds no backlog.
for _task, _every in (
    (tournaments_start_due, settings.ARBITER_SCHEDULE_POLL_S),
    (tournaments_fill_unfilled, settings.ARBITER_SCHEDULE_POLL_S),
    (tournaments_rounds_advance, settings.ARBITER_SCHEDULE_POLL_S),
    (tournaments_finish_overdue, settings.ARBITER_SCHEDULE_POLL_S),
    (schedules_run_due, settings.ARBITER_SCHEDULE_POLL_S),
    (ladders_top_up, settings.ARBITER_LADDER_POLL_S),
):
    beat_every(_every, _task, queue=settings.ARBITER_BEAT_QUEUE, expires=_every)
