"""Tournament standings and crosstable, in a constant number of queries.

Four queries whatever the size: participants, the ids of the finished
matches, their seats, and the participants' ratings.  Everything else is
arithmetic.
Standings rows also carry the one performance rating of the tournament
(``perf_elo`` with its 95% interval ``ci_low``..``ci_high`` and ``los_next``),
read from the whole-tournament fit in ``tournaments.competitions.selectors.performance``
(cached, or fitted on the spot: a few more queries, still constant).

What these pages show is computed once per state of the tournament and then
served from Django's cache (Redis in production, each process's memory in the
embedded default).  The key is a digest of every input, read on each request
in one statement (:func:`_inputs`): the match counts and last finish
by status, the participants with their names, their ratings and the stored
fit's stamp.  A recorded match changes the counts, so the next read
recomputes: nothing has to be told, and a reader never sees a table older
than the database.  (A match's seats are written with its finish, so counts
and last finish stand for the set of results.)
"""

from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db import connection
from django.db.models import Count

from tournaments.bots.models import Bot, BotVersion
from tournaments.competitions.models import Participant, PerformanceFit, Tournament, TournamentRound
from tournaments.competitions.selectors.performance import (
    standings_with_performance,
    tournament_los_matrix,
    tournament_performance,
)
from tournaments.competitions.selectors.results import FinishedGame, game_points, tournament_finished_games
from tournaments.competitions.selectors.tournaments import participants_seeded
from tournaments.matches.models import Match
from tournaments.ratings.elo import outcome, pair_score
from tournaments.ratings.models import Rating

# The key says what a table was computed from, so the time only bounds the memory it holds.
CACHE_S = 6 * 3600

# What tournament_table returns, each part cached apart.
TABLE_PARTS = ("standings", "crosstable", "performance_fit")

# The fit's summary fields shown next to the standings (API ``performance_fit``).
FIT_SUMMARY = ("computed_at", "stale", "matches", "anchor", "first_move_advantage", "first_move_stderr", "components")


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
    # Swiss: the opponents' points summed, and the rounds sat out (each worth a pairing won).
    buchholz: float = 0.0
    byes: int = 0
    forfeits: Counter = field(default_factory=Counter)
    elo: float | None = None
    rated_games: int = 0
    withdrawn: bool = False


def _participants(tournament: Tournament) -> list[_Row]:
    entries = (
        participants_seeded(tournament=tournament)
        .select_related("bot_version__bot__owner")
        .defer("bot_version__package")
    )
    return [
        _Row(
            bot_version_id=e.bot_version_id,
            bot_id=e.bot_version.bot_id,
            bot_name=e.bot_version.bot.name,
            version=e.bot_version.number,
            owner=e.bot_version.bot.owner.username,
            withdrawn=e.withdrawn,
        )
        for e in entries
    ]


def _compute(tournament: Tournament) -> tuple[list[_Row], dict[tuple[int, int], list[float]], list[FinishedGame]]:
    rows = _participants(tournament)
    by_version = {r.bot_version_id: r for r in rows}
    games = tournament_finished_games(tournament=tournament)
    # pair[(a, b)] = [a's points against b, games between them]
    pair: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0])
    for game in games:
        points = game_points(game.ranks)
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
    # A Swiss bye is worth a pairing won outright (selectors/rounds.py pairs by the same score).
    for bye in TournamentRound.objects.filter(tournament=tournament, bye__isnull=False).values_list("bye", flat=True):
        if bye in by_version:
            by_version[bye].byes += 1
            by_version[bye].points += tournament.games_per_pairing
    # Sonneborn-Berger: each score against an opponent weighted by that opponent's total;
    # Buchholz: the opponents' totals (each opponent once; a Swiss pairs two bots once).
    for (version, opponent), (score, _) in pair.items():
        if version in by_version and opponent in by_version:
            by_version[version].sonneborn_berger += score * by_version[opponent].points
            by_version[version].buchholz += by_version[opponent].points
    ratings = Rating.objects.filter(pool=tournament.rating_pool, bot_version_id__in=list(by_version)).values_list(
        "bot_version_id", "elo", "games"
    )
    for version, elo, rated_games in ratings:
        by_version[version].elo = elo
        by_version[version].rated_games = rated_games
    rows.sort(key=lambda r: (*(-key(r) for _, key in tie_breaks(tournament)), r.bot_name, r.bot_version_id))
    return rows, pair, games


# The order of standings, after points: what tells two rows apart, in words, first that differs.
TIE_BREAKS: tuple[tuple[str, Callable[[_Row], float]], ...] = (
    ("points", lambda r: round(r.points, 9)),
    ("Sonneborn-Berger", lambda r: round(r.sonneborn_berger, 9)),
    ("wins", lambda r: r.wins),
)
# A Swiss: Buchholz first (how strong the field met was), as Swiss events rank.
SWISS_TIE_BREAKS = (TIE_BREAKS[0], ("Buchholz", lambda r: round(r.buchholz, 9)), *TIE_BREAKS[1:])


