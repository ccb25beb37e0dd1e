"""Version tests: "is version N of my bot better than version X?" (docs/ratings.md).

``POST /api/bots/{id}/version-tests/`` starts one (the bot's owner only);
anyone who may see the bot reads its tests, which show the SPRT as it goes:
LLR and bounds, W/D/L, pentanomial counts, games played, status.
"""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.idempotency import idempotent
from tournaments.api.common import found, options_field, user_of
from tournaments.api.pagination import Pagination
from tournaments.api.schema import error
from tournaments.api.throttles import ArbiterScopedThrottle
from tournaments.bots.models import Bot
from tournaments.bots.selectors import bot_get
from tournaments.competitions.models import VersionTest
from tournaments.competitions.selectors.version_tests import (
    STATUSES,
    version_test_estimate,
    version_test_games,
    version_test_get,
    version_test_list,
)
from tournaments.competitions.services.version_tests import version_test_cancel, version_test_create
from tournaments.matches.api import ClockInputSerializer


class VersionTestInputSerializer(ClockInputSerializer):
    candidate = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=1, help_text="Version number; default the newest."
    )
    baseline = serializers.IntegerField(min_value=1, help_text="Version number to compare against.")
    elo0 = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text="H0: the candidate is this much better, or less (Elo)."
    )
    elo1 = serializers.FloatField(
        required=False, allow_null=True, default=None, help_text="H1: the candidate is at least this much better (Elo)."
    )
    elo_model = serializers.ChoiceField(
        choices=VersionTest.EloModel.choices,
        default=VersionTest.EloModel.LOGISTIC,
        help_text="The scale of elo0 and elo1: logistic Elo, or normalized Elo (draw-independent, as fishtest's).",
    )
    alpha = serializers.FloatField(default=0.05, help_text="Chance of accepting H1 when H0 holds.")
    beta = serializers.FloatField(default=0.05, help_text="Chance of accepting H0 when H1 holds.")
    max_games = serializers.IntegerField(
        required=False,
        allow_null=True,
        default=None,
        min_value=2,
        help_text="The cap on games (default and maximum are settings: 2,000 and 20,000).",
    )
    seats = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2, max_value=100)
    options = options_field()


class VersionTestOutputSerializer(serializers.ModelSerializer):
    bot = serializers.IntegerField(source="bot_id")
    owner = serializers.CharField(source="owner.username")
    game = serializers.CharField(source="bot.game_id")
    candidate = serializers.IntegerField(source="candidate.number", help_text="Version number.")
    baseline = serializers.IntegerField(source="baseline.number", help_text="Version number.")
    options = serializers.DictField(child=serializers.JSONField())
    pentanomial = serializers.ListField(
        child=serializers.IntegerField(), help_text="Pairs in which the candidate scored 0, 0.5, 1, 1.5, 2."
    )
    games = serializers.IntegerField(help_text="Games played in complete pairs (what the counts cover).")
    pairs = serializers.IntegerField()
    llr = serializers.FloatField(help_text="Log-likelihood ratio of H1 over H0 (GSPRT).")
    lower = serializers.FloatField(help_text="H0 is accepted when the LLR falls to this.")
    upper = serializers.FloatField(help_text="H1 is accepted when the LLR rises to this.")
    estimate = serializers.SerializerMethodField(help_text="The candidate's Elo over the baseline with a 95% interval.")
    progress = serializers.SerializerMethodField(help_text="The test's matches by status.")

    class Meta:
        model = VersionTest
        fields = [
            "id", "bot", "owner", "game", "candidate", "baseline", "elo0", "elo1", "elo_model", "alpha", "beta",
            "max_games",
            "pairs_in_flight", "seats", "options", "move_ms", "game_ms", "startup_ms", "status", "wins", "draws",
            "losses", "pentanomial", "games", "pairs", "llr", "lower", "upper", "estimate", "progress", "created",
            "finished",
        ]  # fmt: skip

    def get_estimate(self, test: VersionTest) -> dict[str, float | None]:
        return version_test_estimate(test=test)

    def get_progress(self, test: VersionTest) -> dict[str, int]:
        return {s: getattr(test, f"n_{s}", 0) for s in STATUSES}


class VersionTestGameSerializer(serializers.Serializer):
    pair = serializers.IntegerField()
    game = serializers.IntegerField(help_text="0: the candidate holds the first seat; 1: the baseline does.")
    match = serializers.IntegerField()
    status = serializers.CharField()
    score = serializers.FloatField(allow_null=True, help_text="The candidate's score once finished.")


class VersionTestDetailSerializer(VersionTestOutputSerializer):
    matches = VersionTestGameSerializer(many=True)

    class Meta(VersionTestOutputSerializer.Meta):
        fields = [*VersionTestOutputSerializer.Meta.fields, "matches"]


def _bot(request: Request, bot_id: int) -> Bot:
    return found(bot_get(user=user_of(request), bot_id=bot_id), "bot")


def _test(request: Request, bot_id: int, test_id: int) -> VersionTest:
    return found(version_test_get(bot=_bot(request, bot_id), test_id=test_id), "version test")


def _detail(test: VersionTest) -> dict[str, Any]:
    body = dict(VersionTestOutputSerializer(test).data)
    body["matches"] = version_test_games(test=test)
    return body


class VersionTestListCreateApi(GenericAPIView):
    pagination_class = Pagination
    serializer_class = VersionTestOutputSerializer
    throttle_classes = [ArbiterScopedThrottle]
    throttle_scope = "challenges"

    def get_queryset(self) -> Any:  # for the schema only; get() reads through the selector
        return VersionTest.objects.none()

    @extend_schema(summary="A bot's version tests, newest first", responses=VersionTestOutputSerializer(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        page = self.paginate_queryset(version_test_list(bot=_bot(request, bot_id)))
        return self.get_paginated_response(VersionTestOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Test a version against another",
        description="Plays pairs of unrated games (one seed, seats swapped) between the two versions until the "
        "SPRT accepts H0 (elo0) or H1 (elo1), or max_games is reached. Two-sided games only. The bot's owner only.",
        request=VersionTestInputSerializer,
        responses={201: VersionTestDetailSerializer, 403: error("Not the bot's owner.")},
        examples=[OpenApiExample("newest against v1", value={"baseline": 1, "elo1": 20}, request_only=True)],
    )
    @idempotent
    def post(self, request: Request, bot_id: int) -> Response:
        if not request.user or not request.user.is_authenticated:
            self.permission_denied(request)
        bot = _bot(request, bot_id)
        data = VersionTestInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        test = version_test_create(
            user=request.user,
            bot_id=bot.id,
            candidate_number=values.pop("candidate"),
            baseline_number=values.pop("baseline"),
            **values,
        )
        return Response(_detail(_test(request, bot.id, test.id)), status=status.HTTP_201_CREATED)


class VersionTestDetailApi(APIView):
    @extend_schema(summary="A version test with its games", responses={200: VersionTestDetailSerializer})
    def get(self, request: Request, bot_id: int, test_id: int) -> Response:
        return Response(_detail(_test(request, bot_id, test_id)))


class VersionTestCancelApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Cancel a version test",
        description="Queued and running games are cancelled (running ones are stopped within seconds); "
        "none of them counts.",
        request=None,
        responses={200: VersionTestDetailSerializer, 409: error("The test has already stopped.")},
    )
    def post(self, request: Request, bot_id: int, test_id: int) -> Response:
        test = version_test_cancel(test=_test(request, bot_id, test_id), user=request.user)
        return Response(_detail(_test(request, bot_id, test.id)))
