"""A gauntlet's report: the challenger's score, its performance against the field, and its record per opponent.

Everything is counted from the gauntlet's finished matches, read with their
place in the plan (``Match.index``): the plan puts each pair's two games at
indexes ``2k`` and ``2k + 1`` (``plans.gauntlet_plan``), which is how a pair is
found again.  The statistics are the ones the rest of Arbiter uses
(``ratings.stats``): the Elo a score implies with its 95% interval
(``ErrorBar``), from the pentanomial of the complete pairs when every game is
paired (an even ``games_per_pairing``), from W/D/L otherwise.  The
performance rating is that difference added to the field's mean Elo in the
tournament's pool, each opponent weighted by the games counted against it.
Nothing here writes.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.conf import settings

from tournaments.competitions.models import Participant, Tournament
from tournaments.competitions.plans import gauntlet_paired
from tournaments.competitions.selectors.standings import tournament_cached
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.elo import pair_score
from tournaments.ratings.models import Rating
from tournaments.ratings.stats import ErrorBar, counts


def gauntlet_report(*, tournament: Tournament) -> dict[str, Any] | None:
    """The report of a gauntlet (None for another format), kept until one of its inputs changes.

    ``challenger``; its ``games``, ``wins``, ``draws``, ``losses``, ``points``
    and ``score`` (points per game) over every finished game; ``pairs`` and
    ``pentanomial`` (complete pairs scoring 0, 1/2, 1, 3/2, 2) when
    ``games_per_pairing`` is even, else None; ``performance`` (None until a
    score between 0 and 1); ``opponents``, in entry order, each with its
    record against the challenger and the Elo difference it implies.
    """
    if tournament.format != Tournament.Format.GAUNTLET:
        return None
    report: dict[str, Any] = tournament_cached(
        tournament=tournament, part="gauntlet", compute=lambda: _report(tournament)
    )
    return report


def _scores(tournament: Tournament) -> dict[int, tuple[int, float]]:
    """The challenger's score (1, 0.5, 0) in each finished game, by plan index: (opponent's version, score)."""
    challenger = tournament.challenger_id
    indexes = dict(Match.objects.filter(tournament=tournament, status=Match.Status.FINISHED).values_list("id", "index"))
    # team -> (version, best rank) per match; a team's seats share its rank.
    teams: dict[int, dict[int, tuple[int, int]]] = defaultdict(dict)
    seats = MatchSeat.objects.filter(match_id__in=list(indexes), rank__isnull=False).values_list(
        "match_id", "team", "bot_version_id", "rank"
    )
    for match_id, team, version, rank in seats:
        if rank is None:
            continue  # not so: filtered above; for the type checker
        known = teams[match_id].get(team)
        teams[match_id][team] = (version, rank if known is None else min(known[1], rank))
    scores: dict[int, tuple[int, float]] = {}
    for match_id, sides in teams.items():
        mine = [rank for version, rank in sides.values() if version == challenger]
        other = [(version, rank) for version, rank in sides.values() if version != challenger]
        if len(sides) == 2 and len(mine) == 1 and len(other) == 1:
            scores[indexes[match_id] or 0] = (other[0][0], pair_score(mine[0], other[0][1]))
    return scores


def _tally(scores: list[float]) -> dict[str, Any]:
    wins, draws = scores.count(1.0), scores.count(0.5)
    points = wins + draws / 2.0
    return {
        "games": len(scores),
        "wins": wins,
        "draws": draws,
        "losses": len(scores) - wins - draws,
        "points": points,
        "score": round(points / len(scores), 4) if scores else None,
    }


def _bar(bar: ErrorBar | None) -> dict[str, float] | None:
    if bar is None:
        return None
    return {
        "elo_diff": round(bar.elo, 1),
        "stderr": round(bar.stderr, 1),
        "low": round(bar.low, 1),
        "high": round(bar.high, 1),
    }


def _report(tournament: Tournament) -> dict[str, Any]:
    entries = list(
        Participant.objects.filter(tournament=tournament)
        .select_related("bot_version__bot__owner")
        .defer("bot_version__package")
        .order_by("number")
    )
    elo = dict(
        Rating.objects.filter(
            pool=tournament.rating_pool, bot_version_id__in=[e.bot_version_id for e in entries]
        ).values_list("bot_version_id", "elo")
    )
    start = float(settings.ARBITER_ELO_START)
    scores = _scores(tournament)
    mine = [e for e in entries if e.bot_version_id == tournament.challenger_id]
    others = [e for e in entries if e.bot_version_id != tournament.challenger_id]
    field = len(others)
    paired = gauntlet_paired(field=field, games_per_pairing=tournament.games_per_pairing)
    pentanomial = tournament.games_per_pairing % 2 == 0
    by_opponent: dict[int, list[float]] = defaultdict(list)
    for _, (opponent, score) in sorted(scores.items()):
        by_opponent[opponent].append(score)
    # Games the performance counts, per opponent: every game, or the games of complete pairs.
    counted: dict[int, int] = {v: len(s) for v, s in by_opponent.items()}
    pairs: list[tuple[float, float]] = []
    if pentanomial:
        counted = defaultdict(int)
        for index in range(0, paired, 2):
            first, second = scores.get(index), scores.get(index + 1)
            if first is not None and second is not None:
                pairs.append((first[1], second[1]))
                counted[first[0]] += 2
    pair_counts = counts(pairs) if pentanomial else None
    total = _tally([score for _, score in scores.values()])
    if pair_counts is not None:
        bar = ErrorBar.of_results(pair_counts.pentanomial)
    else:
        bar = ErrorBar.of_score(total["wins"], total["draws"], total["losses"])
    weight = sum(counted.values())
    field_elo = sum(elo.get(v, start) * n for v, n in counted.items()) / weight if weight else None
    return {
        "challenger": _version(mine[0]) if mine else None,
        **total,
        "pairs": pair_counts.pairs if pair_counts is not None else None,
        "pentanomial": list(pair_counts.pentanomial) if pair_counts is not None else None,
        "performance": _performance(bar, field_elo, "pairs" if pentanomial else "games"),
        "opponents": [_opponent(e, by_opponent.get(e.bot_version_id, []), elo.get(e.bot_version_id)) for e in others],
    }


def _performance(bar: ErrorBar | None, field_elo: float | None, counted: str) -> dict[str, Any] | None:
    """The Elo difference with its interval, and the same added to the field's mean Elo: the performance rating."""
    if bar is None or field_elo is None:
        return None
    return {
        **(_bar(bar) or {}),
        "counted": counted,
        "games": bar.games,
        "field_elo": round(field_elo, 1),
        "rating": round(field_elo + bar.elo, 1),
        "rating_low": round(field_elo + bar.low, 1),
        "rating_high": round(field_elo + bar.high, 1),
    }


def _version(entry: Participant) -> dict[str, Any]:
    version = entry.bot_version
    return {
        "bot_version": version.id,
        "bot": version.bot_id,
        "bot_name": version.bot.name,
        "version": version.number,
        "owner": version.bot.owner.username,
    }


def _opponent(entry: Participant, scores: list[float], elo: float | None) -> dict[str, Any]:
    """One field member's games against the challenger, from the challenger's side."""
    tally = _tally(scores)
    bar = ErrorBar.of_score(tally["wins"], tally["draws"], tally["losses"]) if scores else None
    return {**_version(entry), "elo": round(elo, 1) if elo is not None else None, **tally, "performance": _bar(bar)}
