"""Bots: upload (multipart), list, detail, versions (new, retire), deactivate, rating history."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.parsers import BaseParser, FormParser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.idempotency import idempotent
from tournaments.api.common import found, user_of
from tournaments.api.pagination import Pagination
from tournaments.api.schema import error
from tournaments.api.throttles import ArbiterScopedThrottle
from tournaments.bots.filters import BotFilter
from tournaments.bots.models import Bot, BotVersion
from tournaments.bots.selectors import bot_get, bot_list, bot_versions, version_current, version_get
from tournaments.bots.services import (
    BOT_NAME_RE,
    bot_create,
    bot_deactivate,
    bot_update,
    bot_version_create,
    bot_version_retire,
)
from tournaments.bots.uploads import PackageMultiPartParser
from tournaments.errors import ForbiddenError, ServiceError

# A documented exception to the apps' order (tests/test_layers.py): a bot's detail lists its ratings.
from tournaments.ratings.api import RatingNumbersSerializer
from tournaments.ratings.selectors import bot_ratings, rating_history

UPLOAD_ERRORS = {
    400: error("A bad package (not an archive, a zip bomb, links, paths leaving it, too many files, ...)."),
    429: error("Too many uploads; the `uploads` rate applies per user."),
}


class VersionOutputSerializer(serializers.ModelSerializer):
    retired = serializers.SerializerMethodField()
    state = serializers.SerializerMethodField(
        help_text="ready (plays), building (the service builds it: bot.json's build) or failed (never plays)."
    )
    build_log = serializers.SerializerMethodField(
        help_text="The build's last output lines, or why it failed (empty without a build)."
    )

    class Meta:
        model = BotVersion
        fields = [
            "id", "number", "filename", "checksum", "size", "kind", "command", "notes", "created", "retired",
            "state", "build_log",
        ]  # fmt: skip

    def get_retired(self, version: BotVersion) -> bool:
        return hasattr(version, "retirement")

    def get_state(self, version: BotVersion) -> str:
        return getattr(version, "build_state", None) or "ready"

    def get_build_log(self, version: BotVersion) -> str:
        return getattr(version, "build_log", None) or ""


class BotOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    game = serializers.CharField(source="game_id")
    latest_version = serializers.IntegerField(
        read_only=True, allow_null=True, default=None, help_text="Number of the newest version (retired or not)."
    )

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "visibility", "active", "description", "created", "latest_version"]


class BotCreatedSerializer(BotOutputSerializer):
    version = VersionOutputSerializer()

    class Meta(BotOutputSerializer.Meta):
        fields = [*BotOutputSerializer.Meta.fields, "version"]


class RatingRowSerializer(RatingNumbersSerializer):
    version = serializers.IntegerField(source="bot_version.number")
    bot_version = serializers.IntegerField(source="bot_version_id")


class BotDetailSerializer(BotOutputSerializer):
    current_version = serializers.IntegerField(
        allow_null=True,
        help_text="Number of the newest version that is not retired and is built (when bot.json names a build): "
        "the one that plays.",
    )
    versions = VersionOutputSerializer(many=True)
    ratings = RatingRowSerializer(many=True, help_text="Ratings of the current version (?versions=all: of all).")

    class Meta(BotOutputSerializer.Meta):
        fields = [*BotOutputSerializer.Meta.fields, "current_version", "versions", "ratings"]


class RatingChangeSerializer(serializers.Serializer):
    match = serializers.IntegerField(source="match_id")
    version = serializers.IntegerField(source="rating.bot_version.number")
    pool = serializers.CharField(source="rating.pool")
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()
    k = serializers.FloatField()
    at = serializers.DateTimeField(source="created")


class UploadSerializer(serializers.Serializer):
    package = serializers.FileField(help_text="The bot: a .py file, or a .zip / .tar.gz with main.py or bot.json.")
    notes = serializers.CharField(required=False, allow_blank=True, default="", max_length=10000)


class BotCreateSerializer(UploadSerializer):
    game = serializers.CharField(max_length=40)
    name = serializers.RegexField(BOT_NAME_RE.pattern, max_length=64, help_text="1-64 letters, digits, '_', '.', '-'.")
    visibility = serializers.ChoiceField(choices=Bot.Visibility.choices, default=Bot.Visibility.PUBLIC)
    description = serializers.CharField(required=False, allow_blank=True, default="", max_length=10000)


class AnyBodyParser(BaseParser):
    """Accepts a body of any other type as no fields, so a wrong content type is a 400 "package required"."""

    media_type = "*/*"

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> dict[str, Any]:
        return {}


UPLOAD_PARSERS = [PackageMultiPartParser, FormParser, AnyBodyParser]


def _read_upload(request: Request) -> tuple[bytes, str]:
    upload = request.FILES.get("package")
    if upload is None:
        raise ServiceError(
            "Send multipart/form-data with the bot as a file field named 'package'.", fields={"package": ["required"]}
        )
    limit = settings.ARBITER_MAX_PACKAGE_BYTES
    # Refuse before reading the whole upload into memory.
    if upload.size > limit:
        raise ServiceError(
            f"The package is {upload.size} bytes; the limit is {limit} bytes.",
            code="package_too_large",
            fields={"package": [f"larger than {limit} bytes"]},
        )
    return upload.read(), upload.name or "package"


class BotListCreateApi(GenericAPIView):
    # Uploads are multipart; any other body is answered with a 400 (see AnyBodyParser).
    parser_classes = UPLOAD_PARSERS
    filterset_class = BotFilter
    pagination_class = Pagination
    serializer_class = BotOutputSerializer
    throttle_classes = [ArbiterScopedThrottle]
    throttle_scope = "uploads"

    def get_queryset(self) -> Any:
        return bot_list(user=user_of(self.request))

    @extend_schema(
        summary="List bots",
        responses=BotOutputSerializer(many=True),
        description="Public bots and your own; staff see every bot.",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(BotOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Upload a new bot",
        description="Creates the bot with version 1. The package is checked completely before anything is stored.",
        request={"multipart/form-data": BotCreateSerializer},
        responses={201: BotCreatedSerializer, 409: error("You already have a bot of that name for that game."),
                   **UPLOAD_ERRORS},
        examples=[
            OpenApiExample(
                "a single-file bot", value={"game": "gamesup", "name": "my-random", "package": "random_bot.py"},
                request_only=True,
            )
        ],
    )  # fmt: skip
    @idempotent
    def post(self, request: Request) -> Response:
        data = BotCreateSerializer(data=request.data)
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
        bot.version = version_get(bot_id=version.bot_id, number=version.number)  # type: ignore[union-attr]
        return Response(BotCreatedSerializer(bot).data, status=status.HTTP_201_CREATED)


def _visible_bot(request: Request, bot_id: int) -> Bot:
    return found(bot_get(user=user_of(request), bot_id=bot_id), "bot")


class BotDetailApi(APIView):
    class UpdateSerializer(serializers.Serializer):
        visibility = serializers.ChoiceField(choices=Bot.Visibility.choices, required=False)
        description = serializers.CharField(required=False, allow_blank=True, max_length=10000)

    @extend_schema(
        summary="A bot with its versions and ratings",
        parameters=[
            OpenApiParameter(
                "versions", str, enum=["current", "all"], description="Ratings of the current version or of all."
            )
        ],
        responses={200: BotDetailSerializer},
    )
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        which = request.query_params.get("versions") or "current"
        if which not in ("current", "all"):
            raise ServiceError("versions is 'current' or 'all'.", fields={"versions": ["invalid choice"]})
        current = version_current(bot_id=bot.id)
        ratings = bot_ratings(bot=bot)
        if which == "current":
            ratings = ratings.filter(bot_version=current) if current else ratings.none()
        body = dict(BotOutputSerializer(bot).data)
        body["current_version"] = current.number if current else None
        body["versions"] = VersionOutputSerializer(bot_versions(bot=bot).select_related("retirement"), many=True).data
        body["ratings"] = RatingRowSerializer(ratings, many=True).data
        return Response(body)

    @extend_schema(
        summary="Change a bot's visibility or description",
        request=UpdateSerializer,
        responses={200: BotOutputSerializer},
    )
    def patch(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        data = self.UpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        bot_update(bot=bot, user=request.user, **data.validated_data)
        return Response(BotOutputSerializer(bot_get(user=request.user, bot_id=bot.id)).data)


class BotVersionListCreateApi(GenericAPIView):
    parser_classes = UPLOAD_PARSERS
    pagination_class = Pagination
    serializer_class = VersionOutputSerializer
    throttle_classes = [ArbiterScopedThrottle]
    throttle_scope = "uploads"

    def get_queryset(self) -> Any:  # for the schema only; get() reads through the selector
        return BotVersion.objects.none()

    @extend_schema(summary="A bot's versions, oldest first", responses=VersionOutputSerializer(many=True))
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        page = self.paginate_queryset(bot_versions(bot=bot).select_related("retirement"))
        return self.get_paginated_response(VersionOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Upload a new version",
        description="Every upload is a new immutable version, numbered on; it becomes the bot's current version.",
        request={"multipart/form-data": UploadSerializer},
        responses={201: VersionOutputSerializer, 409: error("The bot is deactivated."), **UPLOAD_ERRORS},
    )
    @idempotent
    def post(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        if bot.owner_id != request.user.id:
            raise ForbiddenError("Only the bot's owner can upload versions.")
        data = UploadSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        package, filename = _read_upload(request)
        version = bot_version_create(
            bot=bot, user=request.user, package=package, filename=filename, notes=data.validated_data["notes"]
        )
        shown = version_get(bot_id=bot.id, number=version.number)  # with its build's state
        return Response(VersionOutputSerializer(shown).data, status=status.HTTP_201_CREATED)


class BotVersionRetireApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        summary="Retire a version",
        description="The version stays with its matches and ratings, but no longer plays: new tournaments, "
        "challenges and the leaderboard use the newest version that is not retired.",
        request=None,
        responses={200: VersionOutputSerializer, 409: error("Already retired.")},
    )
    def post(self, request: Request, bot_id: int, number: int) -> Response:
        bot = _visible_bot(request, bot_id)
        version = found(version_get(bot_id=bot.id, number=number), "version")
        bot_version_retire(version=version, user=request.user)
        return Response(VersionOutputSerializer(version_get(bot_id=bot.id, number=number)).data)


class BotDeactivateApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(summary="Deactivate a bot", request=None, responses={200: BotOutputSerializer})
    def post(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        bot_deactivate(bot=bot, user=request.user)
        return Response(BotOutputSerializer(bot_get(user=request.user, bot_id=bot.id)).data)


class BotRatingHistoryApi(GenericAPIView):
    pagination_class = Pagination
    serializer_class = RatingChangeSerializer

    def get_queryset(self) -> Any:  # for the schema only
        return BotVersion.objects.none()

    @extend_schema(
        summary="A bot's rating history",
        responses=RatingChangeSerializer(many=True),
        parameters=[OpenApiParameter("pool", str, description="Only this rating pool.")],
    )
    def get(self, request: Request, bot_id: int) -> Response:
        bot = _visible_bot(request, bot_id)
        changes = rating_history(bot=bot, pool=request.query_params.get("pool") or None)
        page = self.paginate_queryset(changes)
        return self.get_paginated_response(RatingChangeSerializer(page, many=True).data)
