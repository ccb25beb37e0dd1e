"""Elo ratings per bot version and rating pool, with every change kept.

``RatingChange`` is unique per (rating, match): a match changes a rating
exactly once.  Written only by ``tournaments.ratings.services`` (live) and
``tournaments.ratings.rebuild``.
"""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

ELO_MIN = -10000.0
ELO_MAX = 10000.0


class Rating(models.Model):
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="ratings")
    pool = models.CharField(max_length=200)
    elo = models.FloatField(default=1500.0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    draws = models.PositiveIntegerField(default=0)
    losses = models.PositiveIntegerField(default=0)
    # Distinct owners, other than the bot's own, met in its rated games; counted only until it
    # reaches ARBITER_RATING_MIN_OWNERS (services.ratings_apply_matches and the rebuild alike).
    opponent_owners = models.PositiveIntegerField(default=0)
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
    match = models.ForeignKey("matches.Match", on_delete=models.PROTECT, related_name="rating_changes")
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


class PoolFit(models.Model):
    """The last whole-history fit of a rating pool: what its leaderboard's error bars come from.

    ``games_total`` is the sum of the pool's ``Rating.games`` when fitted: a
    rated match changes it, so a different sum means the fit is behind.
    """

    pool = models.CharField(max_length=200, unique=True)
    fitted_at = models.DateTimeField()
    games_total = models.PositiveBigIntegerField()
    matches = models.PositiveIntegerField()
    players = models.PositiveIntegerField()
    first_move_advantage = models.FloatField(null=True)
    seconds = models.FloatField()

    def __str__(self) -> str:
        return f"{self.pool}: {self.matches} matches at {self.fitted_at:%Y-%m-%d %H:%M}"


class PoolFitEntry(models.Model):
    """One version's standard error (Elo) in its pool's last fit; its error bar is live Elo +- z * stderr."""

    pool = models.CharField(max_length=200)
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.CASCADE, related_name="+")
    stderr = models.FloatField()
    games = models.PositiveIntegerField()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pool", "bot_version"], name="poolfitentry_unique_pool_version"),
        ]

    def __str__(self) -> str:
        return f"{self.bot_version_id} {self.pool}: +-{self.stderr:.1f}"
