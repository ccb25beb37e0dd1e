"""Challenges: games a user asks for between their bot and another public bot (rated in the challenger's own pool).

Writes go through ``tournaments.competitions.services.challenges``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from tournaments.matches.models import ClockFields


class ChallengeAnswer(models.TextChoices):
    NOT_ASKED = "not_asked", "Played without asking"
    PENDING = "pending", "Waiting for the opponent's owner"
    ACCEPTED = "accepted", "Accepted"
    DECLINED = "declined", "Declined"


class Challenge(ClockFields):
    """One user's request for games between their bot and another public bot.

    Its matches exist once it may play: at once, or when the opponent's owner,
    who asked to be asked (``Bot.challenges_ask``), accepts it.
    """

    Answer = ChallengeAnswer

    challenger = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="challenges")
    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="challenges")
    bot_version = models.ForeignKey("bots.BotVersion", on_delete=models.PROTECT, related_name="challenges_made")
    opponent_version = models.ForeignKey(
        "bots.BotVersion", on_delete=models.PROTECT, related_name="challenges_received"
    )
    games = models.PositiveSmallIntegerField(default=1)
    # With several games, the bots change sides every game (first move alternates).
    swap_seats = models.BooleanField(default=True)
    options = models.JSONField(default=dict)
    seats = models.PositiveSmallIntegerField()
    created = models.DateTimeField(auto_now_add=True, db_index=True)
    answer = models.CharField(max_length=10, choices=ChallengeAnswer.choices, default=ChallengeAnswer.NOT_ASKED)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(condition=Q(games__gte=1) & Q(games__lte=100), name="challenge_games_range"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="challenge_seats_at_least_two"),
            models.CheckConstraint(
                condition=~Q(bot_version=models.F("opponent_version")), name="challenge_two_versions"
            ),
            models.CheckConstraint(condition=Q(answer__in=ChallengeAnswer.values), name="challenge_answer_valid"),
        ]

    def __str__(self) -> str:
        return f"Challenge {self.pk} ({self.game_id})"


class ChallengeMatch(models.Model):
    challenge = models.ForeignKey(Challenge, on_delete=models.CASCADE, related_name="links")
    match = models.OneToOneField("matches.Match", on_delete=models.PROTECT, related_name="challenge_link")
    number = models.PositiveSmallIntegerField()

    class Meta:
        ordering = ["challenge_id", "number"]
        constraints = [
            models.UniqueConstraint(fields=["challenge", "number"], name="challengematch_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.challenge_id}#{self.number}: match {self.match_id}"
