"""Tournaments that start themselves, and schedules that create them again and again.

Two beat tasks call in here.  ``tournaments_start_due`` starts every draft
tournament whose ``start_at`` has come; ``schedules_run_due`` creates (and
starts) one edition of every schedule whose ``next_run`` has come.  Both
claim their row with a conditional UPDATE inside the transaction that does
the work, so two beat processes (or one beat's overlapping runs) never
start a tournament twice nor create an edition twice: the second UPDATE
waits for the first transaction and then matches no row.

Times are UTC throughout, on the database's clock (tournaments/dbclock.py): the
beat on any host compares ``start_at`` and ``next_run`` with the same clock
that computed them.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta

from celery.schedules import ParseException, crontab_parser
from django.db import transaction
from django.utils import timezone

from engines import get_engine
from tournaments.competitions.models import Tournament, TournamentSchedule
from tournaments.competitions.models.schedules import SCHEDULE_FORMATS
from tournaments.competitions.services.tournaments import (
    tournament_cancel,
    tournament_create,
    tournament_start,
)
from tournaments.dbclock import db_clock
from tournaments.errors import ServiceError
from tournaments.games.config import game_config_check
from tournaments.games.models import Game
from tournaments.matches.clocks import clock_check

logger = logging.getLogger(__name__)

UTC = timezone.get_fixed_timezone(0)
# A cron expression that matches nothing within this many days matches nothing at all
# (every calendar pattern, 29 February included, repeats within four years plus a leap day).
CRON_HORIZON_DAYS = 366 * 4 + 1


# -- cron expressions -------------------------------------------------------------------


@dataclass(frozen=True)
class Cron:
    """A parsed five-field cron expression: sets of allowed values per field."""

    minutes: frozenset[int]
    hours: frozenset[int]
    days: frozenset[int]
    months: frozenset[int]
    weekdays: frozenset[int]  # 0 = Sunday, as in cron
    days_restricted: bool
    weekdays_restricted: bool

    def day_matches(self, day: date) -> bool:
        """Cron's day rule: when both day fields are restricted, either one may match."""
        if day.month not in self.months:
            return False
        in_month = day.day in self.days
        in_week = (day.weekday() + 1) % 7 in self.weekdays
        if self.days_restricted and self.weekdays_restricted:
            return in_month or in_week
        return in_month and in_week


def cron_parse(expression: str) -> Cron:
    """Parse ``minute hour day-of-month month day-of-week``; ServiceError when malformed.

    Field syntax is Celery's crontab parser's (``*``, ``a-b``, ``*/n``,
    ``a-b/n``, lists, day and month names); day-of-week 7 means Sunday too.
    """
    fields = expression.split()
    if len(fields) != 5:
        raise ServiceError(
            "A cron expression has five fields: minute hour day-of-month month day-of-week.",
            fields={"cron": ["five fields"]},
        )
    minute, hour, day, month, weekday = fields
    try:
        weekdays = set(crontab_parser(8).parse(weekday))
        if 7 in weekdays:
            weekdays = (weekdays - {7}) | {0}
        return Cron(
            minutes=frozenset(crontab_parser(60).parse(minute)),
            hours=frozenset(crontab_parser(24).parse(hour)),
            days=frozenset(crontab_parser(31, 1).parse(day)),
            months=frozenset(crontab_parser(12, 1).parse(month)),
            weekdays=frozenset(weekdays),
            days_restricted=day != "*",
            weekdays_restricted=weekday != "*",
        )
    except (ParseException, ValueError) as exc:
        raise ServiceError(f"Invalid cron expression: {exc}", fields={"cron": [str(exc)]}) from exc


def cron_next(cron: Cron, *, after: datetime) -> datetime | None:
    """The first minute strictly after ``after`` that ``cron`` matches, or None if it never does."""
    after = after.astimezone(UTC)
    start = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    hours = sorted(cron.hours)
    minutes = sorted(cron.minutes)
    day = start.date()
    for _ in range(CRON_HORIZON_DAYS):
        if cron.day_matches(day):
            for hour in hours:
                for minute in minutes:
                    moment = datetime.combine(day, time(hour, minute), tzinfo=UTC)
                    if moment >= start:
                        return moment
        day += timedelta(days=1)
    return None


# -- next run of a schedule -------------------------------------------------------------------


