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
        from tournaments.ratings.applier import ratings_apply_pending, ratings_apply_soon
        from tournaments.ratings.selectors import lineups_unrated

        match_ratings_register(
            RatingHooks(
                unrated_lineups=lambda pool, lineups: lineups_unrated(pool=pool, lineups=lineups),
                apply_now=lambda pool: ratings_apply_pending(pool=pool, wait=False) is not None,
                apply_later=lambda pool: ratings_apply_soon(pool=pool),
            )
        )
