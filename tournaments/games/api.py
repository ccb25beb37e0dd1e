"""Games: what can be played, with options, seat counts and rating pools."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found
from tournaments.api.pagination import Pagination
from tournaments.games.models import Game
from tournaments.games.selectors import game_configs, game_list, game_rules_text

# A documented exception to the apps' order (tests/test_layers.py): a game's detail lists its rating pools.
from tournaments.ratings.selectors import game_rating_pools


class GameOutputSerializer(serializers.ModelSerializer):
    seat_counts = serializers.ListField(child=serializers.IntegerField())

    class Meta:
        model = Game
        fields = ["id", "name", "version", "seat_counts", "rules_doc", "available"]


class GameConfigSerializer(serializers.Serializer):
    seats = serializers.IntegerField()
    options = serializers.DictField(child=serializers.JSONField())
    teams = serializers.ListField(child=serializers.ListField(child=serializers.IntegerField()))
    rating_pool = serializers.CharField()


class GameDetailSerializer(GameOutputSerializer):
    options = serializers.ListField(child=serializers.JSONField(), help_text="The engine's options, described.")
    has_chance = serializers.BooleanField(allow_null=True)
    hidden_information = serializers.BooleanField(allow_null=True)
    configs = GameConfigSerializer(many=True, help_text="Example configurations with their teams.")
    rating_pools = serializers.ListField(child=serializers.CharField())
    rules_url = serializers.CharField(allow_null=True)

    class Meta(GameOutputSerializer.Meta):
        fields = [
            *GameOutputSerializer.Meta.fields,
            "options", "has_chance", "hidden_information", "configs", "rating_pools", "rules_url",
        ]  # fmt: skip


class RulesSerializer(serializers.Serializer):
    game = serializers.CharField()
    format = serializers.CharField()
    text = serializers.CharField()


def _game(game_id: str) -> Game:
    return found(game_list(include_unavailable=True).filter(id=game_id).first(), "game")


class GameListApi(GenericAPIView):
    permission_classes = [permissions.AllowAny]
    pagination_class = Pagination
    serializer_class = GameOutputSerializer

    def get_queryset(self) -> Any:
        return game_list()

    @extend_schema(summary="List the games", responses=GameOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(GameOutputSerializer(page, many=True).data)


class GameDetailApi(APIView):
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="A game: options, seat counts, teams and rating pools", responses={200: GameDetailSerializer}
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = _game(game_id)
        description = game.description or {}
        game.options = description.get("options", [])  # type: ignore[attr-defined]
        game.has_chance = description.get("has_chance")  # type: ignore[attr-defined]
        game.hidden_information = description.get("hidden_information")  # type: ignore[attr-defined]
        game.configs = game_configs(game=game)  # type: ignore[attr-defined]
        game.rating_pools = game_rating_pools(game=game)  # type: ignore[attr-defined]
        game.rules_url = f"/api/games/{game.id}/rules/" if game.rules_doc else None  # type: ignore[attr-defined]
        return Response(GameDetailSerializer(game).data)


class GameRulesApi(APIView):
    """The game's rules document as Markdown text."""

    permission_classes = [permissions.AllowAny]

    @extend_schema(summary="A game's rules (Markdown)", responses={200: RulesSerializer})
    def get(self, request: Request, game_id: str) -> Response:
        game = _game(game_id)
        text = found(game_rules_text(game=game), "rules document")
        return Response({"game": game.id, "format": "markdown", "text": text})
