"""Challenges (unrated matches a user asks for) and version retirement.

Kept apart from ``models.py`` so the public-API work does not crowd the core
models; ``models.py`` imports this module so Django registers the models.

A challenge's matches are ordinary ``Match`` rows with ``tournament`` null and
``rated`` false, tied to their challenge by ``ChallengeMatch``; the worker
runs them like any other match.  A retired version stays for history but is
no longer picked as a bot's "latest" version.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class BotVersionRetirement(models.Model):
    """Marks a version retired; the version row itself stays immutable."""

    bot_version = models.OneToOneField(
        "tournaments.BotVersion", on_delete=models.PROTECT, related_name="retirement", primary_key=True
    )
    retired_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    retired_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"version {self.bot_version_id} retired"


class Challenge(models.Model):
    """One user's request for unrated games between their bot and another public bot."""

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="challenges")
    game = models.ForeignKey("tournaments.Game", on_delete=models.PROTECT, related_name="challenges")
    bot_version = models.ForeignKey("tournaments.BotVersion", on_delete=models.PROTECT, related_name="challenges_made")
    opponent_version = models.ForeignKey(
        "tournaments.BotVersion", on_delete=models.PROTECT, related_name="challenges_received"
    )
    games = models.PositiveSmallIntegerField(default=1)
    # With several games, the bots change sides every game (first move alternates).
    swap_seats = models.BooleanField(default=True)
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    move_ms = models.PositiveIntegerField(default=1000)
    game_ms = models.PositiveIntegerField(default=60000)
    startup_ms = models.PositiveIntegerField(default=10000)
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(games__gte=1) & Q(games__lte=100), name="challenge_games_range"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="challenge_seats_at_least_two"),
            models.CheckConstraint(
                condition=~Q(bot_version=models.F("opponent_version")), name="challenge_two_versions"
            ),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk} ({self.game_id})"


class ChallengeMatch(models.Model):
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="links")
    match = models.OneToOneField("tournaments.Match", on_delete=models.PROTECT, related_name="challenge_link")
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["challenge_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "number"], name="challengematch_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.challenge_id}#{self.number}: match {self.match_id}"
