"""A knockout's bracket: every pairing at its place, with its games, points and winner, and the placings."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found, user_of
from tournaments.api.schema import error
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.brackets import tournament_bracket
from tournaments.competitions.selectors.tournaments import tournament_get
from tournaments.errors import NotFoundError


class EntrantSerializer(serializers.Serializer):
    seed = serializers.IntegerField(help_text="1 is the top seed.")
    bot_version = serializers.IntegerField()
    name = serializers.CharField()


class BracketNodeSerializer(serializers.Serializer):
    key = serializers.CharField(
        help_text="Its place: W<round>-<n> (winners' bracket, or the only one), L<round>-<n> (losers' bracket), "
        "F1 (grand final), F2 (the bracket reset, played only when the losers' bracket winner takes F1)."
    )
    part = serializers.ChoiceField(choices=["W", "L", "F"])
    round = serializers.IntegerField(help_text="Its round within its part of the bracket.")
    first = EntrantSerializer(allow_null=True, help_text="null: not known yet, or nobody (a bye).")
    second = EntrantSerializer(allow_null=True)
    status = serializers.ChoiceField(
        choices=["waiting", "due", "decided"],
        help_text="waiting: a side is not known yet; due: both are, its games are (to be) played; decided.",
    )
    bye = serializers.BooleanField(help_text="Decided without a game (a bye, or a reset that was not needed).")
    first_points = serializers.FloatField()
    second_points = serializers.FloatField()
    played_in_round = serializers.IntegerField(allow_null=True, help_text="The tournament round it was played in.")
    matches = serializers.ListField(
        child=serializers.DictField(child=serializers.JSONField()),
        help_text="id, status: its N games, then its deciders.",
    )
    winner = EntrantSerializer(allow_null=True)


class PlacingSerializer(EntrantSerializer):
    place = serializers.IntegerField(help_text="Shared by those out at the same stage.")


class BracketSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    format = serializers.CharField()
    seeding = serializers.CharField()
    games_per_pairing = serializers.IntegerField()
    nodes = BracketNodeSerializer(many=True, help_text="In bracket order: winners' rounds, losers' rounds, finals.")
    placings = PlacingSerializer(many=True, help_text="Empty until the bracket is decided.")


class TournamentBracketApi(APIView):
    @extend_schema(
        summary="A knockout's bracket",
        description="Every pairing of a single- or double-elimination bracket as the results so far make it, "
        "and the final placings once it is decided.",
        responses={200: BracketSerializer, 404: error("No such tournament, or it is not a knockout.")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = found(tournament_get(user=user_of(request), tournament_id=tournament_id), "tournament")
        if tournament.format not in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION):
            raise NotFoundError("This tournament is not a knockout.")
        return Response({"tournament": tournament.id, **tournament_bracket(tournament=tournament)})
