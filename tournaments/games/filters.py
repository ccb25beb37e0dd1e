"""The game filter of every list that can be narrowed to one game."""

from __future__ import annotations

from typing import Any

import django_filters as filters

from tournaments.api.filters import invalid_value
from tournaments.games.models import Game


class GameFilter(filters.CharFilter):
    """A game's id; an id of no game is a 400 rather than an empty list."""

    def filter(self, qs: Any, value: Any) -> Any:
        if value and not Game.objects.filter(id=value).exists():
            raise invalid_value(self.field_name, "game", value)
        return super().filter(qs, value)
