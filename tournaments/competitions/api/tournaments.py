"""Tournaments (round robins, Swiss, knockouts): create, start, cancel, progress, standings, crosstable, rounds."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import transaction
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.accounts.idempotency import idempotent
from tournaments.api.common import BoundedListField, found, id_field, options_field, user_of
from tournaments.api.pagination import Pagination
from tournaments.api.schema import error
from tournaments.competitions.filters import TournamentFilter
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.brackets import knockout_rounds
from tournaments.competitions.selectors.rounds import tournament_rounds
from tournaments.competitions.selectors.standings import (
    tournament_crosstable,
    tournament_los,
    tournament_progress,
    tournament_standings_with_fit,
)
from tournaments.competitions.selectors.tournaments import tournament_get, tournament_list, tournament_participants
from tournaments.competitions.services.tournaments import tournament_cancel, tournament_create, tournament_start
from tournaments.matches.api import ClockInputSerializer


class TournamentOutputSerializer(serializers.ModelSerializer):
    owner = serializers.CharField(source="owner.username")
    game = serializers.CharField(source="game_id")
    options = serializers.DictField(child=serializers.JSONField())

    class Meta:
        model = Tournament
        fields = [
            "id", "name", "game", "owner", "options", "seats", "format", "games_per_pairing",
            "move_ms", "game_ms", "startup_ms", "rated", "rating_pool", "status",
            "created", "started", "finished", "planned",
            "rounds", "current_round", "seeding",  # Swiss and knockouts
            "start_at", "all_active", "schedule",  # scheduled and recurring tournaments
            "challenger",  # a gauntlet's
        ]  # fmt: skip
        extra_kwargs = {"challenger": {"help_text": "A gauntlet's challenger (a bot version id); null otherwise."}}


class TournamentListItemSerializer(TournamentOutputSerializer):
    """A tournament as the list shows it: with its count of errored matches, for organisers looking for them."""

    errored_matches = serializers.IntegerField(
        read_only=True,
        help_text="Its matches that ended ERRORED (the service failed them; staff may re-queue them from the "
        "tournament's page). Filter with ?errored=true.",
    )

    class Meta(TournamentOutputSerializer.Meta):
        fields = [*TournamentOutputSerializer.Meta.fields, "errored_matches"]


class ParticipantSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    version = serializers.IntegerField()


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    finished = serializers.IntegerField()
    errored = serializers.IntegerField()
    cancelled = serializers.IntegerField()


class TournamentDetailSerializer(TournamentOutputSerializer):
    participants = ParticipantSerializer(many=True)
    progress = ProgressSerializer()

    class Meta(TournamentOutputSerializer.Meta):
        fields = [*TournamentOutputSerializer.Meta.fields, "participants", "progress"]


class StandingsSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    status = serializers.CharField()
    rating_pool = serializers.CharField()
    progress = ProgressSerializer()
    standings = serializers.ListField(
        child=serializers.DictField(child=serializers.JSONField()),
        help_text="Per participant, best first: place, decided_by (what separates it from the row above, the "
        "leader from the row below: points, Buchholz (Swiss only), Sonneborn-Berger, wins or name), games, W/D/L, "
        "points (a Swiss bye counts as a pairing won), score %, Sonneborn-Berger, Buchholz, byes, forfeits, Elo, "
        "performance and withdrawn (the bot may no longer play here: ranked by the games it played, its other "
        "games cancelled).",
    )
    performance_fit = serializers.DictField(
        child=serializers.JSONField(),
        help_text="The whole-tournament Bradley-Terry fit behind perf_elo: computed_at (null: fitted for this "
        "request), stale (a large tournament's table awaiting its debounced refit), matches, anchor, "
        "first_move_advantage, first_move_stderr, components.",
    )


class CrosstableSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    participants = ParticipantSerializer(many=True)
    rows = serializers.ListField(child=serializers.JSONField(), help_text="One row per participant, standings order.")


# A round robin's cap or a Swiss's, whichever is larger; the service checks the one of the format.
MOST_PARTICIPANTS = max(settings.ARBITER_TOURNAMENT_MAX_PARTICIPANTS, settings.ARBITER_SWISS_MAX_PARTICIPANTS)


class TournamentInputSerializer(ClockInputSerializer):
    game = serializers.CharField(max_length=40)
    name = serializers.CharField(max_length=200, required=False, allow_blank=True, default="")
    participants = BoundedListField(
        child=id_field(),
        max_length=MOST_PARTICIPANTS,
        required=False,
        default=list,
        help_text="Bot ids (leave out with all_active).",
    )
    versions = BoundedListField(
        child=id_field(),
        required=False,
        default=list,
        max_length=MOST_PARTICIPANTS,
        help_text="Bot version ids to pin (one per bot, each bot a participant); other bots play their newest "
        "version that is not retired.",
    )
    options = options_field()
    seats = serializers.IntegerField(required=False, allow_null=True, default=None, min_value=2, max_value=100)
    format = serializers.ChoiceField(choices=Tournament.Format.choices, default=Tournament.Format.SINGLE)
    games_per_pairing = serializers.IntegerField(default=2, min_value=1, max_value=100)
    rounds = serializers.IntegerField(
        default=0,
        min_value=0,
        max_value=1000,
        help_text="Swiss only: the rounds to play (at most half the field); 0 chooses ceil(log2(bots)).",
    )
    seeding = serializers.ChoiceField(
        choices=Tournament.Seeding.choices,
        default=Tournament.Seeding.RATING,
        help_text="Swiss and knockouts: seeds by rating in the tournament's pool (unrated bots last, in entry "
        "order), or a random draw made on the server at the start.",
    )
    rated = serializers.BooleanField(default=True)
    start = serializers.BooleanField(default=False, help_text="Start at once (else POST .../start/ later).")
    start_at = serializers.DateTimeField(
        required=False, allow_null=True, default=None, help_text="It starts itself then (a draft until then)."
    )
    all_active = serializers.BooleanField(
        default=False, help_text="Participants: the latest version of every active bot of the game, at start."
    )
    challenger = id_field(
        required=False,
        allow_null=True,
        default=None,
        help_text="A gauntlet's challenger: a bot id (its newest version, or one pinned in versions). The "
        "participants are then its field, or with all_active every other active bot.",
    )


def _tournament(request: Request, tournament_id: int) -> Tournament:
    return found(tournament_get(user=user_of(request), tournament_id=tournament_id), "tournament")


def _detail(tournament: Tournament) -> dict[str, Any]:
    body = dict(TournamentOutputSerializer(tournament).data)
    body["participants"] = tournament_participants(tournament=tournament)
    body["progress"] = tournament_progress(tournament=tournament)
    return body


class TournamentListCreateApi(GenericAPIView):
    filterset_class = TournamentFilter
    pagination_class = Pagination
    serializer_class = TournamentListItemSerializer

    def get_queryset(self) -> Any:
        return tournament_list(user=user_of(self.request))

    @extend_schema(
        summary="List tournaments",
        description="Newest first; each with its count of errored matches (one query for the page).",
        responses={
            200: TournamentListItemSerializer(many=True),
            400: error("A filter's value is invalid (errored: true or false; a game or user that does not exist)."),
        },
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        return self.get_paginated_response(TournamentListItemSerializer(page, many=True).data)

    @extend_schema(
        summary="Create a round robin",
        request=TournamentInputSerializer,
        responses={
            201: TournamentDetailSerializer,
            429: error("Too many tournaments made this hour, or too many matches queued."),
        },
        examples=[
            OpenApiExample(
                "two bots, double round robin",
                value={"game": "gamesup", "participants": [1, 2], "format": "double", "games_per_pairing": 2,
                       "move_ms": 1000, "game_ms": 60000, "startup_ms": 10000, "start": True},
                request_only=True,
            )
        ],
    )  # fmt: skip
    @idempotent
    def post(self, request: Request) -> Response:
        data = TournamentInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        start = values.pop("start")
        # One transaction: a start refused over a limit leaves no draft behind either.
        with transaction.atomic():
            tournament = tournament_create(
                owner=request.user,
                version_ids=values.pop("versions"),
                challenger_id=values.pop("challenger"),
                game_id=values.pop("game"),
                bot_ids=values.pop("participants"),
                **values,
            )
            if start:
                tournament = tournament_start(tournament=tournament, user=request.user)
        return Response(_detail(_tournament(request, tournament.id)), status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    @extend_schema(summary="A tournament with participants and progress", responses={200: TournamentDetailSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        return Response(_detail(_tournament(request, tournament_id)))


class TournamentStartApi(APIView):
    @extend_schema(
        summary="Start a draft tournament",
        request=None,
        responses={
            200: TournamentDetailSerializer,
            409: error("The tournament is not a draft."),
            429: error("Too many matches queued."),
        },
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_start(tournament=_tournament(request, tournament_id), user=request.user)
        return Response(_detail(_tournament(request, tournament.id)))


class TournamentCancelApi(APIView):
    @extend_schema(
        summary="Cancel a tournament",
        description="Queued and running matches are cancelled (running ones are stopped within seconds); none is "
        "rated.",
        request=None,
        responses={200: TournamentDetailSerializer, 409: error("Already finished or cancelled.")},
    )
    def post(self, request: Request, tournament_id: int) -> Response:
        tournament = tournament_cancel(tournament=_tournament(request, tournament_id), user=request.user)
        return Response(_detail(_tournament(request, tournament.id)))


class TournamentStandingsApi(APIView):
    @extend_schema(summary="Standings", responses={200: StandingsSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(request, tournament_id)
        return Response(
            {
                "tournament": tournament.id,
                "status": tournament.status,
                "rating_pool": tournament.rating_pool,
                **tournament_standings_with_fit(tournament=tournament),  # with its progress
            }
        )


class LosSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    participants = ParticipantSerializer(many=True, help_text="Standings order; rows and columns follow it.")
    los = serializers.ListField(
        child=serializers.ListField(child=serializers.FloatField(allow_null=True)),
        help_text="los[r][c]: the probability that participant r is truly stronger than c (null on the diagonal).",
    )


class TournamentLosApi(APIView):
    @extend_schema(
        summary="Likelihood of superiority, every participant over every other",
        description="From the whole-tournament fit behind perf_elo, which accounts for draws.",
        responses={200: LosSerializer},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(request, tournament_id)
        return Response({"tournament": tournament.id, **tournament_los(tournament=tournament)})


class TournamentCrosstableApi(APIView):
    @extend_schema(summary="Crosstable", responses={200: CrosstableSerializer})
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(request, tournament_id)
        return Response({"tournament": tournament.id, **tournament_crosstable(tournament=tournament)})


class PairingSerializer(serializers.Serializer):
    first = serializers.IntegerField(help_text="The bot version in the first seat of the pairing's first game.")
    first_name = serializers.CharField()
    second = serializers.IntegerField()
    second_name = serializers.CharField()
    first_points = serializers.FloatField()
    second_points = serializers.FloatField()
    matches = serializers.ListField(child=serializers.DictField(child=serializers.JSONField()), help_text="id, status")
    done = serializers.BooleanField()


class RoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    pairings = PairingSerializer(many=True, help_text="Best boards first.")
    bye = serializers.IntegerField(allow_null=True, help_text="The bot version that sat the round out, if any.")
    bye_name = serializers.CharField()


class RoundsSerializer(serializers.Serializer):
    tournament = serializers.IntegerField()
    rounds = serializers.IntegerField(help_text="Rounds it plays.")
    current_round = serializers.IntegerField()
    round_list = RoundSerializer(many=True)


class TournamentRoundsApi(APIView):
    @extend_schema(
        summary="A Swiss tournament's or knockout's rounds",
        description="Each round planned so far: its pairings with their games and points, and its bye. "
        "A knockout's pairings list their deciders too (its bracket: .../bracket/). A round robin has none.",
        responses={200: RoundsSerializer},
    )
    def get(self, request: Request, tournament_id: int) -> Response:
        tournament = _tournament(request, tournament_id)
        return Response(
            {
                "tournament": tournament.id,
                "rounds": tournament.rounds,
                "current_round": tournament.current_round,
                "round_list": (
                    knockout_rounds(tournament=tournament)
                    if tournament.format in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION)
                    else tournament_rounds(tournament=tournament)
                ),
            }
        )
