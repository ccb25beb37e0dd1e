"""Pages: game index, leaderboard, tournament, bot and match (with its replay).

Each view reads through the selectors (a constant number of queries per
page, whatever the size of the tournament) and hands plain data to a
template.  Nothing here writes.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe
from rest_framework.utils.encoders import JSONEncoder

from engines import UnknownEngineError, get_engine
from tournaments.competitions.models import Tournament
from tournaments.competitions.selectors.brackets import tournament_bracket
from tournaments.competitions.selectors.gauntlets import gauntlet_report
from tournaments.competitions.selectors.performance import tournament_los_matrix
from tournaments.competitions.selectors.rounds import tournament_rounds
from tournaments.competitions.selectors.standings import tournament_progress, tournament_table
from tournaments.competitions.selectors.tournaments import tournament_get, tournament_list
from tournaments.games.models import Game
from tournaments.games.selectors import game_default_pool, game_list
from tournaments.matches.api import match_body
from tournaments.matches.forfeits import forfeit_details
from tournaments.matches.live import match_live
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.selectors import match_get, match_list
from tournaments.ratings.matchups import match_rating_deltas
from tournaments.ratings.pools import pool_is_public
from tournaments.ratings.selectors import (
    game_rating_pools,
    leaderboard,
    organiser_pools,
    pool_of_game,
    pool_organiser_name,
    pool_summaries,
    rating_error_bar,
    rating_is_provisional,
    rating_provisional_reason,
)
from tournaments.web.replay import ReplayData, replay_build

RECENT_MATCHES = 20
# The end of a bot's stderr shown to its owner on a match page (the API's detail has all that was kept).
STDERR_TAIL_LINES = 40
STDERR_TAIL_CHARS = 4000
# Beyond this many participants the LOS matrix is left to the API: the page would be all numbers.
LOS_MATRIX_MAX = 24
# Games whose replay has a renderer in static/replay/<game>.js.
RENDERERS = frozenset({"gamesup", "flagstacks", "pileup", "sequence", "hexstacks"})
# How often a running tournament's page fetches its live part again.
LIVE_REFRESH_MS = 3000


def _or_404(obj: Any) -> Any:
    if obj is None:
        raise Http404
    return obj


def _players(seats: list[MatchSeat]) -> list[dict[str, Any]]:
    return [
        {
            "seat": s.seat,
            "team": s.team,
            "bot": s.bot_version.bot_id,
            "bot_name": s.bot_version.bot.name,
            "version": s.bot_version.number,
            "rank": s.rank,
            "score": s.score,
            "status": s.status,
            "cpu_ms": s.cpu_ms,
        }
        for s in seats
    ]


def match_rows(matches: Any) -> list[dict[str, Any]]:
    """Matches (with prefetched seats) as rows: id, status, players with ranks and Elo changes, reason."""
    matches = list(matches)
    deltas = match_rating_deltas(match_ids=[m.id for m in matches])
    rows = []
    for m in matches:
        seats = list(m.match_seats.all())
        players = _players(seats)
        for player, seat in zip(players, seats, strict=True):
            player["delta"] = deltas.get((m.id, seat.bot_version_id))
        rows.append(
            {
                "id": m.id,
                "index": m.index,
                "game": m.game_id,
                "status": m.status,
                "tournament": m.tournament_id,
                "finished_at": m.finished_at,
                "reason": m.result_reason or m.error_reason,
                "players": players,
            }
        )
    return rows


def games_index(request: HttpRequest) -> HttpResponse:
    """Every game with its rating pools, and the latest tournaments."""
    games = list(game_list())
    pools = {}
    for game in games:
        try:
            engine = get_engine(game.id)
            keys = list(dict.fromkeys(engine.rating_pool(o, s) for s, o in engine.configs()))
        except UnknownEngineError:
            keys = [game.id]
        pools[game.id] = list(pool_summaries(game_id=game.id, pools=keys, user=request.user).values())
    tournaments = list(tournament_list(user=request.user)[:30])
    return render(
        request,
        "web/index.html",
        {"games": [{"game": g, "pools": pools[g.id]} for g in games], "tournaments": tournaments},
    )


def game_leaderboard(request: HttpRequest, game_id: str) -> HttpResponse:
    """The latest version of each visible bot in one rating pool (public, or an organiser's own), best first."""
    game = _or_404(Game.objects.filter(id=game_id).first())
    pools = game_rating_pools(game=game)
    pool = request.GET.get("pool") or game_default_pool(game=game)
    if not pool_of_game(game_id=game.id, pool=pool):
        raise Http404
    user = request.user
    own = organiser_pools(game_id=game.id, organiser_id=user.pk) if user.is_authenticated else []
    ratings = list(leaderboard(game_id=game.id, pool=pool, user=user)[:500])
    rows = [
        {
            "place": place,
            "provisional": rating_is_provisional(r),
            "reason": rating_provisional_reason(r) if rating_is_provisional(r) else None,
            "bot": r.bot_version.bot_id,
            "bot_name": r.bot_version.bot.name,
            "owner": r.bot_version.bot.owner.username,
            "version": r.bot_version.number,
            "elo": r.elo,
            # Half the 95% interval of the pool's last whole-history fit; None until the pool is fitted.
            "margin": None if (bar := rating_error_bar(r)) is None else (bar.high - bar.low) / 2,
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
        }
        for place, r in enumerate(ratings, start=1)
    ]
    context = {
        "game": game,
        "pool": pool,
        "pools": pools,
        "own_pools": own,
        "public": pool_is_public(pool),
        "organiser": pool_organiser_name(pool=pool),
        "rows": rows,
    }
    return render(request, "web/leaderboard.html", context)


def _cells_html(cells: list[dict[str, Any] | None]) -> SafeString:
    """One crosstable row's cells.  Built here rather than in the template: with 50 bots that is
    2,500 cells, and the template language would spend more time on them than the selectors."""
    out = []
    for cell in cells:
        if cell is None:
            out.append('<td class="self">&times;</td>')
        elif cell["games"]:
            out.append(f'<td class="num">{round(cell["points"], 2):g}/{int(cell["games"])}</td>')
        else:
            out.append('<td class="num empty">·</td>')
    return mark_safe("".join(out))  # numbers and fixed markup only


def _los_rows(tournament: Tournament, standings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The LOS matrix in standings order, as percentages; empty when too big or not yet fitted."""
    if not 2 <= len(standings) <= LOS_MATRIX_MAX:
        return []
    by_version = {row["bot_version"]: row for row in standings}
    matrix = tournament_los_matrix(tournament=tournament, order=list(by_version))
    rows = []
    for version, values in zip(matrix["players"], matrix["los"], strict=True):
        cells = []
        for value in values:
            if value is None:
                cells.append('<td class="self">&times;</td>')
            else:
                cells.append(f'<td class="num">{100.0 * value:.0f}</td>')
        row = by_version[version]
        rows.append(
            {"place": row["place"], "name": row["bot_name"], "bot": row["bot"], "cells": mark_safe("".join(cells))}
        )
    return rows


def _tournament_context(tournament: Tournament, user: Any) -> dict[str, Any]:
    progress = tournament_progress(tournament=tournament)
    done = progress["finished"] + progress["errored"] + progress["cancelled"]
    total = progress["total"]
    table = tournament_table(tournament=tournament)
    standings, crosstable = table["standings"], table["crosstable"]
    swiss = tournament.format == Tournament.Format.SWISS
    knockout = tournament.format in (Tournament.Format.KNOCKOUT, Tournament.Format.DOUBLE_ELIMINATION)
    # A Swiss shows its rounds, a knockout its bracket, instead of a crosstable (a big field meets a few opponents).
    cross_rows = (
        []
        if swiss or knockout
        else [
            {
                "name": p["bot_name"],
                "version": p["version"],
                "bot": p["bot"],
                "place": n,
                "cells": _cells_html(row["cells"]),
            }
            for n, (p, row) in enumerate(zip(crosstable["participants"], crosstable["rows"], strict=True), start=1)
        ]
    )
    recent = match_rows(match_list(user=user, tournament_id=tournament.id)[:RECENT_MATCHES])
    # The matches being played, each a link to its live board (none to look for once nothing runs).
    running = (
        match_rows(match_list(user=user, tournament_id=tournament.id, status=Match.Status.RUNNING)[:RECENT_MATCHES])
        if progress["running"]
        else []
    )
    return {
        "tournament": tournament,
        "swiss": swiss,
        "rounds": list(reversed(tournament_rounds(tournament=tournament))) if swiss else [],
        "knockout": knockout,
        "bracket": _bracket_parts(tournament) if knockout else None,
        "progress": progress,
        "done": done,
        # Matches done or under way: the live script compares it with the API's progress.
        "started": done + progress["running"],
        "percent": round(100.0 * done / total, 1) if total else 100.0,
        "running": tournament.status == Tournament.Status.RUNNING,
        "standings": standings,
        "withdrawn_any": any(row["withdrawn"] for row in standings),
        "cross_rows": cross_rows,
        "los_rows": _los_rows(tournament, standings),
        "recent": recent,
        "running_matches": running,
        "refresh_ms": LIVE_REFRESH_MS,
        "public_pool": pool_is_public(tournament.rating_pool),
        "gauntlet": gauntlet_report(tournament=tournament),
    }


BRACKET_PARTS = {"W": "Winners' bracket", "L": "Losers' bracket", "F": "Grand final"}


def _bracket_parts(tournament: Tournament) -> dict[str, Any]:
    """The bracket in columns: each part of it (winners', losers', final), its rounds left to right."""
    bracket = tournament_bracket(tournament=tournament)
    parts: dict[str, dict[int, list[dict[str, Any]]]] = {}
    for node in bracket["nodes"]:
        parts.setdefault(node["part"], {}).setdefault(node["round"], []).append(node)
    titles = {"W": "Bracket"} if tournament.format == Tournament.Format.KNOCKOUT else BRACKET_PARTS
    return {
        "parts": [
            {"key": key, "title": titles[key], "rounds": [{"number": n, "nodes": rows} for n, rows in rounds.items()]}
            for key, rounds in parts.items()
        ],
        "placings": bracket["placings"],
    }


def tournament_page(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """Standings, crosstable, progress and the latest matches; refreshes itself while running."""
    tournament = _or_404(tournament_get(user=request.user, tournament_id=tournament_id))
    return render(request, "web/tournament.html", _tournament_context(tournament, request.user))


def tournament_live(request: HttpRequest, tournament_id: int) -> HttpResponse:
    """The changing part of the tournament page alone, fetched again every few seconds."""
    tournament = _or_404(tournament_get(user=request.user, tournament_id=tournament_id))
    return render(request, "web/_tournament_live.html", _tournament_context(tournament, request.user))


def stderr_tail(text: str) -> str:
    """The last lines of a bot's stderr, at most STDERR_TAIL_LINES lines and STDERR_TAIL_CHARS characters."""
    lines = text[-STDERR_TAIL_CHARS:].splitlines()
    return "\n".join(lines[-STDERR_TAIL_LINES:])


def _visible_seats(match: Match, seats: list[MatchSeat], user: Any) -> set[int]:
    """Seats whose secrets this user may see: all for staff, else the seats of the user's own bots."""
    if getattr(user, "is_staff", False):
        return {s.seat for s in seats}
    if user is None or not user.is_authenticated:
        return set()
    return {s.seat for s in seats if s.bot_version.bot.owner_id == user.id}


def _live_replay(request: HttpRequest, match: Match) -> dict[str, Any]:
    """A running match's plies so far, in the replay viewer's shape, with where to ask for the next ones.

    Only what spectators see, whoever asks: no hand and no seed while the match runs.
    """
    body = match_live(user=request.user, match_id=match.id) or {"plies": [], "attempt": match.attempt}
    live = {
        "url": reverse("web-match-live", args=[match.id]),
        "attempt": body["attempt"],
        "every_ms": settings.ARBITER_LIVE_POLL_MS,
    }
    replay = ReplayData(game=match.game_id, seats=match.seats, plies=body["plies"]).to_json()
    replay["live"] = live
    return replay


def match_page(request: HttpRequest, match_id: int) -> HttpResponse:
    """The match's players and result, and a replay viewer stepping through every ply.

    While the match runs the viewer shows the plies played so far and asks for new ones
    (``match_live_json``); when it ends the page loads again with the whole replay.
    """
    match = _or_404(match_get(user=request.user, match_id=match_id))
    seats = list(match.match_seats.all())
    replay = None
    if match.status == Match.Status.RUNNING:
        replay = _live_replay(request, match)
    elif match.status == Match.Status.FINISHED or match.moves:
        replay = replay_build(match=match, visible_seats=_visible_seats(match, seats, request.user)).to_json()
    if replay is not None:
        replay["players"] = [
            {"seat": s.seat, "team": s.team, "name": f"{s.bot_version.bot.name} v{s.bot_version.number}"} for s in seats
        ]
        replay["result"] = match.result_reason
    changes = {c.rating.bot_version_id: c for c in match.rating_changes.all()}
    forfeits = forfeit_details(match.result_reason)
    visible = _visible_seats(match, seats, request.user)
    players = _players(seats)
    for player, seat in zip(players, seats, strict=True):
        change = changes.get(seat.bot_version_id)
        player["delta"] = change.delta if change else None
        player["after"] = change.after if change else None
        player["forfeit"] = forfeits.get(seat.seat)
        # A bot's stderr may hold its secrets: only its owner (and staff) read it.
        player["stderr"] = stderr_tail(seat.stderr) if seat.seat in visible else None
    return render(
        request,
        "web/match.html",
        {
            "match": match,
            "players": players,
            "replay": replay,
            "renderer": f"replay/{match.game_id}.js" if match.game_id in RENDERERS else None,
        },
    )


def match_live_json(request: HttpRequest, match_id: int) -> JsonResponse:
    """The plies of a running match from ``?since=N`` on, as spectators see them, and its status."""
    try:
        since = max(int(request.GET.get("since", "0")), 0)
    except ValueError:
        since = 0
    body = _or_404(match_live(user=request.user, match_id=match_id, since=since))
    response = JsonResponse(body)
    response["Cache-Control"] = "no-store"
    return response


def match_download(request: HttpRequest, match_id: int) -> JsonResponse:
    """The match as the API's detail shows it to this user (move log, result, players), as a file."""
    match = _or_404(match_get(user=request.user, match_id=match_id))
    body = match_body(match, user=request.user, detail=True)
    response = JsonResponse(body, encoder=JSONEncoder, json_dumps_params={"indent": 1})
    response["Content-Disposition"] = f'attachment; filename="arbiter-match-{match.id}.json"'
    return response
