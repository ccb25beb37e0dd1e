"""Ladders: rated matches that keep idle workers busy, one ladder per game and rating pool.

Writes go through ``tournaments.competitions.services.ladders``.
"""

from __future__ import annotations

from django.db import models
from django.db.models import Q

from tournaments.matches.models import ClockFields


class Ladder(ClockFields):
    """Rated matches that fill idle workers, one ladder per game and rating pool."""

    game = models.ForeignKey("games.Game", on_delete=models.PROTECT, related_name="ladders")
    options = models.JSONField(default=dict, blank=True)
    seats = models.PositiveSmallIntegerField()
    # Derived from game, options and seats by the service; ladder matches carry it.
    pool = models.CharField(max_length=200, editable=False)
    enabled = models.BooleanField(default=True)
    # How many ladder matches may wait in the queue at once.
    queued_target = models.PositiveSmallIntegerField(default=2)
    topped_up_at = models.DateTimeField(null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game_id", "pool"]
        constraints = [
            models.UniqueConstraint(fields=["game", "pool"], name="ladder_unique_game_pool"),
            models.CheckConstraint(condition=Q(seats__gte=2), name="ladder_seats_at_least_two"),
            models.CheckConstraint(
                condition=Q(move_ms__gte=1) & Q(game_ms__gte=1) & Q(startup_ms__gte=1), name="ladder_clocks_positive"
            ),
        ]

    def __str__(self) -> str:
        return f"Ladder {self.pool}"
