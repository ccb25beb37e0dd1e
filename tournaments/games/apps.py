"""The games app: keeps the Game table in step with the engine registry."""

from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_migrate


def _sync_games(sender: AppConfig, **kwargs: Any) -> None:
    from tournaments.games.services import game_sync  # the app registry must be ready first

    game_sync(using=kwargs.get("using", "default"))


class GamesConfig(AppConfig):
    name = "tournaments.games"
    label = "games"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # Every migrate (tests included) registers new engines; the demo
        # command and the worker call game_sync as well, so a game added
        # without a migration still shows up.
        post_migrate.connect(_sync_games, sender=self)
