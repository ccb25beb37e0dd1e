"""Applying Elo changes: once per rated match, many matches of a pool at a time (``applier.py``)."""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from django.conf import settings
from django.db import connection, transaction

from tournaments.bots.models import BotVersion
from tournaments.dbclock import db_clock
from tournaments.prepared import prepared_cursor
from tournaments.ratings.elo import EloSettings, elo_match_changes, rating_start, rating_tally
from tournaments.ratings.models import Rating, RatingChange

logger = logging.getLogger(__name__)


def elo_settings() -> EloSettings:
    return EloSettings(
        start=settings.ARBITER_ELO_START,
        k_new=settings.ARBITER_ELO_K_NEW,
        k=settings.ARBITER_ELO_K,
        new_games=settings.ARBITER_ELO_NEW_GAMES,
    )


class SeatLike(Protocol):
    """What the rating arithmetic reads of a seat (a MatchSeat, or the rebuild's lighter rows)."""

    @property
    def seat(self) -> int: ...
    @property
    def team(self) -> int: ...
    @property
    def rank(self) -> int | None: ...
    @property
    def bot_version_id(self) -> int: ...


def match_teams(seats: Sequence[SeatLike]) -> tuple[list[list[int]], list[int]] | None:
    """Distinct bot versions per team and each team's rank; None when the match cannot be rated.

    A version filling several seats of one team is one member; a version on
    two different teams makes the match unrated, as does a missing rank.
    """
    members: dict[int, list[int]] = defaultdict(list)
    ranks: dict[int, int] = {}
    team_of: dict[int, int] = {}
    for seat in sorted(seats, key=lambda s: s.seat):
        if seat.rank is None:
            return None
        if team_of.setdefault(seat.bot_version_id, seat.team) != seat.team:
            return None
        if seat.bot_version_id not in members[seat.team]:
            members[seat.team].append(seat.bot_version_id)
        # Every seat of a team has the team's rank; take the best to be safe.
        ranks[seat.team] = min(ranks.get(seat.team, seat.rank), seat.rank)
    order = sorted(members)
    if len(order) < 2:
        return None
    return [members[t] for t in order], [ranks[t] for t in order]


@dataclass(frozen=True)
class RatedSeat:
    """A seat as the applier reads it: what ``match_teams`` needs, and its bot's owner."""

    seat: int
    team: int
    rank: int | None
    bot_version_id: int
    owner_id: int


def ratings_apply_matches(*, pool: str, matches: Sequence[tuple[int, Sequence[RatedSeat]]]) -> int:
    """Apply recorded rated matches of ``pool``, in the given order, to its ratings; returns the changes made.

    Must run inside the transaction that holds the pool (``applier.py``).  A
    fixed number of statements however many matches: the ratings are locked
    once, in id order, counted in memory match after match with exactly the
    arithmetic of the rebuild (``elo_match_changes``, ``rating_tally``,
    ``rating_start``), and written back with every change at the end, in
    the order of application.  RatingChange's unique (rating, match) makes a
    second application fail rather than count twice.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("ratings_apply_matches must run inside the transaction that holds the pool")
    config = elo_settings()
    lineups = []
    for match_id, seats in matches:
        lineup = match_teams(seats)
        if lineup is None:
            logger.info("match %s is not rated (a version on two teams or missing ranks)", match_id)
        else:
            lineups.append((match_id, lineup, {s.bot_version_id: s.owner_id for s in seats}))
    version_ids = sorted({v for _, (teams, _), _ in lineups for members in teams for v in members})
    ratings = _ratings_locked(pool=pool, version_ids=version_ids)
    met = _owners_met(ratings=ratings, lineups=[(m, owners) for m, _, owners in lineups])
    changes: list[RatingChange] = []
    for match_id, (teams, team_ranks), owner_of in lineups:
        members = [v for team in teams for v in team]
        missing = [v for v in members if v not in ratings]
        if missing:
            ratings.update(_ratings_create(pool=pool, version_ids=missing, ratings=ratings, config=config))
        for change in elo_match_changes(
            teams=teams,
            team_ranks=team_ranks,
            ratings={v: ratings[v].elo for v in members},
            games={v: ratings[v].games for v in members},
            config=config,
        ):
            rating = ratings[change.member]
            rating_tally(rating, change)
            changes.append(
                RatingChange(
                    rating=rating,
                    match_id=match_id,
                    before=change.before,
                    after=change.after,
                    delta=change.delta,
                    k=change.k,
                )
            )
        _owners_count(ratings=[ratings[v] for v in members], owner_of=owner_of, met=met)
    RatingChange.objects.bulk_create(changes)
    _ratings_write(ratings=list({change.rating_id: change.rating for change in changes}.values()))
    return len(changes)


_TALLY = ("elo", "games", "wins", "draws", "losses", "opponent_owners")
# Every touched rating in one UPDATE, stamped by the server's clock (tournaments/dbclock.py).  Django's
# bulk_update built a CASE per field and rating in Python (about 3 ms a batch of two ratings), and
# wrote back the ``updated`` it had read: auto_now is not applied by bulk_update.
_WRITE_SQL = (
    f"UPDATE {Rating._meta.db_table} AS r SET "
    + ", ".join(f"{name} = v.{name}" for name in _TALLY)
    + ", updated = STATEMENT_TIMESTAMP() FROM (VALUES {rows}) AS v(id, "
    + ", ".join(_TALLY)
    + ") WHERE r.id = v.id"
)
_WRITE_ROW = "(%s::bigint, %s::double precision, %s::integer, %s::integer, %s::integer, %s::integer, %s::integer)"


def _ratings_write(*, ratings: Sequence[Rating]) -> None:
    """Write the counted ratings back, in one statement (their elo, games, results, owners met, time)."""
    if not ratings:
        return
    if connection.vendor != "postgresql":
        now = db_clock()
        for rating in ratings:
            rating.updated = now
        Rating.objects.bulk_update(ratings, [*_TALLY, "updated"])
        return
    with prepared_cursor() as cursor:
        cursor.execute(
            _WRITE_SQL.format(rows=", ".join([_WRITE_ROW] * len(ratings))),
            [value for r in ratings for value in (r.id, *(getattr(r, name) for name in _TALLY))],
        )


def _ratings_locked(*, pool: str, version_ids: Sequence[int]) -> dict[int, Rating]:
    """The pool's existing ratings of these versions, locked in id order (no deadlock between two writers)."""
    rows = Rating.objects.select_for_update().filter(pool=pool, bot_version_id__in=version_ids).order_by("id")
    return {r.bot_version_id: r for r in rows}


