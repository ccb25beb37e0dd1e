"""The cached performance table of a tournament (ratings.md, "Performance rating with confidence").

Imported at the bottom of ``tournaments.models`` so Django sees the model as
part of the app.  Written only by ``tournaments.services.performance``; read
through ``tournaments.selectors.performance``.  A cache: deleting rows loses
nothing but time.
"""

from __future__ import annotations

from django.db import models


class PerformanceFit(models.Model):
    """The whole-tournament Bradley-Terry table for one tournament and rating pool."""

    tournament = models.ForeignKey("tournaments.Tournament", on_delete=models.CASCADE, related_name="performance_fits")
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
