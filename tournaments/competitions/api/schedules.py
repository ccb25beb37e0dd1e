"""Recurring round robins: list, create and edit schedules (organisers, i.e. staff, write)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.idempotency import idempotent
from tournaments.api.common import found, options_field, signed_in
from tournaments.api.pagination import Pagination
from tournaments.api.schema import error
from tournaments.competitions.models import Tournament, TournamentSchedule
from tournaments.competitions.models.schedules import SCHEDULE_FORMATS
from tournaments.competitions.services.schedules import schedule_save
from tournaments.matches.api import ClockInputSerializer


class IsOrganiserOrReadOnly(BasePermission):
    """Anyone reads schedules; only staff create or change them (each edition takes every active bot)."""

    def has_permission(self, request: Request, view: Any) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated and request.user.is_staff)


class ScheduleOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    game = serializers.CharField(source="game_id")
    options = serializers.DictField(child=serializers.JSONField())
    editions = serializers.SerializerMethodField(help_text="Ids of the tournaments it created, newest first.")

    class Meta:
        model = TournamentSchedule
        fields = [
            "id", "name", "owner", "game", "options", "seats", "format", "games_per_pairing",
            "move_ms", "game_ms", "startup_ms", "rated", "kind", "at_time", "weekday", "cron",
            "enabled", "next_run", "last_run", "created", "editions",
        ]  # fmt: skip

    def get_editions(self, obj: TournamentSchedule) -> list[int]:
        return list(obj.editions.order_by("-id").values_list("id", flat=True)[:20])


class ScheduleInputSerializer(ClockInputSerializer):
    """Every field of a schedule; on PATCH, any subset."""

    name = serializers.CharField(
        max_length=180, help_text="Each edition is called by this name and its date, e.g. 'Weekly 2026-05-04'."
    )
    game = serializers.CharField(max_length=40)
    options = options_field()
    seats = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2, max_value=100)
    format = serializers.ChoiceField(choices=SCHEDULE_FORMATS, default=Tournament.Format.SINGLE)
    games_per_pairing = serializers.IntegerField(default=2, min_value=1, max_value=100)
    rated = serializers.BooleanField(default=True)
    kind = serializers.ChoiceField(choices=TournamentSchedule.Kind.choices, default=TournamentSchedule.Kind.DAILY)
    at_time = serializers.TimeField(required=False, allow_null=True, default=None, help_text="UTC, daily and weekly.")
    weekday = serializers.IntegerField(
        required=False, allow_null=True, default=None, min_value=0, max_value=6, help_text="0 Monday to 6 Sunday."
    )
    cron = serializers.CharField(
        max_length=120, required=False, allow_blank=True, default="", help_text="Five fields, UTC."
    )
    enabled = serializers.BooleanField(default=True)


FIELDS = {"game": "game_id"}


def _apply(schedule: TournamentSchedule, values: dict[str, Any]) -> TournamentSchedule:
    for key, value in values.items():
        setattr(schedule, FIELDS.get(key, key), value)
    return schedule


def _schedule(schedule_id: int) -> TournamentSchedule:
    return found(TournamentSchedule.objects.select_related("owner").filter(id=schedule_id).first(), "schedule")


class ScheduleListCreateApi(GenericAPIView):
    permission_classes = [IsOrganiserOrReadOnly]
    pagination_class = Pagination
    serializer_class = ScheduleOutputSerializer

    def get_queryset(self) -> Any:
        return TournamentSchedule.objects.select_related("owner").order_by("id")

    @extend_schema(summary="List recurring round robins", responses=ScheduleOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(ScheduleOutputSerializer(page, many=True).data)

    @extend_schema(
        summary="Create a recurring round robin (staff)",
        description="Each run creates and starts a tournament named after the schedule and its date, between the "
        "latest versions of all active bots of the game.",
        request=ScheduleInputSerializer,
        responses={201: ScheduleOutputSerializer, 403: error("Only staff organise recurring tournaments.")},
        examples=[
            OpenApiExample(
                "nightly",
                value={"name": "Nightly gamesup", "game": "gamesup", "kind": "daily", "at_time": "03:00",
                       "format": "double", "games_per_pairing": 2},
                request_only=True,
            )
        ],
    )  # fmt: skip
    @idempotent
    def post(self, request: Request) -> Response:
        data = ScheduleInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        schedule = _apply(TournamentSchedule(owner=signed_in(request), seats=0), dict(data.validated_data))
        schedule_save(schedule=schedule)
        return Response(ScheduleOutputSerializer(_schedule(schedule.id)).data, status=status.HTTP_201_CREATED)


class ScheduleDetailApi(APIView):
    permission_classes = [IsOrganiserOrReadOnly]

    @extend_schema(summary="A recurring round robin", responses={200: ScheduleOutputSerializer})
    def get(self, request: Request, schedule_id: int) -> Response:
        return Response(ScheduleOutputSerializer(_schedule(schedule_id)).data)

    @extend_schema(
        summary="Change a recurring round robin (staff)",
        description="next_run is computed again from now; editions already created are not touched.",
        request=ScheduleInputSerializer(partial=True),
        responses={200: ScheduleOutputSerializer, 403: error("Only staff organise recurring tournaments.")},
    )
    def patch(self, request: Request, schedule_id: int) -> Response:
        schedule = _schedule(schedule_id)
        data = ScheduleInputSerializer(data=request.data, partial=True)
        data.is_valid(raise_exception=True)
        schedule_save(schedule=_apply(schedule, dict(data.validated_data)))
        return Response(ScheduleOutputSerializer(_schedule(schedule.id)).data)
