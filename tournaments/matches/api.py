"""Matches: list with filters (cursor pages), detail with the move log and per-seat statuses."""

from __future__ import annotations

from typing import Any

from django.db.models import F
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found, user_of
from tournaments.api.pagination import MatchCursorPagination
from tournaments.matches.clocks import CLOCK_LIMITS_MS
from tournaments.matches.filters import MatchFilter
from tournaments.matches.models import DEFAULT_GAME_MS, DEFAULT_MOVE_MS, DEFAULT_STARTUP_MS, Match, MatchSeat
from tournaments.matches.selectors import match_get, match_list


class ClockInputSerializer(serializers.Serializer):
    """The three clocks of requested matches, within the service's limits (every kind of request shares them)."""

    move_ms = serializers.IntegerField(default=DEFAULT_MOVE_MS, min_value=1, max_value=CLOCK_LIMITS_MS["move_ms"])
    game_ms = serializers.IntegerField(default=DEFAULT_GAME_MS, min_value=1, max_value=CLOCK_LIMITS_MS["game_ms"])
    startup_ms = serializers.IntegerField(
        default=DEFAULT_STARTUP_MS, min_value=1, max_value=CLOCK_LIMITS_MS["startup_ms"]
    )


class SeatSerializer(serializers.Serializer):
    seat = serializers.IntegerField()
    team = serializers.IntegerField()
    bot = serializers.IntegerField()
    bot_name = serializers.CharField()
    bot_version = serializers.IntegerField()
    version = serializers.IntegerField()
    rank = serializers.IntegerField(allow_null=True)
    score = serializers.FloatField(allow_null=True)
    status = serializers.CharField(help_text="'ok' or the forfeit reason; empty until the match is recorded.")
    cpu_ms = serializers.IntegerField(allow_null=True)
    peak_rss_kb = serializers.IntegerField(allow_null=True)
    stderr = serializers.CharField(required=False, help_text="Match detail only, for the bot's owner and staff.")


class MatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    kind = serializers.CharField()
    tournament = serializers.IntegerField(allow_null=True)
    challenge = serializers.IntegerField(allow_null=True)
    index = serializers.IntegerField(allow_null=True)
    game = serializers.CharField()
    engine_version = serializers.CharField()
    options = serializers.DictField(child=serializers.JSONField())
    seats = serializers.IntegerField()
    seed = serializers.IntegerField(
        allow_null=True,
        help_text="The match's secret random seed (its deal): null until the match has finished, and for a game "
        "with hidden information or chance until every match that plays the same seed has ended too "
        "(a version test's pair). Null for everyone, staff included (docs/api.md).",
    )
    rating_pool = serializers.CharField()
    rated = serializers.BooleanField()
    status = serializers.ChoiceField(choices=Match.Status.choices)
    attempt = serializers.IntegerField()
    result_reason = serializers.CharField(allow_blank=True)
    error_reason = serializers.CharField(allow_blank=True)
    waiting_for = serializers.CharField(
        allow_blank=True,
        help_text="A queued match no worker that saw it could run: the runtime it waits for (e.g. node).",
    )
    created = serializers.DateTimeField()
    claimed_at = serializers.DateTimeField(allow_null=True)
    finished_at = serializers.DateTimeField(allow_null=True)
    players = SeatSerializer(many=True)


class ClockSerializer(serializers.Serializer):
    move_ms = serializers.IntegerField()
    game_ms = serializers.IntegerField()
    startup_ms = serializers.IntegerField()


class MatchRatingChangeSerializer(serializers.Serializer):
    bot_version = serializers.IntegerField()
    before = serializers.FloatField()
    after = serializers.FloatField()
    delta = serializers.FloatField()


class MatchDetailSerializer(MatchSerializer):
    clock = ClockSerializer()
    moves = serializers.ListField(child=serializers.JSONField(), help_text="The move log, as the referee kept it.")
    rating_changes = MatchRatingChangeSerializer(many=True)


def _seat(seat: MatchSeat, *, user: Any, with_stderr: bool) -> dict[str, Any]:
    bot = seat.bot_version.bot
    body = {
        "seat": seat.seat,
        "team": seat.team,
        "bot": bot.id,
        "bot_name": bot.name,
        "bot_version": seat.bot_version_id,
        "version": seat.bot_version.number,
        "rank": seat.rank,
        "score": seat.score,
        "status": seat.status,
        "cpu_ms": seat.cpu_ms,
        "peak_rss_kb": seat.peak_rss_kb,
    }
    # A bot's stderr may hold its secrets: only its owner and staff read it.
    if with_stderr and (user.is_staff or (user.is_authenticated and bot.owner_id == user.id)):
        body["stderr"] = seat.stderr
    return body


def match_body(match: Match, *, user: Any, detail: bool) -> dict[str, Any]:
    """A match as the API shows it (``detail`` adds clocks, moves, rating changes and stderr)."""
    link = getattr(match, "challenge_link", None) if detail else None
    body = {
        "id": match.id,
        "kind": match.kind,
        "tournament": match.tournament_id,
        "challenge": link.challenge_id if link else getattr(match, "challenge_id", None),
        "index": match.index,
        "game": match.game_id,
        "engine_version": match.engine_version,
        "options": match.options,
        "seats": match.seats,
        # Secret while it can still tell anyone a hand or a card to come (matches/seeds.py); a match
        # read without the annotation shows none.
        "seed": match.seed if getattr(match, "seed_shown", False) else None,
        "rating_pool": match.rating_pool,
        "rated": match.rated,
        "status": match.status,
        "attempt": match.attempt,
        "result_reason": match.result_reason,
        "error_reason": match.error_reason,
        "waiting_for": match.waiting_for,
        "created": match.created,
        "claimed_at": match.claimed_at,
        "finished_at": match.finished_at,
        "players": [_seat(s, user=user, with_stderr=detail) for s in match.match_seats.all()],
    }
    if detail:
        body["clock"] = {"move_ms": match.move_ms, "game_ms": match.game_ms, "startup_ms": match.startup_ms}
        body["moves"] = match.moves
        body["rating_changes"] = [
            {"bot_version": c.rating.bot_version_id, "before": c.before, "after": c.after, "delta": c.delta}
            for c in match.rating_changes.all()
        ]
    return body


class MatchListApi(GenericAPIView):
    filterset_class = MatchFilter
    pagination_class = MatchCursorPagination
    serializer_class = MatchSerializer

    def get_queryset(self) -> Any:
        return match_list(user=user_of(self.request)).annotate(challenge_id=F("challenge_link__challenge_id"))

    @extend_schema(
        summary="List matches",
        responses=MatchSerializer(many=True),
        description="Cursor pages: follow `next` and `previous`; `?ordering=` picks the order.",
    )
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.filter_queryset(self.get_queryset()))
        user = user_of(request)
        return self.get_paginated_response([match_body(m, user=user, detail=False) for m in page or []])


class MatchDetailApi(APIView):
    @extend_schema(summary="A match with its move log", responses={200: MatchDetailSerializer})
    def get(self, request: Request, match_id: int) -> Response:
        match = found(match_get(user=user_of(request), match_id=match_id), "match")
        return Response(match_body(match, user=user_of(request), detail=True))
