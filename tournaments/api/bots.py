"""Bots: upload (multipart), list, detail, new versions, deactivate, rating history."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from rest_framework import permissions, serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found, user_of
from tournaments.api.pagination import Pagination
from tournaments.models import Bot, BotVersion
from tournaments.selectors.bots import bot_get, bot_list, bot_versions
from tournaments.selectors.ratings import bot_ratings, rating_history
from tournaments.services.bots import bot_create, bot_deactivate, bot_update, bot_version_create
from tournaments.services.errors import ForbiddenError, ServiceError


class VersionOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = BotVersion
        fields = ["id", "number", "filename", "checksum", "size", "kind", "command", "notes", "created"]


class BotOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    game = serializers.CharField(source="game_id")
    latest_version = serializers.IntegerField(read_only=True, default=None)

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "visibility", "active", "description", "created", "latest_version"]


def _read_upload(request: Request) -> tuple[bytes, str]:
    upload = request.FILES.get("package")
    if upload is None:
        raise ServiceError("Attach the bot as a file field named 'package'.", fields={"package": ["required"]})
    limit = settings.ARBITER_MAX_PACKAGE_BYTES
    # Refuse before reading the whole upload into memory.
    if upload.size > limit:
        raise ServiceError(
            f"The package is {upload.size} bytes; the limit is {limit} bytes.",
            code="package_too_large",
            fields={"package": [f"larger than {limit} bytes"]},
        )
    return upload.read(), upload.name or "package"


class BotListCreateApi(APIView):
    parser_classes = [MultiPartParser, FormParser, JSONParser]

    class InputSerializer(serializers.Serializer):
        game = serializers.CharField(max_length=40)
        name = serializers.CharField(max_length=64)
        visibility = serializers.ChoiceField(choices=Bot.Visibility.choices, default=Bot.Visibility.PUBLIC)
        description = serializers.CharField(required=False, allow_blank=True, default="")
        notes = serializers.CharField(required=False, allow_blank=True, default="")

    def get(self, request: Request) -> Response:
        bots = bot_list(
            user=user_of(request),
            game_id=request.query_params.get("game") or None,
            mine=request.query_params.get("mine") in ("1", "true"),
        )
        paginator = Pagination()
        page = paginator.paginate_queryset(bots, request, view=self)
        return paginator.get_paginated_response(BotOutputSerializer(page, many=True).data)

    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        package, filename = _read_upload(request)
        version = bot_create(
            owner=request.user,
            game_id=data.validated_data["game"],
            name=data.validated_data["name"],
            visibility=data.validated_data["visibility"],
            description=data.validated_data["description"],
            notes=data.validated_data["notes"],
            package=package,
            filename=filename,
        )
        bot = bot_get(user=request.user, bot_id=version.bot_id)
        body = dict(BotOutputSerializer(bot).data)
        body["version"] = VersionOutputSerializer(version).data
        return Response(body, status=status.HTTP_201_CREATED)


def _visible_bot(request: Request, bot_id: int) -> Bot:
    return found(bot_get(user=user_of(request), bot_id=bot_id), "bot")


class BotDetailApi(APIView):
    class UpdateSerializer(serializers.Serializer):
        visibility = serializers.ChoiceField(choices=Bot.Visibility.choices, required=False)
        description = serializers.CharField(required=False, allow_blank=True)

    def get(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        body: dict[str, Any] = dict(BotOutputSerializer(bot).data)
        body["versions"] = VersionOutputSerializer(bot_versions(bot=bot), many=True).data
        body["ratings"] = [
            {
                "version": r.bot_version.number,
                "pool": r.pool,
                "elo": r.elo,
                "games": r.games,
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
            }
            for r in bot_ratings(bot=bot)
        ]
        return Response(body)

    def patch(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot_update(bot=bot, user=request.user, **data.validated_data)
        return Response(BotOutputSerializer(bot_get(user=request.user, bot_id=bot.id)).data)


class BotVersionListCreateApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    def get(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        paginator = Pagination()
        page = paginator.paginate_queryset(bot_versions(bot=bot), request, view=self)
        return paginator.get_paginated_response(VersionOutputSerializer(page, many=True).data)

    def post(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        if bot.owner_id != request.user.id:
            raise ForbiddenError("Only the bot's owner can upload versions.")
        package, filename = _read_upload(request)
        version = bot_version_create(
            bot=bot, user=request.user, package=package, filename=filename, notes=str(request.data.get("notes", ""))
        )
        return Response(VersionOutputSerializer(version).data, status=status.HTTP_201_CREATED)


class BotDeactivateApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    def post(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        bot_deactivate(bot=bot, user=request.user)
        return Response(BotOutputSerializer(bot_get(user=request.user, bot_id=bot.id)).data)


class BotRatingHistoryApi(APIView):
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        changes = rating_history(bot=bot, pool=request.query_params.get("pool") or None)
        paginator = Pagination()
        page = paginator.paginate_queryset(changes, request, view=self)
        return paginator.get_paginated_response(
            [
                {
                    "match": c.match_id,
                    "version": c.rating.bot_version.number,
                    "pool": c.rating.pool,
                    "before": c.before,
                    "after": c.after,
                    "delta": c.delta,
                    "k": c.k,
                    "at": c.created,
                }
                for c in page
            ]
        )
