"""Version tests: "is version N of my bot better than version X?", answered by an SPRT.

Written only by ``tournaments.competitions.services.version_tests``; read
through ``tournaments.competitions.selectors.version_tests``.

A test plays *pairs* of unrated games between the two versions: the same
seed twice, seats swapped, so the deal and the first seat's edge cancel
within a pair.  Its matches are ordinary ``Match`` rows (kind
``version_test``, no tournament, unrated) tied to the test by
``VersionTestMatch`` with their pair number and game within the pair.  The
counts and the LLR stored on the test are a cache of what the finished
pairs say: the service recomputes them from the matches every time, so they
are never incremented and a repeated update changes nothing.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import F, Q

from tournaments.matches.models import ClockFields


def _empty_pentanomial() -> list[int]:
    return [0, 0, 0, 0, 0]


# Out here, not nested in the model, so that its Meta can name the members (a class nested in a
# class sees none of that class's names); ``VersionTest.Status`` is this class.
class VersionTestStatus(models.TextChoices):
    RUNNING = "running", "Running"
    H0 = "h0", "Not better (H0 accepted)"
    H1 = "h1", "Better (H1 accepted)"
    INCONCLUSIVE = "inconclusive", "Inconclusive (game cap reached)"
    CANCELLED = "cancelled", "Cancelled"


class VersionTest(ClockFields):
    Status = VersionTestStatus

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="version_tests")
    bot = models.ForeignKey("bots.Bot", on_delete=models.PROTECT, related_name="version_tests")
    candidate = models.ForeignKey(
        "bots.BotVersion", on_delete=models.PROTECT, related_name="version_tests_as_candidate"
    )
    baseline = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="version_tests_as_baseline")

    class EloModel(models.TextChoices):
        LOGISTIC = "logistic", "Logistic Elo"
        NORMALIZED = "normalized", "Normalized Elo"

    # The hypotheses (Elo of the candidate over the baseline, on the chosen scale) and the error rates.
    elo0 = models.FloatField(default=0.0)
    elo1 = models.FloatField(default=40.0)
    elo_model = models.CharField(max_length=12, choices=EloModel.choices, default=EloModel.LOGISTIC)
    alpha = models.FloatField(default=0.05)
    beta = models.FloatField(default=0.05)
    max_games = models.PositiveIntegerField(help_text="the cap: inconclusive once this many games are played")
    # At most this many pairs queued or running at once, so a decision stops the test early.
    pairs_in_flight = models.PositiveSmallIntegerField(default=4)
    # How the games are played.
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    rating_pool = models.CharField(max_length=200)
    status = models.CharField(max_length=15, choices=Status.choices, default=Status.RUNNING, db_index=True)
    # Cache of the finished pairs (recomputed, never incremented): the candidate's W/D/L
    # over games, the pentanomial over pairs (pairs scoring 0, 0.5, 1, 1.5, 2), the LLR.
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    pentanomial = models.JSONField(default=_empty_pentanomial)
    llr = models.FloatField(default=0.0)
    lower = models.FloatField(help_text="accept H0 at or below")
    upper = models.FloatField(help_text="accept H1 at or above")
    created = models.DateTimeField(auto_now_add=True)
    finished = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=~Q(candidate=F("baseline")), name="versiontest_two_versions"),
            models.CheckConstraint(condition=Q(elo1__gt=F("elo0")), name="versiontest_elo1_above_elo0"),
            models.CheckConstraint(
                condition=Q(alpha__gt=0) & Q(alpha__lt=1) & Q(beta__gt=0) & Q(beta__lt=1),
                name="versiontest_error_rates",
            ),
            models.CheckConstraint(condition=Q(max_games__gte=2), name="versiontest_max_games"),
            models.CheckConstraint(condition=Q(pairs_in_flight__gte=1), name="versiontest_pairs_in_flight"),
            models.CheckConstraint(
                condition=Q(status__in=VersionTestStatus.values),
                name="versiontest_status_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"Version test {self.pk}: v{self.candidate_id} vs v{self.baseline_id} ({self.status})"

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)


class VersionTestMatch(models.Model):
    """One game of a test: pair ``pair`` (from 0), game 0 (candidate in the first seat) or 1 (swapped)."""

    test = models.ForeignKey(VersionTest, on_delete=models.CASCADE, related_name="links")
    match = models.OneToOneField("matches.Match", on_delete=models.PROTECT, related_name="version_test_link")
    pair = models.PositiveIntegerField()
    game = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["test_id", "pair", "game"]
        constraints = [
            models.UniqueConstraint(fields=["test", "pair", "game"], name="versiontestmatch_unique_game"),
            models.CheckConstraint(condition=Q(game__in=[0, 1]), name="versiontestmatch_game_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.test_id}#{self.pair}.{self.game}: match {self.match_id}"