def tie_breaks(tournament: Tournament) -> tuple[tuple[str, Callable[[_Row], float]], ...]:
    """The tournament's order of standings: points, then its tie-breaks, each higher first."""
    return SWISS_TIE_BREAKS if tournament.format == Tournament.Format.SWISS else TIE_BREAKS


def decided_by(
    row: _Row, neighbour: _Row | None, order: tuple[tuple[str, Callable[[_Row], float]], ...] = TIE_BREAKS
) -> str:
    """What separates ``row`` from the row beside it: the first tie-break of ``order`` that differs, or "name"
    when all are equal (the order is then alphabetical); "" alone."""
    if neighbour is None:
        return ""
    for name, key in order:
        if key(row) != key(neighbour):
            return name
    return "name"


def _standing_rows(rows: list[_Row], tournament: Tournament) -> list[dict[str, Any]]:
    # Each row against the one above it; the leader against the one below.
    beside = [rows[i - 1] if i else (rows[1] if len(rows) > 1 else None) for i in range(len(rows))]
    order = tie_breaks(tournament)
    return [
        {
            "place": place,
            "decided_by": decided_by(r, beside[place - 1], order),
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
            "buchholz": round(r.buchholz, 4),
            "byes": r.byes,
            "forfeits": dict(sorted(r.forfeits.items())),
            "elo": round(r.elo, 2) if r.elo is not None else None,
            "rated_games": r.rated_games,
            "withdrawn": r.withdrawn,
        }
        for place, r in enumerate(rows, start=1)
    ]


def _base_rows(tournament: Tournament) -> list[dict[str, Any]]:
    rows, _, _ = _compute(tournament)
    return _standing_rows(rows, tournament)


def _crosstable(rows: list[_Row], pair: dict[tuple[int, int], list[float]]) -> dict[str, Any]:
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


def tournament_standings(*, tournament: Tournament, performance: bool = True) -> list[dict[str, Any]]:
    """Per participant, best first: games, W/D/L, points, score %, Sonneborn-Berger, forfeits by status, Elo,
    ``withdrawn`` (the bot may no longer play here: ranked by the games it played, its other games cancelled);
    and (unless ``performance`` is False) ``perf_elo``, ``ci_low``, ``ci_high``, ``los_next``."""
    if not performance:
        return _cached(tournament, "base", lambda: _base_rows(tournament))
    return tournament_standings_with_fit(tournament=tournament)["standings"]


def tournament_standings_with_fit(*, tournament: Tournament) -> dict[str, Any]:
    """``standings`` (rows with performance), ``performance_fit`` (the fit's summary) and ``progress``
    (:func:`tournament_progress`, read with the standings' inputs, so the two agree)."""
    return _table_parts(tournament, ("standings", "performance_fit", "progress"))


def tournament_los(*, tournament: Tournament) -> dict[str, Any]:
    """The likelihood of superiority of every participant over every other, in standings order.

    From the whole-tournament fit behind ``perf_elo``: ``los[r][c]`` is the
    probability that row ``r`` is truly stronger than column ``c``.
    """
    return _cached(tournament, "los", lambda: _los(tournament))


def _los(tournament: Tournament) -> dict[str, Any]:
    rows = _base_rows(tournament)
    matrix = tournament_los_matrix(tournament=tournament, order=[r["bot_version"] for r in rows])
    by_version = {r["bot_version"]: r for r in rows}
    return {
        "participants": [
            {key: by_version[v][key] for key in ("bot_version", "bot", "bot_name", "version", "owner")}
            for v in matrix["players"]
        ],
        "los": matrix["los"],
    }


def tournament_crosstable(*, tournament: Tournament) -> dict[str, Any]:
    """Every pair's result: row's points against column and games played, in standings order."""
    crosstable: dict[str, Any] = _table_parts(tournament, ("crosstable",))["crosstable"]
    return crosstable


def tournament_table(*, tournament: Tournament) -> dict[str, Any]:
    """Standings (with performance), crosstable and the fit's summary from one pass over the results.

    Pages that show both use this: the pass over every seat of every finished
    match is the expensive part, so it is done once, and kept until an input changes.
    """
    return _table_parts(tournament, TABLE_PARTS)


def _table_parts(tournament: Tournament, parts: tuple[str, ...]) -> dict[str, Any]:
    # Each part is kept under a key of its own: the standings API does not unpickle the crosstable.
    stamp, counts = _inputs(tournament)
    extra = {"progress": _progress(counts)} if "progress" in parts else {}
    keys = {part: f"tournament-table:{part}:{tournament.pk}:{stamp}" for part in parts if part in TABLE_PARTS}
    found = cache.get_many(list(keys.values()))
    if len(found) == len(keys):
        return {**{part: found[key] for part, key in keys.items()}, **extra}
    table = _table(tournament)
    cache.set_many({f"tournament-table:{part}:{tournament.pk}:{stamp}": table[part] for part in TABLE_PARTS}, CACHE_S)
    return {**{part: table[part] for part in keys}, **extra}


