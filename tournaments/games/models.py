"""A game Arbiter can referee: one row per engine of the registry (``engines``)."""

from __future__ import annotations

from django.db import models


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
