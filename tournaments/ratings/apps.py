"""Ratings: Elo per pool, its rebuild, and the statistics behind performance tables."""

from __future__ import annotations

from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "tournaments.ratings"
    label = "ratings"
    default_auto_field = "django.db.models.BigAutoField"
