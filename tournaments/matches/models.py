"""Matches and their seats: one game between bot versions, from queued to finished.

A match's whole life (create, enqueue, claim, heartbeat, record) is in
``tournaments.matches.life``; these models hold its data and integrity rules.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from workers.match import Clock

DEFAULT_MOVE_MS = 1000
DEFAULT_GAME_MS = 60_000
DEFAULT_STARTUP_MS = 10_000


class ClockFields(models.Model):
    """A match's time limits in milliseconds; every model that makes matches carries them."""

    move_ms = models.PositiveIntegerField(default=DEFAULT_MOVE_MS)
    game_ms = models.PositiveIntegerField(default=DEFAULT_GAME_MS)
    startup_ms = models.PositiveIntegerField(default=DEFAULT_STARTUP_MS)

    class Meta:
        abstract = True

    @property
    def clock(self) -> Clock:
        """The three limits as the referee takes them."""
        return Clock(move_ms=self.move_ms, game_ms=self.game_ms, startup_ms=self.startup_ms)


# Out here, not nested in the model, so that its Meta can name the members (a class nested in a
# class sees none of that class's names); ``Match.Status`` is this class.
class MatchStatus(models.TextChoices):
    QUEUED = "queued", "Queued"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    ERRORED = "errored", "Errored"
    CANCELLED = "cancelled", "Cancelled"


class Match(ClockFields):
    Status = MatchStatus

    class Kind(models.TextChoices):
        """Who made the match; decides its Celery queue (docs/organisers.md)."""

        TOURNAMENT = "tournament", "Tournament"
        LADDER = "ladder", "Ladder"
        CHALLENGE = "challenge", "Challenge"
        VERSION_TEST = "version_test", "Version test"

    tournament = models.ForeignKey(
        "competitions.Tournament", on_delete=models.PROTECT, related_name="matches", null=True, blank=True
    )
    index = models.PositiveIntegerField(null=True, blank=True, help_text="position in the tournament schedule")
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.TOURNAMENT)
    # Whose work this is (the tournament's owner, the challenger, the tester): queued work is
    # shared fairly between owners (matches/queue.py).  None: the service's own (the ladder).
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    # Higher runs first, whoever owns it (staff raise a tournament's priority).
    priority = models.SmallIntegerField(default=0)
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="matches")
    engine_version = models.CharField(max_length=40)
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    rating_pool = models.CharField(max_length=200)
    rated = models.BooleanField(default=True)
    # Recorded, rated, and its rating changes not applied yet: the pool's applier takes these in
    # finish order, many per transaction (tournaments/ratings/applier.py).
    rating_pending = models.BooleanField(default=False)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempt = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    moves = models.JSONField(default=list, blank=True)
    result_reason = models.TextField(blank=True)
    error_reason = models.TextField(blank=True)
    # A queued match a worker could not run for want of a runtime (``node``...): which, and since
    # when; cleared when the match is recorded or queued again, ended by the sweeper after ARBITER_RUNTIME_WAIT_S.
    waiting_for = models.CharField(max_length=60, blank=True)
    waiting_since = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "index"], name="match_unique_tournament_index"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="match_seats_at_least_two"),
            models.CheckConstraint(
                condition=Q(status__in=MatchStatus.values),
                name="match_status_valid",
            ),
            # A match that ran (or runs) was claimed at least once.
            models.CheckConstraint(
                condition=Q(status__in=[MatchStatus.QUEUED, MatchStatus.CANCELLED, MatchStatus.ERRORED])
                | Q(attempt__gte=1),
                name="match_claimed_has_attempt",
            ),
        ]
        indexes = [
            models.Index(fields=["tournament", "status"], name="match_tournament_status"),
            # Ladder top-up: queued work by kind, and a pool's recent ladder games.
            models.Index(fields=["kind", "status"], name="match_kind_status"),
            models.Index(fields=["kind", "rating_pool", "created"], name="match_kind_pool_created"),
            # The fair queue (matches/queue.py): owners with queued work, each owner's next match,
            # when an owner was last served, and the few matches that jump the queue.
            models.Index(fields=["status", "owner", "index", "id"], name="match_queue_owner"),
            models.Index(fields=["owner", "claimed_at"], name="match_owner_claimed"),
            # Whether a finished match's seed may be shown: is another match of that seed still in play?
            models.Index(fields=["seed"], name="match_seed"),
            models.Index(
                fields=["priority", "id"],
                condition=Q(status=MatchStatus.QUEUED, attempt__gt=0),
                name="match_queue_reruns",
            ),
            models.Index(
                fields=["priority", "id"],
                condition=Q(status=MatchStatus.QUEUED, priority__gt=0),
                name="match_queue_raised",
            ),
            # The ratings' applier: a pool's recorded matches whose changes are not applied yet.
            models.Index(
                fields=["rating_pool", "finished_at", "id"],
                condition=Q(rating_pending=True),
                name="match_rating_pending",
            ),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.game_id}, {self.status})"

    def get_absolute_url(self) -> str:
        """The match's public page."""
        return reverse("web-match", args=[self.pk])


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="match_seats")
    seat = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="match_seats")
    team = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    # 'ok' or the protocol's forfeit status (workers.match.SeatStatus); empty until the match is recorded.
    status = models.CharField(max_length=20, blank=True)
    stderr = models.TextField(blank=True)
    cpu_ms = models.PositiveIntegerField(null=True, blank=True)
    peak_rss_kb = models.PositiveIntegerField(null=True, blank=True)
    reported_name = models.CharField(max_length=100, blank=True)
    reported_version = models.CharField(max_length=100, blank=True)

    class Meta:
        ordering = ["match_id", "seat"]
        constraints = [
            models.UniqueConstraint(fields=["match", "seat"], name="matchseat_unique_seat"),
            models.CheckConstraint(condition=Q(rank__isnull=True) | Q(rank__gte=1), name="matchseat_rank_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.match_id}:{self.seat}"


class TournamentTally(models.Model):
    """How many of a tournament's matches have ended (finished, errored or cancelled): its finish counter.

    Every change of a tournament match into or out of those states adds to it
    in the same transaction (``matches.tally``).  Recording a match adds one
    as its transaction's last statement and hands the count to the
    competition, which compares it with the plan (``competitions``'
    ``tournament_matches_ended``): the count's row is held only until that
    commit, where the tournament's row used to be locked for the whole
    record.  Its own table, not a column of the tournament, so that a
    cancel, which locks the tournament and then its matches, and a record,
    which holds its match and then takes the count, never wait for each other.
    """

    tournament = models.OneToOneField(
        "competitions.Tournament", on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    ended = models.PositiveIntegerField(default=0)

    def __str__(self) -> str:
        return f"tournament {self.tournament_id}: {self.ended} ended"


class RecoveryMark(models.Model):
    """A named count and time kept by the recovery machinery, shown by /healthz and /metrics.

    ``sweep``: when the lease sweeper last ran (``at``) and how many times;
    ``sweep_resumed``: when it last came back after not running; ``expired``:
    leases ended; ``rerun:<cause>``: attempts ended by the service and run again;
    ``worker:<node>``: a worker's last self-check (``count`` problems, ``detail`` what).
    The database holds them so that every process (web, workers, beat) sees the same.
    """

    name = models.CharField(max_length=260, primary_key=True)
    count = models.BigIntegerField(default=0)
    at = models.DateTimeField(null=True, blank=True)
    detail = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"{self.name}={self.count}"
