"""Ratings: Elo per pool, its rebuild, and the statistics behind performance tables."""

from __future__ import annotations

from django.apps import AppConfig


class RatingsConfig(AppConfig):
    name = "tournaments.ratings"
    label = "ratings"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Ratings sit above matches: matches.life calls them through its hooks
        # (the order is documented there).  Imported here: services need the app registry.
        from tournaments.matches.hooks import RatingHooks, match_ratings_register
        from tournaments.ratings.selectors import lineups_unrated
        from tournaments.ratings.services import ratings_apply_match

        match_ratings_register(
            RatingHooks(
                unrated_lineups=lambda pool, lineups: lineups_unrated(pool=pool, lineups=lineups),
                apply=lambda match, seats: ratings_apply_match(match=match, seats=seats),
            )
        )
