"""Leaderboards per game and rating pool."""

from __future__ import annotations

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found, user_of
from tournaments.api.pagination import Pagination
from tournaments.selectors.games import game_default_pool, game_list
from tournaments.selectors.ratings import leaderboard


class LeaderboardApi(APIView):
    """GET /api/ratings/?game=<id>&pool=<pool> (pool defaults to the default configuration's)."""

    def get(self, request: Request, game_id: str | None = None) -> Response:
        game_id = game_id or request.query_params.get("game")
        if not game_id:
            from tournaments.services.errors import ServiceError

            raise ServiceError("Say which game: ?game=<id>.", fields={"game": ["required"]})
        game = found(game_list(include_unavailable=True).filter(id=game_id).first(), "game")
        pool = request.query_params.get("pool") or game_default_pool(game=game)
        ratings = leaderboard(game_id=game.id, pool=pool, user=user_of(request))
        paginator = Pagination()
        page = paginator.paginate_queryset(ratings, request, view=self)
        start = paginator.page.start_index() if page else 1
        return paginator.get_paginated_response(
            [
                {
                    "place": start + i,
                    "bot": r.bot_version.bot_id,
                    "bot_name": r.bot_version.bot.name,
                    "owner": r.bot_version.bot.owner.username,
                    "bot_version": r.bot_version_id,
                    "version": r.bot_version.number,
                    "pool": r.pool,
                    "elo": r.elo,
                    "games": r.games,
                    "wins": r.wins,
                    "draws": r.draws,
                    "losses": r.losses,
                }
                for i, r in enumerate(page)
            ]
        )
