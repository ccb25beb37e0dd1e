"""Arbiter's data: games, bots and their immutable versions, tournaments,
matches with their seats, and Elo ratings with every change kept.

Models hold data and integrity rules only; every write goes through
``tournaments.services`` and every non-trivial read through
``tournaments.selectors``.  History (versions, matches, rating changes) is
protected from deletion: foreign keys into it use PROTECT.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q


class Game(models.Model):
    """One registered engine, mirrored from the registry by ``game_sync``."""

    id = models.CharField(primary_key=True, max_length=40)
    name = models.CharField(max_length=200)
    version = models.CharField(max_length=40)
    seat_counts = models.JSONField(default=list)
    description = models.JSONField(default=dict, help_text="engine.describe() at the last sync")
    rules_doc = models.CharField(max_length=300, blank=True)
    # False when the engine disappeared from the registry: kept for history.
    available = models.BooleanField(default=True)
    synced_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return self.name


class Bot(models.Model):
    class Visibility(models.TextChoices):
        PUBLIC = "public", "Public"
        PRIVATE = "private", "Private"

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="bots")
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="bots")
    name = models.CharField(max_length=64)
    description = models.TextField(blank=True)
    visibility = models.CharField(max_length=10, choices=Visibility.choices, default=Visibility.PUBLIC)
    active = models.BooleanField(default=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "name", "id"]
        constraints = [
            models.UniqueConstraint(fields=["owner", "name", "game"], name="bot_unique_owner_name_game"),
            models.CheckConstraint(condition=Q(visibility__in=["public", "private"]), name="bot_visibility_valid"),
            models.CheckConstraint(condition=~Q(name=""), name="bot_name_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.game_id})"


class BotVersion(models.Model):
    """An uploaded package.  Never changed after creation."""

    bot = models.ForeignKey(Bot, on_delete=models.PROTECT, related_name="versions")
    number = models.PositiveIntegerField()
    package = models.BinaryField(editable=False)
    filename = models.CharField(max_length=255)
    checksum = models.CharField(max_length=64, help_text="sha256 of the package bytes")
    size = models.PositiveIntegerField()
    kind = models.CharField(max_length=40, blank=True)
    command = models.JSONField(default=list)
    unpacked_bytes = models.PositiveBigIntegerField(default=0)
    notes = models.TextField(blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["bot_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["bot", "number"], name="botversion_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="botversion_number_positive"),
            models.CheckConstraint(condition=Q(size__gt=0), name="botversion_size_positive"),
        ]
        # -- bench indexes (docs/benchmarks.md) --
        # The leaderboard's "no newer version" anti-join reads (bot, number, id) of every
        # version; covering them lets PostgreSQL skip the heap rows (packages sit inline).
        indexes = [models.Index(fields=["bot", "number"], include=["id"], name="botversion_bot_number_cover")]
        # -- end bench indexes --

    def __str__(self) -> str:
        return f"{self.bot.name} v{self.number}"


class Tournament(models.Model):
    class Format(models.TextChoices):
        SINGLE = "single", "Single round robin"
        DOUBLE = "double", "Double round robin"

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        CANCELLED = "cancelled", "Cancelled"

    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="tournaments")
    name = models.CharField(max_length=200)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments")
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    format = models.CharField(max_length=10, choices=Format.choices, default=Format.SINGLE)
    games_per_pairing = models.PositiveSmallIntegerField(default=2)
    move_ms = models.PositiveIntegerField(default=1000)
    game_ms = models.PositiveIntegerField(default=60000)
    startup_ms = models.PositiveIntegerField(default=10000)
    rated = models.BooleanField(default=True)
    rating_pool = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    participants = models.ManyToManyField(BotVersion, through="Participant", related_name="tournaments")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # -- scheduled and recurring tournaments (models_schedules.py) --
    start_at = models.DateTimeField(null=True, blank=True, db_index=True, help_text="starts itself then (UTC)")
    all_active = models.BooleanField(
        default=False, help_text="participants: every active bot of the game (latest version) at start time"
    )
    schedule = models.ForeignKey(
        "tournaments.TournamentSchedule", on_delete=models.SET_NULL, null=True, blank=True, related_name="editions"
    )
    # -- end scheduled and recurring tournaments --

    class Meta:
        ordering = ["-created", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(seats__gte=2), name="tournament_seats_at_least_two"),
            models.CheckConstraint(
                condition=Q(games_per_pairing__gte=1) & Q(games_per_pairing__lte=100), name="tournament_games_range"
            ),
            models.CheckConstraint(
                condition=Q(move_ms__gte=1) & Q(game_ms__gte=1) & Q(startup_ms__gte=1),
                name="tournament_clocks_positive",
            ),
            models.CheckConstraint(condition=Q(format__in=["single", "double"]), name="tournament_format_valid"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "running", "finished", "cancelled"]), name="tournament_status_valid"
            ),
        ]

    def __str__(self) -> str:
        return self.name


class Participant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="entries")
    # Position in the participant list; the schedule's rotation is built on it.
    number = models.PositiveIntegerField()

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot_version"], name="participant_unique_version"),
            models.UniqueConstraint(fields=["tournament", "number"], name="participant_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.tournament_id}#{self.number}: {self.bot_version_id}"


class Match(models.Model):
    class Status(models.TextChoices):
        QUEUED = "queued", "Queued"
        RUNNING = "running", "Running"
        FINISHED = "finished", "Finished"
        ERRORED = "errored", "Errored"
        CANCELLED = "cancelled", "Cancelled"

    tournament = models.ForeignKey(Tournament, on_delete=models.PROTECT, related_name="matches", null=True, blank=True)
    index = models.PositiveIntegerField(null=True, blank=True, help_text="position in the tournament schedule")

    # -- kinds of work: decides the Celery queue (see docs/organisers.md) --
    class Kind(models.TextChoices):
        TOURNAMENT = "tournament", "Tournament"
        LADDER = "ladder", "Ladder"
        CHALLENGE = "challenge", "Challenge"
        VERSION_TEST = "version_test", "Version test"

    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.TOURNAMENT)
    # -- end kinds of work --
    game = models.ForeignKey(Game, on_delete=models.PROTECT, related_name="matches")
    engine_version = models.CharField(max_length=40)
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    seed = models.BigIntegerField()
    rating_pool = models.CharField(max_length=200)
    rated = models.BooleanField(default=True)
    move_ms = models.PositiveIntegerField(default=1000)
    game_ms = models.PositiveIntegerField(default=60000)
    startup_ms = models.PositiveIntegerField(default=10000)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED, db_index=True)
    attempt = models.PositiveIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    claimed_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    # When the last run_match message was sent: the dispatcher re-sends a QUEUED
    # match whose message is older than ARBITER_DISPATCH_AFTER_S (services/dispatch.py).
    enqueued_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True, db_index=True)
    moves = models.JSONField(default=list, blank=True)
    result_reason = models.TextField(blank=True)
    error_reason = models.TextField(blank=True)

    class Meta:
        ordering = ["id"]
        verbose_name_plural = "matches"
        constraints = [
            models.UniqueConstraint(fields=["tournament", "index"], name="match_unique_tournament_index"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="match_seats_at_least_two"),
            models.CheckConstraint(
                condition=Q(status__in=["queued", "running", "finished", "errored", "cancelled"]),
                name="match_status_valid",
            ),
            # A match that ran (or runs) was claimed at least once.
            models.CheckConstraint(
                condition=Q(status__in=["queued", "cancelled", "errored"]) | Q(attempt__gte=1),
                name="match_claimed_has_attempt",
            ),
        ]
        indexes = [
            models.Index(fields=["tournament", "status"], name="match_tournament_status"),
            # Ladder top-up: queued work by kind, and a pool's recent ladder games.
            models.Index(fields=["kind", "status"], name="match_kind_status"),
            models.Index(fields=["kind", "rating_pool", "created"], name="match_kind_pool_created"),
        ]

    def __str__(self) -> str:
        return f"Match {self.pk} ({self.game_id}, {self.status})"


class MatchSeat(models.Model):
    match = models.ForeignKey(Match, on_delete=models.CASCADE, related_name="match_seats")
    seat = models.PositiveSmallIntegerField()
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="match_seats")
    team = models.PositiveSmallIntegerField()
    rank = models.PositiveSmallIntegerField(null=True, blank=True)
    score = models.FloatField(null=True, blank=True)
    # 'ok' or the protocol's forfeit status; empty until the match is recorded.
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


ELO_MIN = -10000.0
ELO_MAX = 10000.0


class Rating(models.Model):
    bot_version = models.ForeignKey(BotVersion, on_delete=models.PROTECT, related_name="ratings")
    pool = models.CharField(max_length=200)
    elo = models.FloatField(default=1500.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["pool", "-elo"]
        constraints = [
            models.UniqueConstraint(fields=["bot_version", "pool"], name="rating_unique_version_pool"),
            # Also rejects NaN (every comparison with NaN is false) and infinities.
            models.CheckConstraint(condition=Q(elo__gte=ELO_MIN) & Q(elo__lte=ELO_MAX), name="rating_elo_finite"),
            models.CheckConstraint(condition=Q(games=F("wins") + F("draws") + F("losses")), name="rating_games_add_up"),
        ]
        indexes = [models.Index(fields=["pool", "elo"], name="rating_pool_elo")]

    def __str__(self) -> str:
        return f"{self.bot_version} {self.pool}: {self.elo:.1f}"


class RatingChange(models.Model):
    """One rating's change from one match.  Unique per (rating, match): exactly once."""

    rating = models.ForeignKey(Rating, on_delete=models.PROTECT, related_name="changes")
    match = models.ForeignKey(Match, on_delete=models.PROTECT, related_name="rating_changes")
    before = models.FloatField()
    after = models.FloatField()
    delta = models.FloatField()
    k = models.FloatField()
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.UniqueConstraint(fields=["rating", "match"], name="ratingchange_unique_rating_match"),
            models.CheckConstraint(
                condition=Q(before__gte=ELO_MIN)
                & Q(before__lte=ELO_MAX)
                & Q(after__gte=ELO_MIN)
                & Q(after__lte=ELO_MAX),
                name="ratingchange_elo_finite",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.rating_id}@{self.match_id}: {self.delta:+.1f}"


# Models kept in their own modules, imported here so Django sees them as part of the app:
# challenges and version retirement (public API); the cached performance table
# (tournaments.services.performance); scheduled and recurring tournaments, ladders.
from tournaments.models_challenges import BotVersionRetirement, Challenge, ChallengeMatch  # noqa: E402, F401
from tournaments.models_performance import PerformanceFit  # noqa: E402, F401
from tournaments.models_schedules import Ladder, TournamentSchedule  # noqa: E402, F401

# -- version tests (tournaments.services.version_tests) --
from tournaments.models_version_tests import VersionTest, VersionTestMatch  # noqa: E402, F401
# -- end version tests --
