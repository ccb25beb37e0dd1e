"""Tournament standings and crosstable, in a constant number of queries.

Three queries whatever the size: participants, the seats of finished
matches, and the participants' ratings.  Everything else is arithmetic.
"""

from __future__ import annotations

import itertools
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Count

from engines import UnknownEngineError, get_engine
from tournaments.elo import outcome, pair_score
from tournaments.models import Match, MatchSeat, Participant, Rating, Tournament
from tournaments.performance import PairGame, bradley_terry, likelihood_of_superiority


@dataclass
class _Row:
    bot_version_id: int
    bot_id: int
    bot_name: str
    version: int
    owner: str
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: float = 0.0
    sonneborn_berger: float = 0.0
    forfeits: Counter = field(default_factory=Counter)
    elo: float | None = None
    rated_games: int = 0


@dataclass(frozen=True)
class _Game:
    """One finished match seen as teams: each team's participant and rank."""

    members: list[int]  # participant bot_version id per team
    ranks: list[int]
    forfeits: dict[int, set[str]]  # bot_version id -> non-ok statuses
    first_team: int  # position in ``members`` of the team holding seat 0


def _participants(tournament: Tournament) -> list[_Row]:
    entries = (
        Participant.objects.filter(tournament=tournament)
        .select_related("bot_version__bot__owner")
        .defer("bot_version__package")
        .order_by("number")
    )
    return [
        _Row(
            bot_version_id=e.bot_version_id,
            bot_id=e.bot_version.bot_id,
            bot_name=e.bot_version.bot.name,
            version=e.bot_version.number,
            owner=e.bot_version.bot.owner.username,
        )
        for e in entries
    ]


def _finished_games(tournament: Tournament) -> list[_Game]:
    seats = (
        MatchSeat.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
        .order_by("match_id", "seat")
        .values_list("match_id", "team", "bot_version_id", "rank", "status")
    )
    by_match: dict[int, list[tuple[int, int, int | None, str]]] = defaultdict(list)
    for match_id, team, version, rank, status in seats:
        by_match[match_id].append((team, version, rank, status))
    games = []
    for rows in by_match.values():
        team_member: dict[int, int] = {}
        team_rank: dict[int, int] = {}
        forfeits: dict[int, set[str]] = defaultdict(set)
        for team, version, rank, status in rows:
            team_member.setdefault(team, version)
            if rank is not None:
                team_rank[team] = min(team_rank.get(team, rank), rank)
            if status and status != "ok":
                forfeits[version].add(status)
        order = sorted(team_member)
        if len(team_rank) != len(order):
            continue
        games.append(
            _Game(
                members=[team_member[t] for t in order],
                ranks=[team_rank[t] for t in order],
                forfeits=dict(forfeits),
                first_team=order.index(rows[0][0]),  # rows are in seat order: rows[0] is seat 0
            )
        )
    return games


def _game_points(ranks: list[int]) -> list[float]:
    """1 for first place, split among those who share it; 0 otherwise (1, 1/2, 0 with two seats)."""
    firsts = sum(1 for r in ranks if r == 1)
    return [1.0 / firsts if r == 1 else 0.0 for r in ranks]


def _compute(tournament: Tournament) -> tuple[list[_Row], dict[tuple[int, int], list[float]], list[_Game]]:
    rows = _participants(tournament)
    by_version = {r.bot_version_id: r for r in rows}
    games = _finished_games(tournament)
    # pair[(a, b)] = [a's points against b, games between them]
    pair: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0])
    for game in games:
        points = _game_points(game.ranks)
        for t, version in enumerate(game.members):
            row = by_version.get(version)
            if row is None:
                continue
            row.games += 1
            row.points += points[t]
            result = outcome(game.ranks[t], game.ranks)
            row.wins += result == "win"
            row.draws += result == "draw"
            row.losses += result == "loss"
            for status in game.forfeits.get(version, ()):
                row.forfeits[status] += 1
            for u, opponent in enumerate(game.members):
                if u != t:
                    cell = pair[(version, opponent)]
                    cell[0] += pair_score(game.ranks[t], game.ranks[u])
                    cell[1] += 1
    # Sonneborn-Berger: each score against an opponent weighted by that opponent's total.
    for (version, opponent), (score, _) in pair.items():
        if version in by_version and opponent in by_version:
            by_version[version].sonneborn_berger += score * by_version[opponent].points
    ratings = Rating.objects.filter(pool=tournament.rating_pool, bot_version_id__in=list(by_version)).values_list(
        "bot_version_id", "elo", "games"
    )
    for version, elo, rated_games in ratings:
        by_version[version].elo = elo
        by_version[version].rated_games = rated_games
    rows.sort(key=lambda r: (-r.points, -r.sonneborn_berger, -r.wins, r.bot_name, r.bot_version_id))
    return rows, pair, games


