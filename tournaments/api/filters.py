"""Query-string filters of the lists (django-filter); invalid values are a 400 in the error shape."""

from __future__ import annotations

from typing import Any

import django_filters as filters
from django import forms
from django.db.models import QuerySet

from tournaments.models import Bot, Match, Tournament
from tournaments.models_challenges import Challenge


class IdFilter(filters.NumberFilter):
    """A whole number that fits a database id (django-filter's NumberFilter takes any decimal)."""

    field_class = forms.IntegerField

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", 2**63 - 1)
        super().__init__(*args, **kwargs)


BOT_ORDERINGS = ("name", "-name", "created", "-created", "id", "-id")
TOURNAMENT_ORDERINGS = ("created", "-created", "id", "-id", "name", "-name")
CHALLENGE_ORDERINGS = ("created", "-created", "id", "-id")


class BotFilter(filters.FilterSet):
    game = filters.CharFilter(field_name="game_id", help_text="Only bots of this game.")
    owner = filters.CharFilter(field_name="owner__username", help_text="Only bots of this user (username).")
    active = filters.BooleanFilter(help_text="Only active (true) or deactivated (false) bots.")
    visibility = filters.ChoiceFilter(choices=Bot.Visibility.choices)
    mine = filters.BooleanFilter(method="filter_mine", help_text="Only your own bots.")
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


class TournamentFilter(filters.FilterSet):
    game = filters.CharFilter(field_name="game_id", help_text="Only tournaments of this game.")
    status = filters.ChoiceFilter(choices=Tournament.Status.choices, help_text="Only tournaments in this state.")
    owner = filters.CharFilter(field_name="owner__username", help_text="Only tournaments of this user (username).")
    rated = filters.BooleanFilter(help_text="Only rated (true) or unrated (false) tournaments.")
    ordering = filters.OrderingFilter(fields=(("created", "created"), ("id", "id"), ("name", "name")))

    class Meta:
        model = Tournament
        fields: list[str] = []


class MatchFilter(filters.FilterSet):
    tournament = IdFilter(field_name="tournament_id", help_text="Only matches of this tournament.")
    bot = IdFilter(method="filter_bot", help_text="Matches in which any version of this bot played.")
    bot_version = IdFilter(method="filter_bot_version", help_text="Matches in which this bot version played.")
    challenge = IdFilter(field_name="challenge_link__challenge_id", help_text="Only the games of this challenge.")
    game = filters.CharFilter(field_name="game_id", help_text="Only matches of this game.")
    status = filters.ChoiceFilter(choices=Match.Status.choices, help_text="Only matches in this state.")
    rated = filters.BooleanFilter(help_text="Only rated (true) or unrated (false) matches.")
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


class ChallengeFilter(filters.FilterSet):
    game = filters.CharFilter(field_name="game_id", help_text="Only challenges of this game.")
    bot = IdFilter(field_name="bot_version__bot_id", help_text="The challenger's bot.")
    opponent = IdFilter(field_name="opponent_version__bot_id", help_text="The challenged bot.")
    ordering = filters.OrderingFilter(fields=(("created", "created"), ("id", "id")))

    class Meta:
        model = Challenge
        fields: list[str] = []
