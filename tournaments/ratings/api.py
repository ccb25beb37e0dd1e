"""Leaderboards per game and rating pool."""

from __future__ import annotations

import hashlib
import time
from typing import Any

from django.conf import settings
from django.core.cache import cache
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from tournaments.api.common import found, user_of
from tournaments.api.pagination import Pagination
from tournaments.errors import ServiceError
from tournaments.games.selectors import game_default_pool, game_list
from tournaments.ratings.models import Rating
from tournaments.ratings.selectors import (
    leaderboard,
    pool_of_game,
    pool_of_organiser,
    rating_error_bar,
    rating_is_provisional,
    rating_provisional_reason,
)


class RatingNumbersSerializer(serializers.Serializer):
    """A rating in a pool: its Elo and the record behind it."""

    pool = serializers.CharField()
    elo = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()


class LeaderboardRowSerializer(RatingNumbersSerializer):
    place = serializers.IntegerField(
        help_text="Place on this leaderboard: the settled ratings first, best first, then the provisional ones."
    )
    provisional = serializers.BooleanField(
        help_text="Too few rated games (in a public pool: or too few other owners met) to trust the place yet."
    )
    provisional_reason = serializers.CharField(
        allow_null=True, help_text="Why the rating is provisional, e.g. '4 of 10 rated games'; null once it is not."
    )
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    owner = serializers.CharField()
    bot_version = serializers.IntegerField()
    version = serializers.IntegerField()
    elo_stderr = serializers.FloatField(
        allow_null=True, help_text="Standard error of the Elo from the pool's last whole-history fit (null before it)."
    )
    elo_low = serializers.FloatField(allow_null=True, help_text="Lower end of the 95% interval around the Elo.")
    elo_high = serializers.FloatField(allow_null=True, help_text="Upper end of the 95% interval around the Elo.")


# How long a leaderboard page may be served past its lifetime while one request computes the next.
RECOMPUTE_S = 10


def leaderboard_cache_key(*, viewer: str, game_id: str | None, path: str) -> str:
    """The cache key of one viewer's leaderboard page (``viewer``: ``user:<id>`` or ``anonymous``)."""
    return "leaderboard:" + hashlib.sha256(f"{viewer}|{game_id}|{path}".encode()).hexdigest()


POOL = OpenApiParameter(
    "pool",
    str,
    description="Rating pool: a public pool (the game's `rating_pools`), or an organiser's own pool "
    "(`<pool>@<user id>`, a tournament's `rating_pool`); the game's default public pool by default.",
)
ORGANISER = OpenApiParameter(
    "organiser",
    str,
    description="A username: that user's own pool (their tournaments and challenges) instead of the public one.",
)


class LeaderboardApi(GenericAPIView):
    """Each visible, active bot's current version, best Elo first."""

    pagination_class = Pagination
    serializer_class = LeaderboardRowSerializer

    def get_queryset(self) -> Any:  # for the schema only
        return Rating.objects.none()

    def _board(self, request: Request, game_id: str | None) -> Response:
        # Leaderboards are read far more often than ratings change, and a page costs ~30 ms of
        # CPU (an exact count over every rating in the pool plus the rows).  Each response is
        # kept for ARBITER_LEADERBOARD_CACHE_S seconds per viewer and URL, so it may lag the
        # ratings by that long (0 turns this off).  When it runs out, one request computes the
        # next page and the others keep getting the last one meanwhile (at most RECOMPUTE_S
        # more): all recomputing at once, they made the slowest 1% of requests 4x slower.
        ttl = settings.ARBITER_LEADERBOARD_CACHE_S
        if ttl <= 0:
            return self._compute_board(request, game_id)
        user = user_of(request)
        viewer = f"user:{user.id}" if user is not None and user.is_authenticated else "anonymous"
        key = leaderboard_cache_key(viewer=viewer, game_id=game_id, path=request.get_full_path())
        # Freshness against the host's clock: only this cache's own bookkeeping, never a stamp.
        entry = cache.get(key)
        if entry is not None and (entry[0] > time.time() or not cache.add(f"{key}:computing", 1, RECOMPUTE_S)):
            return Response(entry[1])
        response = self._compute_board(request, game_id)
        cache.set(key, (time.time() + ttl, response.data), ttl + RECOMPUTE_S)
        cache.delete(f"{key}:computing")
        return response

    def _compute_board(self, request: Request, game_id: str | None) -> Response:
        game_id = game_id or request.query_params.get("game")
        if not game_id:
            raise ServiceError("Say which game: ?game=<id>.", fields={"game": ["required"]})
        game = found(game_list(include_unavailable=True).filter(id=game_id).first(), "game")
        pool = request.query_params.get("pool") or game_default_pool(game=game)
        if not pool_of_game(game_id=game.id, pool=pool):
            raise ServiceError(f"{pool!r} is not a rating pool of {game.id}.", fields={"pool": ["not of this game"]})
        organiser = request.query_params.get("organiser")
        if organiser:
            own = pool_of_organiser(pool=pool, username=organiser)
            if own is None:
                raise ServiceError(f"Unknown user {organiser!r}.", fields={"organiser": ["unknown user"]})
            pool = own
        ratings = leaderboard(game_id=game.id, pool=pool, user=user_of(request))
        page = self.paginate_queryset(ratings)
        start = self.paginator.page.start_index() if page else 1  # type: ignore[union-attr]
        rows = []
        for i, r in enumerate(page or []):
            bar = rating_error_bar(r)
            rows.append(
                {
                    "place": start + i,
                    "provisional": rating_is_provisional(r),
                    "provisional_reason": rating_provisional_reason(r) if rating_is_provisional(r) else None,
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
                    "elo_stderr": bar.stderr if bar else None,
                    "elo_low": bar.low if bar else None,
                    "elo_high": bar.high if bar else None,
                }
            )
        return self.get_paginated_response(rows)


class RatingListApi(LeaderboardApi):
    @extend_schema(
        summary="Leaderboard of a game",
        responses=LeaderboardRowSerializer(many=True),
        parameters=[OpenApiParameter("game", str, required=True, description="The game's id."), POOL, ORGANISER],
    )
    def get(self, request: Request) -> Response:
        return self._board(request, None)


class GameLeaderboardApi(LeaderboardApi):
    @extend_schema(
        summary="Leaderboard of a game", parameters=[POOL, ORGANISER], responses=LeaderboardRowSerializer(many=True)
    )
    def get(self, request: Request, game_id: str) -> Response:
        return self._board(request, game_id)