def _ratings_create(
    *, pool: str, version_ids: Sequence[int], ratings: dict[int, Rating], config: EloSettings
) -> dict[int, Rating]:
    """New Rating rows for versions rated for the first time, locked: each starts from its bot's latest
    earlier version's rating as it stands at this point of the run (``ratings``: those counted so far),
    else the start value.  Every start is taken before any of them is added, as the rebuild does."""
    versions = {v.id: v for v in BotVersion.objects.filter(id__in=version_ids).only("id", "bot_id", "number")}
    earlier = list(
        Rating.objects.filter(pool=pool, bot_version__bot_id__in={v.bot_id for v in versions.values()})
        .values_list("bot_version_id", "bot_version__bot_id", "bot_version__number", "elo")
        .order_by("bot_version__number")
    )
    rows = []
    for version in versions.values():
        same_bot = [
            (number, ratings[vid].elo if vid in ratings else elo)
            for vid, bot_id, number, elo in earlier
            if bot_id == version.bot_id
        ]
        start = rating_start(number=version.number, earlier=same_bot, config=config)
        rows.append(Rating(bot_version_id=version.id, pool=pool, elo=start))
    # Two writers may create the same rating at once; the unique constraint settles it.
    Rating.objects.bulk_create(rows, ignore_conflicts=True)
    return _ratings_locked(pool=pool, version_ids=version_ids)


def _owners_met(*, ratings: dict[int, Rating], lineups: Sequence[tuple[int, dict[int, int]]]) -> set[tuple[int, int]]:
    """The (rating id, other owner) pairs of these matches that the ratings met in earlier rated matches.

    Asked only for ratings still below ``ARBITER_RATING_MIN_OWNERS`` (the only
    ones counted), in one statement whose every look stops at the first such
    match; a recount read the rating's whole history on every match.
    """
    minimum = settings.ARBITER_RATING_MIN_OWNERS
    pairs = sorted(
        {
            (ratings[v].id, owner)
            for _, owner_of in lineups
            for v, own in owner_of.items()
            if v in ratings and ratings[v].opponent_owners < minimum
            for owner in set(owner_of.values()) - {own}
        }
    )
    if not pairs:
        return set()
    with prepared_cursor() as cursor:
        cursor.execute(_MET_OWNERS_SQL.format(pairs=" UNION ALL ".join([_PAIR] * len(pairs))),
                       [value for pair in pairs for value in pair])  # fmt: skip
        return {(rating_id, owner_id) for rating_id, owner_id in cursor.fetchall()}


def _owners_count(*, ratings: Sequence[Rating], owner_of: dict[int, int], met: set[tuple[int, int]]) -> None:
    """Count, in place, the match's other owners each rating meets for the first time, while below the minimum.

    The count is exact at every step: ``met`` holds every (rating, owner)
    pair met before this match, and gets this match's.  Once a rating
    reaches the minimum it is no longer counted, which the rebuild mirrors
    (``rebuild.ratings_replay``): a bot that only ever meets one other owner
    stays below the minimum for good.
    """
    minimum = settings.ARBITER_RATING_MIN_OWNERS
    for rating in ratings:
        if rating.opponent_owners >= minimum:
            continue
        own = owner_of[rating.bot_version_id]
        for owner in sorted(set(owner_of.values()) - {own}):
            if (rating.id, owner) not in met:
                met.add((rating.id, owner))
                rating.opponent_owners += 1


# Which (rating, other owner) pairs were met in the rating's earlier rated matches: each look
# stops at the first earlier match with a bot of that owner.
_PAIR = "SELECT %s AS rating_id, %s AS owner_id"
_MET_OWNERS_SQL = """
SELECT p.rating_id, p.owner_id FROM ({pairs}) AS p
WHERE EXISTS (
    SELECT 1 FROM ratings_ratingchange c
    JOIN matches_matchseat s ON s.match_id = c.match_id
    JOIN bots_botversion v ON v.id = s.bot_version_id
    JOIN bots_bot b ON b.id = v.bot_id
    WHERE c.rating_id = p.rating_id AND b.owner_id = p.owner_id
)
"""
