"""The tournament performance table (ratings.md, "Performance rating with confidence").

The fit itself is pure (``tournaments.ratings.stats``); this module gathers its
input from the database and reads the cached table that
``tournaments.competitions.services.performance`` keeps.  Nothing here writes.

A cached table is fresh when it was computed from the same finished matches
and for the same table order (LOS is "over the next row", so it depends on
the order).  When it is not:

* with no table yet, or a small field (at most
  ``ARBITER_PERFORMANCE_LIVE_MAX_PLAYERS``, default 40, where a fit costs
  milliseconds), the table is fitted on the spot and returned unstored;
* otherwise the stale table is served, marked ``stale``, rather than
  refitting a large tournament on every request while it runs: a finished
  match has already asked for a refit, due within the debounce window.  A
  row keeps its ``los_next`` only if the row below it is still the one the
  table was fitted for; otherwise ``los_next`` is None rather than wrong.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.conf import settings

from tournaments.competitions.models import Participant, PerformanceFit, Tournament
from tournaments.competitions.selectors.results import tournament_finished_games
from tournaments.games.selectors import game_has_first_mover
from tournaments.matches.models import Match
from tournaments.ratings.models import Rating
from tournaments.ratings.stats import Game, fit

# 2: draw-aware intervals (a sandwich covariance) and the LOS matrix.
PAYLOAD_VERSION = 2


def finished_match_count(*, tournament: Tournament) -> int:
    """How many of the tournament's matches are finished: the cached table's freshness stamp."""
    return Match.objects.filter(tournament=tournament, status=Match.Status.FINISHED).count()


def performance_compute(*, tournament: Tournament, order: Sequence[int]) -> dict[str, Any]:
    """Fit the tournament now and return the JSON payload (keyed by bot version id as text).

    ``order`` is the standings order of bot version ids, for LOS over the
    next row; participants missing from it are appended.
    """
    matches = finished_match_count(tournament=tournament)
    participants = list(
        Participant.objects.filter(tournament=tournament).order_by("number").values_list("bot_version_id", flat=True)
    )
    order = [v for v in order if v in set(participants)]
    order += [v for v in participants if v not in set(order)]
    elo = dict(
        Rating.objects.filter(pool=tournament.rating_pool, bot_version_id__in=participants).values_list(
            "bot_version_id", "elo"
        )
    )
    start = float(settings.ARBITER_ELO_START)
    anchor = sum(elo.get(v, start) for v in participants) / len(participants) if participants else start
    first_mover = game_has_first_mover(game_id=tournament.game_id)
    entered = set(participants)
    games = [
        Game(tuple(g.members), tuple(g.ranks))
        for g in tournament_finished_games(tournament=tournament)
        if entered.issuperset(g.members)
    ]
    result = fit(games, players=participants, anchor=anchor, first_mover=first_mover, order=order)
    return {
        "version": PAYLOAD_VERSION,
        "matches": matches,
        "order": order,
        "anchor": anchor,
        "first_move_advantage": result.first_move_advantage,
        "first_move_stderr": result.first_move_stderr,
        "components": result.components,
        # Every player over every other, in table order: LOS over the next row in any order comes from here.
        "los": result.los_matrix(players=order).to_json(),
        "players": {
            str(row.player): {
                "perf_elo": row.rating,
                "stderr": row.stderr,
                "ci_low": row.ci_low,
                "ci_high": row.ci_high,
                "los_next": row.los_next,
                "games": row.games,
            }
            for row in result.table
        },
    }


def performance_cached(*, tournament: Tournament) -> PerformanceFit | None:
    """The stored table for the tournament's rating pool, fresh or not."""
    return PerformanceFit.objects.filter(tournament=tournament, pool=tournament.rating_pool).first()


def tournament_performance(*, tournament: Tournament, order: Sequence[int]) -> dict[str, Any]:
    """The performance table for ``order`` (standings order): cached when fresh, else as the docstring says.

    The payload carries ``computed_at`` (None when fitted for this request)
    and ``stale``.
    """
    order = list(order)
    cached = performance_cached(tournament=tournament)
    if cached is not None and cached.computed_at is not None and cached.payload.get("version") == PAYLOAD_VERSION:
        payload = cached.payload
        stamp = {"computed_at": cached.computed_at.isoformat()}
        same_matches = payload.get("matches") == finished_match_count(tournament=tournament)
        if same_matches and payload.get("order") == order:
            return {**payload, **stamp, "stale": False}
        live_max = settings.ARBITER_PERFORMANCE_LIVE_MAX_PLAYERS
        if len(order) > live_max:
            return {**_reordered(payload, order), **stamp, "stale": True}
    return {**performance_compute(tournament=tournament, order=order), "computed_at": None, "stale": False}


def _reordered(payload: dict[str, Any], order: list[int]) -> dict[str, Any]:
    """A cached payload shown in another order: ``los_next`` read from its LOS matrix."""
    cached_next = dict(zip(payload["order"], payload["order"][1:], strict=False))
    players = {}
    for k, version in enumerate(order):
        entry = payload["players"].get(str(version))
        if entry is None:
            continue
        shown_next = order[k + 1] if k + 1 < len(order) else None
        if shown_next is None or cached_next.get(version) != shown_next:
            entry = {**entry, "los_next": los_of(payload, version, shown_next)}
        players[str(version)] = entry
    return {**payload, "order": order, "players": players}


def los_of(payload: dict[str, Any], version: int, other: int | None) -> float | None:
    """The table's LOS of ``version`` over ``other`` (None when either is not in it)."""
    matrix = payload["los"]
    index = {player: k for k, player in enumerate(matrix["players"])}
    if other is None or version not in index or other not in index:
        return None
    value: float | None = matrix["los"][index[version]][index[other]]
    return value


def tournament_los_matrix(*, tournament: Tournament, order: Sequence[int]) -> dict[str, Any]:
    """LOS of every participant over every other, rows and columns in ``order`` (the standings)."""
    table = tournament_performance(tournament=tournament, order=order)
    shown = [v for v in order if str(v) in table["players"]]
    return {
        "players": shown,
        "los": [[los_of(table, row, column) if row != column else None for column in shown] for row in shown],
    }


def standings_with_performance(rows: list[dict[str, Any]], table: dict[str, Any]) -> list[dict[str, Any]]:
    """Standings rows with ``perf_elo``, ``ci_low``, ``ci_high`` and ``los_next`` added (rounded)."""
    players = table["players"]
    out = []
    for row in rows:
        entry = players.get(str(row["bot_version"]))
        out.append(
            {
                **row,
                "perf_elo": round(entry["perf_elo"], 1) if entry else None,
                "ci_low": round(entry["ci_low"], 1) if entry else None,
                "ci_high": round(entry["ci_high"], 1) if entry else None,
                "los_next": round(entry["los_next"], 4) if entry and entry["los_next"] is not None else None,
            }
        )
    return out
