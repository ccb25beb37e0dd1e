"""Games: what can be played, with options, seat counts and rating pools."""

from __future__ import annotations

from rest_framework import permissions, serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found
from tournaments.api.pagination import Pagination
from tournaments.models import Game
from tournaments.selectors.games import game_configs, game_list, game_rating_pools, game_rules_text


class GameOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Game
        fields = ["id", "name", "version", "seat_counts", "rules_doc", "available"]


class GameListApi(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request) -> Response:
        paginator = Pagination()
        page = paginator.paginate_queryset(game_list(), request, view=self)
        return paginator.get_paginated_response(GameOutputSerializer(page, many=True).data)


class GameDetailApi(APIView):
    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, game_id: str) -> Response:
        game = found(game_list(include_unavailable=True).filter(id=game_id).first(), "game")
        data = dict(GameOutputSerializer(game).data)
        description = game.description or {}
        data.update(
            {
                "options": description.get("options", []),
                "has_chance": description.get("has_chance"),
                "hidden_information": description.get("hidden_information"),
                "configs": game_configs(game=game),
                "rating_pools": game_rating_pools(game=game),
                "rules_url": f"/api/games/{game.id}/rules/" if game.rules_doc else None,
            }
        )
        return Response(data)


class GameRulesApi(APIView):
    """The game's rules document as Markdown text."""

    permission_classes = [permissions.AllowAny]

    def get(self, request: Request, game_id: str) -> Response:
        game = found(game_list(include_unavailable=True).filter(id=game_id).first(), "game")
        text = found(game_rules_text(game=game), "rules document")
        return Response({"game": game.id, "format": "markdown", "text": text})
