"""Round-robin tournaments: create, start, cancel, progress, standings, crosstable."""

from __future__ import annotations

from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found
from tournaments.api.pagination import Pagination
from tournaments.models import Tournament
from tournaments.selectors.standings import tournament_crosstable, tournament_progress, tournament_standings
from tournaments.selectors.tournaments import tournament_get, tournament_list, tournament_participants
from tournaments.services.tournaments import tournament_cancel, tournament_create, tournament_start


class TournamentOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    game = serializers.CharField(source="game_id")

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "game", "owner", "options", "seats", "format", "games_per_pairing",
            "move_ms", "game_ms", "startup_ms", "rated", "rating_pool", "status",
            "created", "started", "finished",
        ]  # fmt: skip


def _tournament(tournament_id: int) -> Tournament:
    return found(tournament_get(tournament_id=tournament_id), "tournament")


def _detail(tournament: Tournament) -> dict:
    body = dict(TournamentOutputSerializer(tournament).data)
    body["participants"] = tournament_participants(tournament=tournament)
    body["progress"] = tournament_progress(tournament=tournament)
    return body


class TournamentListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        game = serializers.CharField(max_length=40)
        name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
        participants = serializers.ListField(child=serializers.IntegerField(), min_length=1, max_length=200)
        options = serializers.DictField(required=False, default=dict)
        seats = serializers.IntegerField(required=False, allow_null=True, default=None)
        format = serializers.ChoiceField(choices=Tournament.Format.choices, default=Tournament.Format.SINGLE)
        games_per_pairing = serializers.IntegerField(default=2)
        move_ms = serializers.IntegerField(default=1000)
        game_ms = serializers.IntegerField(default=60000)
        startup_ms = serializers.IntegerField(default=10000)
        rated = serializers.BooleanField(default=True)
        start = serializers.BooleanField(default=False)

    def get(self, request: Request) -> Response:
        tournaments = tournament_list(
            game_id=request.query_params.get("game") or None, status=request.query_params.get("status") or None
        )
        paginator = Pagination()
        page = paginator.paginate_queryset(tournaments, request, view=self)
        return paginator.get_paginated_response(TournamentOutputSerializer(page, many=True).data)

    def post(self, request: Request) -> Response:
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        start = values.pop("start")
        tournament = tournament_create(
            owner=request.user,
            game_id=values.pop("game"),
            bot_ids=values.pop("participants"),
            **values,
        )
        if start:
            tournament = tournament_start(tournament=tournament, user=request.user)
        return Response(_detail(_tournament(tournament.id)), status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_detail(_tournament(tournament_id)))


class TournamentStartApi(APIView):
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_start(tournament=_tournament(tournament_id), user=request.user)
        return Response(_detail(_tournament(tournament.id)))


class TournamentCancelApi(APIView):
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_cancel(tournament=_tournament(tournament_id), user=request.user)
        return Response(_detail(_tournament(tournament.id)))


class TournamentStandingsApi(APIView):
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        return Response(
            {
                "tournament": tournament.id,
                "status": tournament.status,
                "rating_pool": tournament.rating_pool,
                "progress": tournament_progress(tournament=tournament),
                "standings": tournament_standings(tournament=tournament),
            }
        )


class TournamentCrosstableApi(APIView):
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(tournament_id)
        return Response({"tournament": tournament.id, **tournament_crosstable(tournament=tournament)})
