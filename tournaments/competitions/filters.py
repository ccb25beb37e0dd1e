"""Query-string filters of the tournament and challenge lists."""

from __future__ import annotations

import django_filters as filters
from django.db.models import QuerySet

from tournaments.api.filters import BoolFilter, IdFilter, OwnerFilter
from tournaments.competitions.models import Challenge, Tournament
from tournaments.competitions.selectors.tournaments import tournaments_filter_errored
from tournaments.games.filters import GameFilter


class ErroredFilter(BoolFilter):
    """Tournaments with errored matches (true) or without (false), through the selector's filter."""

    def filter(self, qs: QuerySet[Tournament], value: bool | None) -> QuerySet[Tournament]:
        if value is None:
            return qs
        return tournaments_filter_errored(tournaments=qs, errored=value)


class TournamentFilter(filters.FilterSet):
    game = GameFilter(field_name="game_id", help_text="Only tournaments of this game.")
    status = filters.ChoiceFilter(choices=Tournament.Status.choices, help_text="Only tournaments in this state.")
    owner = OwnerFilter(field_name="owner__username", help_text="Only tournaments of this user (username).")
    rated = BoolFilter(help_text="Only rated (true) or unrated (false) tournaments.")
    errored = ErroredFilter(
        help_text="Only tournaments with at least one errored match, one the service failed (true), or only "
        "those with none (false). Each item counts them in errored_matches.",
    )
    ordering = filters.OrderingFilter(fields=(("created", "created"), ("id", "id"), ("name", "name")))

    class Meta:
        model = Tournament
        fields: list[str] = []


class ChallengeFilter(filters.FilterSet):
    game = GameFilter(field_name="game_id", help_text="Only challenges of this game.")
    bot = IdFilter(field_name="bot_version__bot_id", help_text="The challenger's bot.")
    opponent = IdFilter(field_name="opponent_version__bot_id", help_text="The challenged bot.")
    ordering = filters.OrderingFilter(fields=(("created", "created"), ("id", "id")))

    class Meta:
        model = Challenge
        fields: list[str] = []
