"""Reading recurring schedules: the list with each schedule's latest editions."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

from tournaments.competitions.models import Tournament, TournamentSchedule

EDITIONS_SHOWN = 5  # latest editions listed per schedule


def schedule_list() -> QuerySet[TournamentSchedule]:
    """Every schedule, next to run first (paused ones last), with ``editions`` newest first (all; show a few)."""
    return (
        TournamentSchedule.objects.select_related("owner", "game")
        .prefetch_related(
            Prefetch(
                "editions", queryset=Tournament.objects.only("id", "name", "status", "schedule_id").order_by("-id")
            )
        )
        .order_by("-enabled", "next_run", "id")
    )


def schedule_get(*, schedule_id: int) -> TournamentSchedule | None:
    """One schedule, or None."""
    return schedule_list().filter(id=schedule_id).first()
