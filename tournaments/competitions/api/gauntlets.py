"""A gauntlet's report over the API: the challenger's score and performance against the field, per opponent."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found, user_of
from tournaments.api.schema import error
from tournaments.competitions.selectors.gauntlets import gauntlet_report
from tournaments.competitions.selectors.standings import tournament_progress
from tournaments.competitions.selectors.tournaments import tournament_get
from tournaments.errors import NotFoundError


class EloDiffSerializer(serializers.Serializer):
    elo_diff = serializers.FloatField(help_text="The Elo difference the challenger's score implies (logistic).")
    stderr = serializers.FloatField()
    low = serializers.FloatField(help_text="95% interval, low end.")
    high = serializers.FloatField(help_text="95% interval, high end.")


class PerformanceSerializer(EloDiffSerializer):
    counted = serializers.ChoiceField(
        choices=["pairs", "games"],
        help_text="pairs: from the pentanomial of the complete pairs (an even games_per_pairing); games: from W/D/L.",
    )
    games = serializers.IntegerField(help_text="The games the figures count.")
    field_elo = serializers.FloatField(help_text="The opponents' mean Elo in the pool, weighted by games counted.")
    rating = serializers.FloatField(help_text="The performance rating: field_elo + elo_diff.")
    rating_low = serializers.FloatField()
    rating_high = serializers.FloatField()


class RecordSerializer(serializers.Serializer):
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    points = serializers.FloatField()
    score = serializers.FloatField(allow_null=True, help_text="Points per game, 0 to 1 (null without games).")


class VersionSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    version = serializers.IntegerField()
    owner = serializers.CharField()


class OpponentSerializer(VersionSerializer, RecordSerializer):
    elo = serializers.FloatField(allow_null=True, help_text="The opponent's Elo in the tournament's pool.")
    performance = EloDiffSerializer(allow_null=True, help_text="The challenger's Elo over this opponent.")


class GauntletReportSerializer(RecordSerializer):
    tournament = serializers.IntegerField()
    status = serializers.CharField()
    progress = serializers.DictField(child=serializers.IntegerField(), help_text="Matches by status, and total.")
    challenger = VersionSerializer()
    pairs = serializers.IntegerField(allow_null=True, help_text="Complete pairs (null: games_per_pairing is odd).")
    pentanomial = serializers.ListField(
        child=serializers.IntegerField(),
        allow_null=True,
        help_text="Complete pairs in which the challenger scored 0, 1/2, 1, 3/2 and 2 points.",
    )
    performance = PerformanceSerializer(allow_null=True, help_text="Null until the score is between 0 and 1.")
    opponents = OpponentSerializer(many=True, help_text="The field in entry order, each from the challenger's side.")


class GauntletReportApi(APIView):
    @extend_schema(
        summary="A gauntlet's report",
        description="The challenger's W/D/L, score, pentanomial and performance rating with its 95% interval "
        "against the field, and its record against each opponent, all counted from the finished matches.",
        responses={200: GauntletReportSerializer, 404: error("No such tournament, or it is not a gauntlet.")},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = found(tournament_get(user=user_of(request), tournament_id=tournament_id), "tournament")
        report = gauntlet_report(tournament=tournament)
        if report is None:
            raise NotFoundError("This tournament is not a gauntlet.")
        return Response(
            {
                "tournament": tournament.id,
                "status": tournament.status,
                "progress": tournament_progress(tournament=tournament),
                **report,
            }
        )