def _performance(tournament: Tournament, rows: list[_Row], games: list[_Game]) -> dict[int, dict[str, Any]]:
    """Bradley-Terry performance with a 95% interval and LOS over the next row, anchored on the field's mean Elo."""
    if not rows:
        return {}
    try:
        first_mover = get_engine(tournament.game_id).has_first_mover
    except UnknownEngineError:
        first_mover = True
    pairs = []
    for game in games:
        # The first-move term only means something between two teams.
        two = len(game.members) == 2
        for t, u in itertools.combinations(range(len(game.members)), 2):
            first = (1 if game.first_team == t else -1 if game.first_team == u else 0) if two else 0
            pairs.append(PairGame(game.members[t], game.members[u], pair_score(game.ranks[t], game.ranks[u]), first))
    anchor = sum(r.elo if r.elo is not None else 1500.0 for r in rows) / len(rows)
    fitted, advantage = bradley_terry(
        players=[r.bot_version_id for r in rows], games=pairs, anchor_mean=anchor, first_mover=first_mover
    )
    out = {}
    for position, row in enumerate(rows):
        mine = fitted[row.bot_version_id]
        following = fitted[rows[position + 1].bot_version_id] if position + 1 < len(rows) else None
        out[row.bot_version_id] = {
            "rating": round(mine.rating, 1),
            "low": round(mine.low, 1),
            "high": round(mine.high, 1),
            "los_next": round(likelihood_of_superiority(mine, following), 4) if following else None,
            "first_move_advantage": round(advantage, 1) if first_mover else None,
        }
    return out


def tournament_standings(*, tournament: Tournament) -> list[dict[str, Any]]:
    """Per participant: games, W/D/L, points, score %, Sonneborn-Berger, forfeits by status, Elo, performance."""
    rows, _, games = _compute(tournament)
    performance = _performance(tournament, rows, games)
    return [
        {
            "place": place,
            "bot_version": r.bot_version_id,
            "bot": r.bot_id,
            "bot_name": r.bot_name,
            "version": r.version,
            "owner": r.owner,
            "games": r.games,
            "wins": r.wins,
            "draws": r.draws,
            "losses": r.losses,
            "points": round(r.points, 4),
            "score_percent": round(100.0 * r.points / r.games, 2) if r.games else None,
            "sonneborn_berger": round(r.sonneborn_berger, 4),
            "forfeits": dict(sorted(r.forfeits.items())),
            "elo": round(r.elo, 2) if r.elo is not None else None,
            "rated_games": r.rated_games,
            "performance": performance[r.bot_version_id],
        }
        for place, r in enumerate(rows, start=1)
    ]


def tournament_crosstable(*, tournament: Tournament) -> dict[str, Any]:
    """Every pair's result: row's points against column and games played, in standings order."""
    rows, pair, _ = _compute(tournament)
    order = [r.bot_version_id for r in rows]
    return {
        "participants": [
            {"bot_version": r.bot_version_id, "bot": r.bot_id, "bot_name": r.bot_name, "version": r.version}
            for r in rows
        ],
        "rows": [
            {
                "bot_version": version,
                "cells": [
                    None
                    if opponent == version
                    else {"points": pair[(version, opponent)][0], "games": pair[(version, opponent)][1]}
                    if (version, opponent) in pair
                    else {"points": 0.0, "games": 0}
                    for opponent in order
                ],
            }
            for version in order
        ],
    }


def tournament_progress(*, tournament: Tournament) -> dict[str, int]:
    """Match counts by status (one query)."""
    counts = dict(Match.objects.filter(tournament=tournament).order_by().values_list("status").annotate(n=Count("id")))
    total = sum(counts.values())
    return {"total": total, **{status: counts.get(status, 0) for status in Match.Status.values}}
