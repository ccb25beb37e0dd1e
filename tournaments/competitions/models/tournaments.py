"""Round robins: a tournament, its participants, and its cached performance table.

Writes go through ``tournaments.competitions.services.tournaments`` (and
``.performance`` for the cached table, a cache: deleting its rows loses
nothing but time).
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse

from tournaments.matches.models import ClockFields


# Out here, not nested in the model, so that its Meta can name the members (a class nested in a
# class sees none of that class's names); ``Tournament.Format`` and ``Tournament.Status`` are these classes.
class TournamentFormat(models.TextChoices):
    SINGLE = "single", "Single round robin"
    DOUBLE = "double", "Double round robin"
    SWISS = "swiss", "Swiss"
    GAUNTLET = "gauntlet", "Gauntlet"
    KNOCKOUT = "knockout", "Knockout (single elimination)"
    DOUBLE_ELIMINATION = "double_elimination", "Double elimination"


class TournamentSeeding(models.TextChoices):
    RATING = "rating", "By rating"
    RANDOM = "random", "Random draw"


class TournamentStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    RUNNING = "running", "Running"
    FINISHED = "finished", "Finished"
    CANCELLED = "cancelled", "Cancelled"


class Tournament(ClockFields):
    Format = TournamentFormat
    Status = TournamentStatus
    Seeding = TournamentSeeding

    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="tournaments")
    name = models.CharField(max_length=200)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="tournaments")
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    format = models.CharField(max_length=20, choices=Format.choices, default=Format.SINGLE)
    games_per_pairing = models.PositiveSmallIntegerField(default=2)
    rated = models.BooleanField(default=True)
    # Staff raise it to run this tournament's matches ahead of everyone's (0: a fair share).
    priority = models.SmallIntegerField(default=0)
    rating_pool = models.CharField(max_length=200)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    participants = models.ManyToManyField("bots.BotVersion", through="Participant", related_name="tournaments")
    created = models.DateTimeField(auto_now_add=True)
    started = models.DateTimeField(null=True, blank=True)
    finished = models.DateTimeField(null=True, blank=True)
    # Scheduled and recurring tournaments (services/schedules.py).
    start_at = models.DateTimeField(null=True, blank=True, db_index=True, help_text="starts itself then (UTC)")
    all_active = models.BooleanField(
        default=False, help_text="participants: every active bot of the game (latest version) at start time"
    )
    schedule = models.ForeignKey(
        "competitions.TournamentSchedule", on_delete=models.SET_NULL, null=True, blank=True, related_name="editions"
    )
    # A gauntlet's one bot version against the field (also its participant number 0); None otherwise.
    challenger = models.ForeignKey(
        "bots.BotVersion", on_delete=models.PROTECT, null=True, blank=True, related_name="gauntlets"
    )
    # Matches the started round robin's plan holds; a big one's rows are inserted by a task,
    # so the tournament is not finished while fewer than this many exist.
    planned = models.PositiveIntegerField(default=0)
    # Formats played in rounds (Swiss): how many (0 until the start chooses from the field's size
    # when the organiser did not), and the round being played, claimed by a conditional UPDATE.
    rounds = models.PositiveSmallIntegerField(default=0, help_text="Swiss: rounds to play (0: from the field's size)")
    current_round = models.PositiveSmallIntegerField(default=0)
    # Knockouts (and Swiss): how the participants are seeded at the start.
    seeding = models.CharField(max_length=10, choices=Seeding.choices, default=Seeding.RATING)

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
            models.CheckConstraint(condition=Q(format__in=TournamentFormat.values), name="tournament_format_valid"),
            models.CheckConstraint(condition=Q(status__in=TournamentStatus.values), name="tournament_status_valid"),
            models.CheckConstraint(
                condition=Q(format=TournamentFormat.GAUNTLET, challenger__isnull=False)
                | (~Q(format=TournamentFormat.GAUNTLET) & Q(challenger__isnull=True)),
                name="tournament_gauntlet_challenger",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        """The tournament's public page."""
        return reverse("web-tournament", args=[self.pk])


class Participant(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="entries")
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="entries")
    # Position in the participant list; the schedule's rotation is built on it.
    number = models.PositiveIntegerField()

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "bot_version"], name="participant_unique_version"),
            models.UniqueConstraint(fields=["tournament", "number"], name="participant_unique_number"),
        ]

    def __str__(self) -> str:
        # Ids alone read like "15#0: 14" in the admin; the bot is shown beside it there.
        return f"participant {self.number + 1} of tournament {self.tournament_id}"


class TournamentRound(models.Model):
    """One round of a tournament played in rounds: its matches are the ``size`` from ``first_index`` on.

    A match's round is found by its index, so a match run again (errored,
    re-queued) stays in its round without a column of its own.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="round_rows")
    number = models.PositiveSmallIntegerField()
    first_index = models.PositiveIntegerField()
    size = models.PositiveIntegerField()
    # The bot version that sat this round out, if any (an odd field).
    bye = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, null=True, blank=True, related_name="+")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["tournament_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "number"], name="tournamentround_unique_number"),
        ]

    def __str__(self) -> str:
        return f"round {self.number} of tournament {self.tournament_id}"


class BracketPairing(models.Model):
    """One pairing of a knockout, at its place in the bracket (``key``, brackets.py), with its games.

    ``games`` lists the match indices played for it: its N games, then any
    deciders.  Who won is read from those matches' results, never stored.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="bracket_pairings")
    key = models.CharField(max_length=12)
    round = models.PositiveSmallIntegerField()
    # The higher seed first: it sits first in the first game and goes through if the deciders tie too.
    first = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="+")
    second = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="+")
    games = models.JSONField(default=list)

    class Meta:
        ordering = ["tournament_id", "round", "id"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "key"], name="bracketpairing_unique_key"),
        ]

    def __str__(self) -> str:
        return f"pairing {self.key} of tournament {self.tournament_id}"


class PerformanceFit(models.Model):
    """The whole-tournament Bradley-Terry table for one tournament and rating pool."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="performance_fits")
    pool = models.CharField(max_length=200)
    # Per bot version (id as text): perf_elo, stderr, ci_low, ci_high, los_next, games;
    # plus the table order used for LOS, the anchor and the first-seat term.
    payload = models.JSONField(default=dict, blank=True)
    # Finished matches the payload was fitted on: the freshness stamp.
    matches = models.PositiveIntegerField(default=0)
    computed_at = models.DateTimeField(null=True, blank=True)
    # When the pending refit was requested (None: none pending); see the service's debounce.
    requested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["tournament_id", "pool"]
        constraints = [
            models.UniqueConstraint(fields=["tournament", "pool"], name="performancefit_unique_tournament_pool"),
        ]

    def __str__(self) -> str:
        return f"performance of tournament {self.tournament_id} ({self.pool})"