def _table(tournament: Tournament) -> dict[str, Any]:
    rows, pair, _ = _compute(tournament)
    standings = _standing_rows(rows, tournament)
    table = tournament_performance(tournament=tournament, order=[r["bot_version"] for r in standings])
    return {
        "standings": standings_with_performance(standings, table),
        "crosstable": _crosstable(rows, pair),
        "performance_fit": {key: table[key] for key in FIT_SUMMARY},
    }


def _inputs(tournament: Tournament) -> tuple[str, dict[str, int]]:
    """A digest of everything the tables above are computed from, read in one statement; and the match counts.

    Per status the matches' count and last finish (a result recorded again
    would move it); each participant's version, bot, names, whether the bot is
    active and its visibility (which say whether it is withdrawn) and rating; the
    stored fit's stamp.  One raw statement rather than four ORM queries: it is
    read on every request, and the four round trips were most of a cached
    request's time.
    """
    table = {m.__name__: m._meta.db_table for m in (Match, Participant, BotVersion, Bot, Rating, PerformanceFit)}
    users = get_user_model()._meta.db_table
    sql = f"""
        SELECT 'm', status, CAST(COUNT(*) AS TEXT) || '|' || COALESCE(CAST(MAX(finished_at) AS TEXT), '')
        FROM {table["Match"]} WHERE tournament_id = %s GROUP BY status
        UNION ALL
        SELECT 'p', CAST(e.number AS TEXT), CAST(e.bot_version_id AS TEXT) || '|' || (
                   -- Lookups per participant: joined, the planner read every version or rating.
                   -- The bot's state too: it says whether the bot is withdrawn (``withdrawn_in``).
                   SELECT CAST(v.number AS TEXT) || '|' || CAST(v.bot_id AS TEXT) || '|' || b.name
                          || '|' || u.username || '|' || CAST(b.active AS TEXT) || '|' || b.visibility
                   FROM {table["BotVersion"]} v
                   JOIN {table["Bot"]} b ON b.id = v.bot_id
                   JOIN {users} u ON u.id = b.owner_id
                   WHERE v.id = e.bot_version_id
               ) || '|' || COALESCE((
                   SELECT CAST(r.elo AS TEXT) || '|' || CAST(r.games AS TEXT) FROM {table["Rating"]} r
                   WHERE r.bot_version_id = e.bot_version_id AND r.pool = %s
               ), '')
        FROM {table["Participant"]} e
        WHERE e.tournament_id = %s
        UNION ALL
        SELECT 'f', CAST(id AS TEXT), CAST(matches AS TEXT) || '|' || COALESCE(CAST(computed_at AS TEXT), '')
        FROM {table["PerformanceFit"]} WHERE tournament_id = %s AND pool = %s
    """  # table names from the models; every value a parameter
    pool = tournament.rating_pool
    with connection.cursor() as cursor:
        cursor.execute(sql, [tournament.pk, pool, tournament.pk, tournament.pk, pool])
        rows = sorted(cursor.fetchall())
    # ``created`` too: a test database handed out again gives a new tournament an old id.
    inputs = (tournament.pk, tournament.created, pool, tournament.game_id, rows)
    counts = {status: int(figures.split("|")[0]) for kind, status, figures in rows if kind == "m"}
    return hashlib.sha256(repr(inputs).encode()).hexdigest(), counts


def tournament_cached(*, tournament: Tournament, part: str, compute: Callable[[], Any]) -> Any:
    """``compute()`` for another table of the tournament (a gauntlet's report), kept like the standings:
    until a match is recorded or a participant, its name or its rating changes."""
    return _cached(tournament, part, compute)


def _cached(tournament: Tournament, what: str, compute: Callable[[], Any]) -> Any:
    """``compute()``, or what it returned before for the same inputs."""
    key = f"tournament-table:{what}:{tournament.pk}:{_inputs(tournament)[0]}"
    value = cache.get(key)
    if value is None:
        value = compute()
        cache.set(key, value, CACHE_S)
    return value


def tournament_progress(*, tournament: Tournament) -> dict[str, int]:
    """Match counts by status (one query)."""
    return _progress(
        dict(Match.objects.filter(tournament=tournament).order_by().values_list("status").annotate(n=Count("id")))
    )


def _progress(counts: dict[str, int]) -> dict[str, int]:
    total = sum(counts.values())
    return {"total": total, **{status: counts.get(status, 0) for status in Match.Status.values}}
