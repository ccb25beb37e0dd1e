"""Recurring tournament schedules: one round robin ("an edition") each time one comes round.

Writes go through ``tournaments.competitions.services.schedules``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from tournaments.competitions.models.tournaments import Tournament
from tournaments.matches.models import ClockFields

# What a schedule can repeat: editions take every active bot, so a gauntlet (which names a challenger) is not one.
# Gauntlets and knockouts are made one at a time, not by a schedule.
SCHEDULE_FORMATS = [
    (value, label)
    for value, label in Tournament.Format.choices
    if value not in (Tournament.Format.GAUNTLET, Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION)
]


# Out here, not nested in the model, so that its Meta can name the members (a class nested in a
# class sees none of that class's names); ``TournamentSchedule.Kind`` is this class.
class ScheduleKind(models.TextChoices):
    DAILY = "daily", "Daily at a time"
    WEEKLY = "weekly", "Weekly on a weekday at a time"
    CRON = "cron", "Cron expression"


class TournamentSchedule(ClockFields):
    """Creates and starts one round robin ("an edition") each time it comes round.

    Every edition takes the latest versions of all active bots of the game at
    its start.  ``next_run`` is computed by the service and stored, so the
    beat task can claim a due run with one conditional UPDATE.
    """

    Kind = ScheduleKind

    class Weekday(models.IntegerChoices):
        MONDAY = 0, "Monday"
        TUESDAY = 1, "Tuesday"
        WEDNESDAY = 2, "Wednesday"
        THURSDAY = 3, "Thursday"
        FRIDAY = 4, "Friday"
        SATURDAY = 5, "Saturday"
        SUNDAY = 6, "Sunday"

    name = models.CharField(
        max_length=180, help_text="each edition is called by this name and its date, e.g. 'Weekly 2026-05-04'"
    )
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournament_schedules")
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="schedules")
    options = models.JSONField(default=dict, blank=True)
    seats = models.PositiveSmallIntegerField()
    format = models.CharField(max_length=10, choices=SCHEDULE_FORMATS, default=Tournament.Format.SINGLE)
    games_per_pairing = models.PositiveSmallIntegerField(default=2)
    rated = models.BooleanField(default=True)
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.DAILY)
    # Times are UTC, like every time in Arbiter (TIME_ZONE = "UTC").
    at_time = models.TimeField(null=True, blank=True, help_text="UTC time of day (daily and weekly)")
    weekday = models.PositiveSmallIntegerField(choices=Weekday.choices, null=True, blank=True)
    cron = models.CharField(max_length=120, blank=True, help_text="minute hour day-of-month month day-of-week (UTC)")
    enabled = models.BooleanField(default=True)
    next_run = models.DateTimeField(null=True, blank=True, db_index=True)
    last_run = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["next_run", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=ScheduleKind.values), name="schedule_kind_valid"),
            models.CheckConstraint(
                condition=Q(kind=ScheduleKind.CRON) | Q(at_time__isnull=False), name="schedule_time_for_daily_weekly"
            ),
            models.CheckConstraint(
                condition=~Q(kind=ScheduleKind.WEEKLY) | Q(weekday__gte=0, weekday__lte=6),
                name="schedule_weekday_for_weekly",
            ),
            models.CheckConstraint(condition=~Q(kind=ScheduleKind.CRON) | ~Q(cron=""), name="schedule_cron_for_cron"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="schedule_seats_at_least_two"),
        ]

    def __str__(self) -> str:
        return self.name