def schedule_next_run(
    *, kind: str, after: datetime, at_time: time | None = None, weekday: int | None = None, cron: str = ""
) -> datetime:
    """When a schedule fires next, strictly after ``after`` (UTC)."""
    after = after.astimezone(UTC)
    if kind == TournamentSchedule.Kind.CRON:
        moment = cron_next(cron_parse(cron), after=after)
        if moment is None:
            raise ServiceError("The cron expression never matches a date.", fields={"cron": ["never matches"]})
        return moment
    if at_time is None:
        raise ServiceError("Daily and weekly schedules need a time of day.", fields={"at_time": ["required"]})
    at = at_time.replace(tzinfo=None)
    if kind == TournamentSchedule.Kind.DAILY:
        moment = datetime.combine(after.date(), at, tzinfo=UTC)
        return moment if moment > after else moment + timedelta(days=1)
    if kind == TournamentSchedule.Kind.WEEKLY:
        if weekday is None or not 0 <= weekday <= 6:
            raise ServiceError("Weekly schedules need a weekday (0 Monday to 6 Sunday).", fields={"weekday": ["0-6"]})
        ahead = (weekday - after.weekday()) % 7
        moment = datetime.combine(after.date() + timedelta(days=ahead), at, tzinfo=UTC)
        return moment if moment > after else moment + timedelta(days=7)
    raise ServiceError(f"Unknown schedule kind {kind!r}.", fields={"kind": ["invalid choice"]})


def schedule_next_runs(*, schedule: TournamentSchedule, after: datetime, count: int = 5) -> list[datetime]:
    """The schedule's next ``count`` runs after ``after`` (UTC), for a person to check before saving it.

    ServiceError as ``schedule_next_run`` for a missing time, weekday or a cron expression that never matches.
    """
    runs: list[datetime] = []
    for _ in range(count):
        after = schedule_next_run(
            kind=schedule.kind, after=after, at_time=schedule.at_time, weekday=schedule.weekday, cron=schedule.cron
        )
        runs.append(after)
    return runs


def edition_name(*, schedule: TournamentSchedule, run: datetime) -> str:
    """``"<name> YYYY-MM-DD"``; with the time too when the schedule fires more than once a day."""
    run = run.astimezone(UTC)
    name = f"{schedule.name} {run:%Y-%m-%d}"
    if schedule.kind == TournamentSchedule.Kind.CRON:
        following = cron_next(cron_parse(schedule.cron), after=run)
        if following is not None and following - run < timedelta(days=1):
            name += f" {run:%H:%M}"
    return name[:200]


# -- schedules: validation and saving --------------------------------------------------------


def schedule_clean(*, schedule: TournamentSchedule) -> None:
    """Check a schedule's game, options, seats, format, clocks and timing; normalises options in place.

    Raises ServiceError naming the bad field.
    """
    game = Game.objects.filter(id=schedule.game_id, available=True).first()
    if game is None:
        raise ServiceError(f"Unknown game {schedule.game_id!r}.", code="unknown_game", fields={"game": ["unknown"]})
    config = game_config_check(engine=get_engine(game.id), seats=schedule.seats or None, options=schedule.options)
    schedule.seats, schedule.options = config.seats, config.options
    if schedule.format not in dict(SCHEDULE_FORMATS):
        raise ServiceError("Format is 'single' or 'double'.", fields={"format": ["invalid choice"]})
    if not 1 <= schedule.games_per_pairing <= 100:
        raise ServiceError("games_per_pairing is 1 to 100.", fields={"games_per_pairing": ["out of range"]})
    clock_check(schedule.clock)
    if not schedule.name.strip():
        raise ServiceError("A schedule needs a name.", fields={"name": ["required"]})
    if schedule.kind == TournamentSchedule.Kind.CRON:
        schedule.cron = " ".join(schedule.cron.split())
    else:
        schedule.cron = ""
    if schedule.kind != TournamentSchedule.Kind.WEEKLY:
        schedule.weekday = None
    # Raises for a missing time, weekday or a cron expression that never matches.
    schedule_next_run(
        kind=schedule.kind, after=db_clock(), at_time=schedule.at_time, weekday=schedule.weekday, cron=schedule.cron
    )


def schedule_save(*, schedule: TournamentSchedule, now: datetime | None = None) -> TournamentSchedule:
    """Validate and save a new or edited schedule; ``next_run`` is recomputed from now.

    A disabled schedule keeps no ``next_run``, so the beat ignores it.
    """
    schedule_clean(schedule=schedule)
    now = now or db_clock()
    schedule.next_run = (
        schedule_next_run(
            kind=schedule.kind, after=now, at_time=schedule.at_time, weekday=schedule.weekday, cron=schedule.cron
        )
        if schedule.enabled
        else None
    )
    schedule.save()
    return schedule


