"""Applying Elo changes: once per rated match, in the transaction that records it."""

from __future__ import annotations

import logging
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Protocol

from django.conf import settings
from django.db import connection, transaction

from tournaments.bots.models import BotVersion
from tournaments.matches.models import Match, MatchSeat
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


def _ratings_ensure(*, version_ids: Sequence[int], pool: str, config: EloSettings) -> None:
    """Create missing Rating rows: from the bot's latest earlier version's rating, else the start value."""
    existing = set(
        Rating.objects.filter(pool=pool, bot_version_id__in=version_ids).values_list("bot_version_id", flat=True)
    )
    missing = [v for v in version_ids if v not in existing]
    if not missing:
        return
    versions = {v.id: v for v in BotVersion.objects.filter(id__in=missing).only("id", "bot_id", "number")}
    earlier = (
        Rating.objects.filter(pool=pool, bot_version__bot_id__in={v.bot_id for v in versions.values()})
        .values_list("bot_version__bot_id", "bot_version__number", "elo")
        .order_by("bot_version__number")
    )
    rows = []
    for version in versions.values():
        same_bot = [(number, elo) for bot_id, number, elo in earlier if bot_id == version.bot_id]
        start = rating_start(number=version.number, earlier=same_bot, config=config)
        rows.append(Rating(bot_version_id=version.id, pool=pool, elo=start))
    # Two matches may create the same rating at once; the unique constraint settles it.
    Rating.objects.bulk_create(rows, ignore_conflicts=True)


def ratings_apply_match(*, match: Match, seats: Sequence[MatchSeat]) -> list[RatingChange]:
    """Update the ratings for one recorded match.  Must run inside its recording transaction.

    Rating rows are locked in id order (no deadlock between two workers);
    RatingChange's unique (rating, match) makes a second application fail
    rather than count twice.
    """
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("ratings_apply_match must run inside the match's recording transaction")
    lineup = match_teams(seats)
    if lineup is None:
        logger.info("match %s is not rated (a version on two teams or missing ranks)", match.pk)
        return []
    teams, team_ranks = lineup
    config = elo_settings()
    version_ids = [v for members in teams for v in members]
    _ratings_ensure(version_ids=version_ids, pool=match.rating_pool, config=config)
    ratings = {
        r.bot_version_id: r
        for r in Rating.objects.select_for_update()
        .filter(pool=match.rating_pool, bot_version_id__in=version_ids)
        .order_by("id")
    }
    changes = []
    # The same arithmetic as the rebuild (services/rebuild.py): one implementation.
    for change in elo_match_changes(
        teams=teams,
        team_ranks=team_ranks,
        ratings={v: ratings[v].elo for v in version_ids},
        games={v: ratings[v].games for v in version_ids},
        config=config,
    ):
        rating = ratings[change.member]
        rating_tally(rating, change)
        changes.append(
            RatingChange(
                rating=rating, match=match, before=change.before, after=change.after, delta=change.delta, k=change.k
            )
        )
    RatingChange.objects.bulk_create(changes)
    _opponent_owners_count(ratings=list(ratings.values()), match=match)
    Rating.objects.bulk_update(
        list(ratings.values()), ["elo", "games", "wins", "draws", "losses", "opponent_owners", "updated"]
    )
    return changes


def _opponent_owners_count(*, ratings: Sequence[Rating], match: Match) -> None:
    """Count, in place, the distinct other owners each rating has met, while below the minimum.

    The count is exact at every step: it already counts every owner met
    before this match, so only the match's other owners not met before are
    added, found in one statement that looks, per rating and owner, for an
    earlier rated match of the rating with a bot of that owner.  Each look
    stops at the first such match, where a recount read the rating's whole
    history on every match (a bot that only
    ever meets one other owner stays below the minimum for good).  Once a
    rating reaches the minimum it is no longer counted, which the rebuild
    mirrors (``rebuild.ratings_replay``).
    """
    minimum = settings.ARBITER_RATING_MIN_OWNERS
    pending = [r for r in ratings if r.opponent_owners < minimum]
    if not pending:
        return
    owner_of = dict(
        MatchSeat.objects.filter(match_id=match.pk).values_list("bot_version_id", "bot_version__bot__owner_id")
    )
    pairs = [
        (rating.id, owner)
        for rating in pending
        for owner in sorted(set(owner_of.values()) - {owner_of[rating.bot_version_id]})
    ]
    if not pairs:
        return
    with connection.cursor() as cursor:
        cursor.execute(_NEW_OWNERS_SQL.format(pairs=" UNION ALL ".join([_PAIR] * len(pairs))),
                       [value for pair in pairs for value in pair] + [match.pk])  # fmt: skip
        new = Counter(rating_id for rating_id, _ in cursor.fetchall())
    for rating in pending:
        rating.opponent_owners += new[rating.id]


# Which (rating, other owner) pairs of a match were not met in the rating's earlier rated matches:
# each look stops at the first earlier match with a bot of that owner.
_PAIR = "SELECT %s AS rating_id, %s AS owner_id"
_NEW_OWNERS_SQL = """
SELECT p.rating_id, p.owner_id FROM ({pairs}) AS p
WHERE NOT EXISTS (
    SELECT 1 FROM ratings_ratingchange c
    JOIN matches_matchseat s ON s.match_id = c.match_id
    JOIN bots_botversion v ON v.id = s.bot_version_id
    JOIN bots_bot b ON b.id = v.bot_id
    WHERE c.rating_id = p.rating_id AND b.owner_id = p.owner_id AND c.match_id <> %s
)
"""
