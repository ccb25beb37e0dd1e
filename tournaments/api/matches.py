"""Matches: list with filters, detail with the move log and per-seat statuses."""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from tournaments.api.common import found, query_int, user_of
from tournaments.api.pagination import Pagination
from tournaments.models import Match, MatchSeat
from tournaments.selectors.matches import match_get, match_list
from tournaments.services.errors import ServiceError


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


def _match(match: Match, *, user: Any, detail: bool) -> dict[str, Any]:
    body = {
        "id": match.id,
        "tournament": match.tournament_id,
        "index": match.index,
        "game": match.game_id,
        "engine_version": match.engine_version,
        "options": match.options,
        "seats": match.seats,
        "seed": match.seed,
        "rating_pool": match.rating_pool,
        "rated": match.rated,
        "status": match.status,
        "attempt": match.attempt,
        "result_reason": match.result_reason,
        "error_reason": match.error_reason,
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


class MatchListApi(APIView):
    def get(self, request: Request) -> Response:
        status = request.query_params.get("status") or None
        if status and status not in Match.Status.values:
            raise ServiceError(f"status is one of {', '.join(Match.Status.values)}.", fields={"status": ["invalid"]})
        matches = match_list(
            tournament_id=query_int(request, "tournament"),
            bot_id=query_int(request, "bot"),
            status=status,
            by_finish=request.query_params.get("order") == "finished",
        )
        paginator = Pagination()
        page = paginator.paginate_queryset(matches, request, view=self)
        user = user_of(request)
        return paginator.get_paginated_response([_match(m, user=user, detail=False) for m in page])


class MatchDetailApi(APIView):
    def get(self, request: Request, match_id: int) -> Response:
        match = found(match_get(match_id=match_id), "match")
        return Response(_match(match, user=user_of(request), detail=True))