# -- the beat's work ------------------------------------------------------------------------


def tournament_start_scheduled(*, tournament_id: int, now: datetime | None = None) -> bool:
    """Start one draft tournament whose start time has come; False if it is not (or no longer) due.

    The conditional UPDATE is the claim: of two callers, the second waits for
    the first's transaction and then finds the tournament started.
    """
    now = now or db_clock()
    try:
        with transaction.atomic():
            claimed = Tournament.objects.filter(
                pk=tournament_id, status=Tournament.Status.DRAFT, start_at__lte=now, started__isnull=True
            ).update(started=now)
            if not claimed:
                return False
            tournament = Tournament.objects.select_related("owner").get(pk=tournament_id)
            tournament_start(tournament=tournament, user=tournament.owner)
    except ServiceError as exc:
        # Starting again every few seconds cannot help: say why and cancel it.
        logger.error("scheduled tournament %s cannot start: %s; cancelling it", tournament_id, exc)
        tournament = Tournament.objects.select_related("owner").get(pk=tournament_id)
        tournament_cancel(tournament=tournament, user=tournament.owner)
        return False
    return True


def tournaments_start_due(*, now: datetime | None = None) -> list[int]:
    """Start every draft tournament whose ``start_at`` has passed; returns the ids started here."""
    now = now or db_clock()
    due = Tournament.objects.filter(status=Tournament.Status.DRAFT, start_at__lte=now, started__isnull=True)
    started = []
    for tournament_id in due.order_by("start_at", "id").values_list("id", flat=True):
        if tournament_start_scheduled(tournament_id=tournament_id, now=now):
            started.append(tournament_id)
    if started:
        logger.info("started scheduled tournaments %s", started)
    return started


def schedule_run(*, schedule_id: int, now: datetime | None = None) -> Tournament | None:
    """Create the due edition of one schedule, once; None when it is not (or no longer) due.

    The claim moves ``next_run`` on with a conditional UPDATE on its old
    value; the edition is created in the same transaction, so either both
    happen or neither.  Runs missed while the beat was down collapse into
    one edition.  The edition is then started straight away (were that to
    fail, its ``start_at`` lets ``tournaments_start_due`` start it later).
    """
    now = now or db_clock()
    with transaction.atomic():
        schedule = TournamentSchedule.objects.select_related("owner").filter(pk=schedule_id).first()
        if schedule is None or not schedule.enabled or schedule.next_run is None or schedule.next_run > now:
            return None
        due = schedule.next_run
        following = schedule_next_run(
            kind=schedule.kind, after=now, at_time=schedule.at_time, weekday=schedule.weekday, cron=schedule.cron
        )
        claimed = TournamentSchedule.objects.filter(pk=schedule_id, enabled=True, next_run=due).update(
            next_run=following, last_run=now
        )
        if not claimed:
            return None
        edition = tournament_create(
            owner=schedule.owner,
            game_id=schedule.game_id,
            name=edition_name(schedule=schedule, run=due),
            bot_ids=[],
            options=schedule.options,
            seats=schedule.seats,
            format=schedule.format,
            games_per_pairing=schedule.games_per_pairing,
            move_ms=schedule.move_ms,
            game_ms=schedule.game_ms,
            startup_ms=schedule.startup_ms,
            rated=schedule.rated,
            start_at=due,
            all_active=True,
            schedule=schedule,
        )
    logger.info("schedule %s created edition %s (%s)", schedule_id, edition.pk, edition.name)
    tournament_start_scheduled(tournament_id=edition.pk, now=now)
    edition.refresh_from_db()
    return edition


def schedules_run_due(*, now: datetime | None = None) -> list[int]:
    """Create and start the due edition of every enabled schedule; returns the new tournaments' ids."""
    now = now or db_clock()
    due = TournamentSchedule.objects.filter(enabled=True, next_run__lte=now).order_by("next_run", "id")
    created = []
    for schedule_id in due.values_list("id", flat=True):
        try:
            edition = schedule_run(schedule_id=schedule_id, now=now)
        except ServiceError as exc:
            # The game or its options went away: the schedule stays, disabled, for the organiser to fix.
            logger.error("schedule %s cannot create an edition: %s; disabling it", schedule_id, exc)
            TournamentSchedule.objects.filter(pk=schedule_id).update(enabled=False, next_run=None)
            continue
        if edition is not None:
            created.append(edition.pk)
    return created
