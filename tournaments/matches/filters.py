"""Query-string filters of the match list."""

from __future__ import annotations

import django_filters as filters
from django.db.models import QuerySet

from tournaments.api.filters import BoolFilter, IdFilter
from tournaments.games.filters import GameFilter
from tournaments.matches.models import Match


class MatchFilter(filters.FilterSet):
    tournament = IdFilter(field_name="tournament_id", help_text="Only matches of this tournament.")
    bot = IdFilter(method="filter_bot", help_text="Matches in which any version of this bot played.")
    bot_version = IdFilter(method="filter_bot_version", help_text="Matches in which this bot version played.")
    challenge = IdFilter(field_name="challenge_link__challenge_id", help_text="Only the games of this challenge.")
    game = GameFilter(field_name="game_id", help_text="Only matches of this game.")
    status = filters.ChoiceFilter(choices=Match.Status.choices, help_text="Only matches in this state.")
    rated = BoolFilter(help_text="Only rated (true) or unrated (false) matches.")
    kind = filters.ChoiceFilter(choices=Match.Kind.choices, help_text="What the match was played for.")
    ordering = filters.ChoiceFilter(
        choices=[(o, o) for o in ("-id", "id", "finished_at", "-finished_at")],
        method="filter_ordering",
        help_text="Order of the pages; the finished_at orders list only matches that have ended.",
    )
    order = filters.ChoiceFilter(
        choices=[("finished", "finished")],
        method="filter_ordering",
        help_text="Older spelling of ordering=finished_at.",
    )

    class Meta:
        model = Match
        fields: list[str] = []

    def filter_bot(self, queryset: QuerySet, name: str, value: int | None) -> QuerySet:
        if value is None:
            return queryset
        return queryset.filter(match_seats__bot_version__bot_id=value).distinct()

    def filter_bot_version(self, queryset: QuerySet, name: str, value: int | None) -> QuerySet:
        if value is None:
            return queryset
        return queryset.filter(match_seats__bot_version_id=value).distinct()

    def filter_ordering(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        # The cursor pagination orders; here only unfinished matches leave a finish-time order.
        if value and "finished" in value:
            return queryset.filter(finished_at__isnull=False)
        return queryset
