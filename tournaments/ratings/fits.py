"""Whole-history fits of rating pools: the error bars on live-Elo leaderboards.

Live Elo depends on the order of games and carries no uncertainty of its
own.  Each pool is therefore fitted now and then to all its rated games at
once (:func:`tournaments.ratings.stats.pool_fit`: Bradley-Terry, draws as
half a win, a first-seat term, a draw-aware variance), and every version's
standard error is stored.  A leaderboard shows live Elo +- 1.96 standard
errors: how precisely the version's games pin its strength down.

Why a beat task and no request per match: a rated match already writes its
ratings, and a pool's fit only needs redoing when the sum of its ratings'
game counts has moved (``PoolFit.games_total``).  Checking that sum for
every pool is one grouped read of the ratings table per interval, so the
match path pays nothing.  A refit is idempotent; two at once only write
the same rows twice.
"""

from __future__ import annotations

import logging
import time
from collections import defaultdict
from typing import cast

from django.conf import settings
from django.db import transaction
from django.db.models import Sum

from tournaments.dbclock import db_clock
from tournaments.games.selectors import game_has_first_mover
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.models import PoolFit, PoolFitEntry, Rating
from tournaments.ratings.pools import pool_key_read
from tournaments.ratings.services import match_teams
from tournaments.ratings.stats import Game, pool_fit

logger = logging.getLogger(__name__)


class _Seat:
    """A seat row as :func:`match_teams` reads it."""

    __slots__ = ("bot_version_id", "rank", "seat", "team")

    def __init__(self, seat: int, team: int, rank: int | None, bot_version_id: int) -> None:
        self.seat, self.team, self.rank, self.bot_version_id = seat, team, rank, bot_version_id


def pool_games(*, pool: str) -> list[Game]:
    """The pool's rated, finished matches as games between teams, in match order.

    Read as the live path rates them (:func:`match_teams`).  A match where a
    team holds several different versions is left out: the fit gives each
    side one strength.
    """
    seats = (
        MatchSeat.objects.filter(match__rating_pool=pool, match__status=Match.Status.FINISHED, match__rated=True)
        .order_by("match_id", "seat")
        .values_list("match_id", "seat", "team", "rank", "bot_version_id")
    )
    by_match: dict[int, list[_Seat]] = defaultdict(list)
    for match_id, seat, team, rank, version in seats.iterator(chunk_size=5000):
        by_match[match_id].append(_Seat(seat, team, rank, version))
    games = []
    for rows in by_match.values():
        lineup = match_teams(rows)
        if lineup is None:
            continue
        teams, ranks = lineup
        if all(len(members) == 1 for members in teams):
            games.append(Game(tuple(members[0] for members in teams), tuple(ranks)))
    return games


def pool_fit_refresh(*, pool: str) -> PoolFit:
    """Fit the pool's rated games now and store every version's standard error."""
    started = time.monotonic()
    # The stamp is read before the games: a match recorded in between is then in the fit but
    # not in the stamp, and only causes one more refit, never a fit marked fresh without it.
    games_total = Rating.objects.filter(pool=pool).aggregate(total=Sum("games"))["total"] or 0
    ratings = dict(Rating.objects.filter(pool=pool).values_list("bot_version_id", "elo"))
    games = pool_games(pool=pool)
    players = sorted(ratings)
    anchor = sum(ratings.values()) / len(ratings) if ratings else float(settings.ARBITER_ELO_START)
    first_mover = game_has_first_mover(game_id=pool_key_read(pool).game_id)
    fit = pool_fit(games, players=players, anchor=anchor, first_mover=first_mover)
    entries = [
        PoolFitEntry(pool=pool, bot_version_id=cast(int, row.player), stderr=row.stderr, games=row.games)
        for row in fit.table
        if row.games
    ]
    seconds = time.monotonic() - started
    with transaction.atomic():
        PoolFitEntry.objects.filter(pool=pool).delete()
        PoolFitEntry.objects.bulk_create(entries, batch_size=1000)
        row, _ = PoolFit.objects.update_or_create(
            pool=pool,
            defaults={
                "fitted_at": db_clock(),  # a value: the returned row is read
                "games_total": games_total,
                "matches": len(games),
                "players": len(entries),
                "first_move_advantage": fit.first_move_advantage,
                "seconds": seconds,
            },
        )
    logger.info("pool %s fitted: %d matches, %d versions, %.2f s", pool, len(games), len(entries), seconds)
    return row


def pool_fits_refresh() -> list[str]:
    """Refit every pool whose ratings have moved since its last fit; returns those pools."""
    totals = dict(Rating.objects.order_by().values("pool").annotate(total=Sum("games")).values_list("pool", "total"))
    fitted = dict(PoolFit.objects.values_list("pool", "games_total"))
    due = [pool for pool, total in sorted(totals.items()) if total and fitted.get(pool) != total]
    for pool in due:
        pool_fit_refresh(pool=pool)
    return due
