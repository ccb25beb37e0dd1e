"""Challenges: ask for games (rated in your own pool) against any public bot of the same game; follow their results."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.idempotency import idempotent
from tournaments.api.common import found, id_field, options_field, user_of
from tournaments.api.pagination import Pagination
from tournaments.api.schema import error
from tournaments.api.throttles import ArbiterScopedThrottle
from tournaments.competitions.filters import ChallengeFilter
from tournaments.competitions.models import Challenge
from tournaments.competitions.selectors.challenges import (
    challenge_get,
    challenge_list,
    challenge_matches,
    challenge_score,
    challenge_status,
)
from tournaments.competitions.services.challenges import challenge_answer, challenge_cancel, challenge_create
from tournaments.matches.api import ClockInputSerializer, MatchSerializer, match_body


class ChallengeInputSerializer(ClockInputSerializer):
    bot = id_field(help_text="Your bot's id.")
    opponent = id_field(help_text="Any public bot of the same game (or another of yours).")
    games = serializers.IntegerField(
        default=1, min_value=1, max_value=100, help_text="How many games (at most ARBITER_CHALLENGE_MAX_GAMES)."
    )
    swap_seats = serializers.BooleanField(default=True, help_text="Change sides every game.")
    seats = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2, max_value=100)
    options = options_field()


class ChallengeSideSerializer(serializers.Serializer):
    bot = serializers.IntegerField(source="bot_id")
    bot_name = serializers.CharField(source="bot.name")
    owner = serializers.CharField(source="bot.owner.username")
    bot_version = serializers.IntegerField(source="id")
    version = serializers.IntegerField(source="number")


class ScoreSerializer(serializers.Serializer):
    side = serializers.ChoiceField(
        choices=["bot", "opponent"],
        help_text="Whose score this is: `opponent` when you own the challenged bot, else the challenger's `bot`.",
    )
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    points = serializers.FloatField()


class ChallengeOutputSerializer(serializers.ModelSerializer):
    challenger = serializers.CharField(source="challenger.username")
    game = serializers.CharField(source="game_id")
    options = serializers.DictField(child=serializers.JSONField())
    bot = ChallengeSideSerializer(source="bot_version")
    opponent = ChallengeSideSerializer(source="opponent_version")
    status = serializers.SerializerMethodField(
        help_text="pending (the opponent's owner asked to accept each challenge and has not yet), declined, "
        "queued, running, or finished (no game left to play)."
    )
    progress = serializers.SerializerMethodField()

    class Meta:
        model = Challenge
        fields = [
            "id", "challenger", "game", "bot", "opponent", "games", "swap_seats", "seats", "options",
            "move_ms", "game_ms", "startup_ms", "created", "status", "progress",
        ]  # fmt: skip

    def get_status(self, challenge: Challenge) -> str:
        return challenge_status(challenge)

    def get_progress(self, challenge: Challenge) -> dict[str, int]:
        return {s: getattr(challenge, f"n_{s}") for s in ("queued", "running", "finished", "errored", "cancelled")}


class ChallengeDetailSerializer(ChallengeOutputSerializer):
    score = ScoreSerializer(help_text="Your bot's results over the finished games (`side` says which bot that is).")
    matches = MatchSerializer(many=True)

    class Meta(ChallengeOutputSerializer.Meta):
        fields = [*ChallengeOutputSerializer.Meta.fields, "score", "matches"]


def _detail(challenge: Challenge, user: Any) -> dict[str, Any]:
    matches = challenge_matches(challenge=challenge)
    body = dict(ChallengeOutputSerializer(challenge).data)
    body["score"] = challenge_score(challenge=challenge, matches=matches, user=user)
    body["matches"] = []
    for match in matches:
        match.challenge_id = challenge.id  # type: ignore[attr-defined]
        body["matches"].append(match_body(match, user=user, detail=False))
    return body


class ChallengeListCreateApi(GenericAPIView):
    permission_classes = [permissions.IsAuthenticated]
    filterset_class = ChallengeFilter
    pagination_class = Pagination
    serializer_class = ChallengeOutputSerializer
    throttle_classes = [ArbiterScopedThrottle]
    throttle_scope = "challenges"

    def get_queryset(self) -> Any:
        return challenge_list(user=user_of(self.request))

    @extend_schema(
        summary="Your challenges",
        responses=ChallengeOutputSerializer(many=True),
        description="Those you made and those against your bots.",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(ChallengeOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Challenge a bot",
        description="Queues `games` games between your bot and the opponent, sides swapped every game "
        "unless `swap_seats` is false, rated in your own pool (docs/ratings.md). Each bot plays its newest "
        "version that is not retired.",
        request=ChallengeInputSerializer,
        responses={
            201: ChallengeDetailSerializer,
            429: error("Too many challenges: today's limit per user, or the `challenges` request rate."),
        },
        examples=[OpenApiExample("best of four", value={"bot": 1, "opponent": 2, "games": 4}, request_only=True)],
    )
    @idempotent
    def post(self, request: Request) -> Response:
        data = ChallengeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        challenge = challenge_create(
            challenger=request.user, bot_id=values.pop("bot"), opponent_id=values.pop("opponent"), **values
        )
        created = found(challenge_get(user=request.user, challenge_id=challenge.id), "challenge")
        return Response(_detail(created, request.user), status=status.HTTP_201_CREATED)


class ChallengeDetailApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="A challenge with its games and score", responses={200: ChallengeDetailSerializer})
    def get(self, request: Request, challenge_id: int) -> Response:
        challenge = found(challenge_get(user=request.user, challenge_id=challenge_id), "challenge")
        return Response(_detail(challenge, request.user))


class ChallengeCancelApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Cancel a challenge",
        description="Its queued and running games are cancelled (running ones are stopped within seconds); the "
        "games already played keep their results. Only the challenger may.",
        request=None,
        responses={
            200: ChallengeDetailSerializer,
            403: error("Not your challenge."),
            409: error("No game left to play."),
        },
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge = found(challenge_get(user=request.user, challenge_id=challenge_id), "challenge")
        challenge_cancel(challenge=challenge, user=request.user)
        cancelled = found(challenge_get(user=request.user, challenge_id=challenge_id), "challenge")
        return Response(_detail(cancelled, request.user))


class ChallengeAnswerApi(APIView):
    """Accept or decline a challenge waiting for your answer (``accept`` is set per route)."""

    permission_classes = [permissions.IsAuthenticated]
    accept = True

    @extend_schema(
        summary="Accept or decline a challenge against your bot",
        description="For a bot whose owner asked to accept each challenge (`challenges_ask`, docs/web.md): "
        "`accept/` makes and queues its games, `decline/` ends it with none. The challenged bot's owner only.",
        request=None,
        responses={
            200: ChallengeDetailSerializer,
            403: error("Not the challenged bot's owner."),
            409: error("Already answered, or never asked."),
        },
    )
    def post(self, request: Request, challenge_id: int) -> Response:
        challenge = found(challenge_get(user=request.user, challenge_id=challenge_id), "challenge")
        challenge_answer(challenge=challenge, user=request.user, accept=self.accept)
        answered = found(challenge_get(user=request.user, challenge_id=challenge_id), "challenge")
        return Response(_detail(answered, request.user))
