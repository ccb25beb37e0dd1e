"""Query-string filters of the bot list."""

from __future__ import annotations

import django_filters as filters
from django.db.models import QuerySet

from tournaments.api.filters import BoolFilter, OwnerFilter
from tournaments.bots.models import Bot
from tournaments.games.filters import GameFilter


class BotFilter(filters.FilterSet):
    game = GameFilter(field_name="game_id", help_text="Only bots of this game.")
    owner = OwnerFilter(field_name="owner__username", help_text="Only bots of this user (username).")
    active = BoolFilter(help_text="Only active (true) or deactivated (false) bots.")
    visibility = filters.ChoiceFilter(choices=Bot.Visibility.choices)
    mine = BoolFilter(method="filter_mine", help_text="Only your own bots.")
    search = filters.CharFilter(field_name="name", lookup_expr="icontains", help_text="Name contains (any case).")
    ordering = filters.OrderingFilter(fields=(("name", "name"), ("created", "created"), ("id", "id")))

    class Meta:
        model = Bot
        fields: list[str] = []

    def filter_mine(self, queryset: QuerySet, name: str, value: bool | None) -> QuerySet:
        user = getattr(self.request, "user", None)
        if not value:
            return queryset
        if user is None or not user.is_authenticated:
            return queryset.none()
        return queryset.filter(owner_id=user.id)
