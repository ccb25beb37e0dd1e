"""App config: keeps the Game table in step with the engine registry."""

from __future__ import annotations

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_games(sender: AppConfig, **kwargs: object) -> None:
    from tournaments.services.games import game_sync

    game_sync(using=kwargs.get("using", "default"))


class TournamentsConfig(AppConfig):
    name = "tournaments"
    verbose_name = "Arbiter"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every migrate (tests included) registers new engines; the demo
        # command and the worker call game_sync as well, so a game added
        # without a migration still shows up.
        post_migrate.connect(_sync_games, sender=self)
