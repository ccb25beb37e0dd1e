"""Rebuilding ratings from the match history, and comparing the result with the live ratings.

The replay walks every FINISHED rated match whose changes were applied, in
the order the pool's applier applied them (``applier.py``: by the id of
each match's first rating change; a match that produced none changes
nothing, and its place does not matter), and runs
exactly the arithmetic of the live path (``tournaments.ratings.elo.elo_match_changes``
and ``rating_start``).  Exactly-once recording means the rebuild equals the
live ratings; any difference is reported per rating.  Matches recorded but
not applied yet (``rating_pending``) are left to the applier, on both sides.

``ratings_replay`` and ``ratings_differences`` only read (in one snapshot on
PostgreSQL); ``ratings_rebuild_apply`` writes the rebuilt numbers.
"""

from __future__ import annotations

import logging
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TypeVar

from django.conf import settings
from django.db import connection, transaction
from django.db.models import F, Min, ProtectedError

from tournaments.bots.models import BotVersion
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.elo import elo_match_changes, rating_start, rating_tally
from tournaments.ratings.models import Rating, RatingChange
from tournaments.ratings.services import elo_settings, match_teams

logger = logging.getLogger(__name__)

# Matches read per query while replaying.
T = TypeVar("T")
CHUNK = 2000
# The live and rebuilt Elo come from the same float operations in the same order,
# so they agree to the last bit; the tolerance only forgives a database that rounds.
ELO_TOLERANCE = 1e-6
# What is compared and written per rating: elo, games, wins, draws, losses, opponent owners.
Numbers = tuple[float, int, int, int, int, int]


@dataclass(frozen=True)
class _Seat:
    """The parts of a MatchSeat the rating arithmetic reads."""

    seat: int
    team: int
    rank: int | None
    bot_version_id: int


@dataclass
class ReplayedRating:
    pool: str
    bot_version_id: int
    elo: float
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    # Other owners met so far, collected only while fewer than the minimum (as the live path counts).
    owners: set[int] = field(default_factory=set)
    # (match id, before, after, delta, k), in the order applied.
    changes: list[tuple[int, float, float, float, float]] = field(default_factory=list)

    def numbers(self) -> Numbers:
        return (self.elo, self.games, self.wins, self.draws, self.losses, len(self.owners))


@dataclass
class Replay:
    ratings: dict[tuple[str, int], ReplayedRating]
    matches: int


@dataclass(frozen=True)
class RatingDifference:
    """One rating whose live numbers differ from the rebuilt ones (None: missing on that side)."""

    pool: str
    bot_version_id: int
    live: Numbers | None
    rebuilt: Numbers | None


@contextmanager
def _snapshot() -> Iterator[None]:
    """One consistent view of matches and ratings while workers keep recording."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if outermost and connection.vendor == "postgresql":
            # Must be the transaction's first statement (inside ratings_rebuild_apply, the locks do the job).
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        yield


def _chunks(ids: list[T]) -> Iterator[list[T]]:
    for i in range(0, len(ids), CHUNK):
        yield ids[i : i + CHUNK]


def ratings_replay(*, pool: str | None = None) -> Replay:
    """Recompute ratings (all pools, or one) from the applied rated matches, in their order; writes nothing."""
    config = elo_settings()
    matches = Match.objects.filter(status=Match.Status.FINISHED, rated=True, rating_pending=False)
    if pool is not None:
        matches = matches.filter(rating_pool=pool)
    # The applier's order: it applies a pool's matches in finish order, but two matches may
    # commit out of that order, and what the live ratings saw is the order of application.
    applied = matches.annotate(first_change=Min("rating_changes__id"))
    order = list(
        applied.order_by(F("first_change").asc(nulls_first=True), "finished_at", "id").values_list("id", "rating_pool")
    )
    book: dict[tuple[str, int], ReplayedRating] = {}
    # Per (pool, bot): [(version number, version id)] of versions rated so far.
    rated_versions: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    versions: dict[int, tuple[int, int]] = {}  # version id -> (bot id, number)
    owner_of: dict[int, int] = {}  # version id -> its bot's owner id
    min_owners = settings.ARBITER_RATING_MIN_OWNERS
    replayed = 0
    for chunk in _chunks(order):
        seats: dict[int, list[_Seat]] = defaultdict(list)
        rows = MatchSeat.objects.filter(match_id__in=[m for m, _ in chunk]).values_list(
            "match_id", "seat", "team", "rank", "bot_version_id"
        )
        for match_id, seat, team, rank, version_id in rows:
            seats[match_id].append(_Seat(seat=seat, team=team, rank=rank, bot_version_id=version_id))
        missing = {s.bot_version_id for group in seats.values() for s in group} - versions.keys()
        for vid, bot_id, number, owner_id in BotVersion.objects.filter(id__in=missing).values_list(
            "id", "bot_id", "number", "bot__owner_id"
        ):
            versions[vid] = (bot_id, number)
            owner_of[vid] = owner_id
        for match_id, match_pool in chunk:
            lineup = match_teams(seats[match_id])
            if lineup is None:
                continue
            teams, team_ranks = lineup
            members = [v for team in teams for v in team]
            # Starts are taken before any of this match's members is added, as on the live path.
            starts = {}
            for vid in members:
                if (match_pool, vid) not in book:
                    bot_id, number = versions[vid]
                    earlier = [(n, book[(match_pool, v)].elo) for n, v in rated_versions[(match_pool, bot_id)]]
                    starts[vid] = rating_start(number=number, earlier=earlier, config=config)
            for vid, start in starts.items():
                book[(match_pool, vid)] = ReplayedRating(pool=match_pool, bot_version_id=vid, elo=start)
                rated_versions[(match_pool, versions[vid][0])].append((versions[vid][1], vid))
            for change in elo_match_changes(
                teams=teams,
                team_ranks=team_ranks,
                ratings={v: book[(match_pool, v)].elo for v in members},
                games={v: book[(match_pool, v)].games for v in members},
                config=config,
            ):
                rating = book[(match_pool, change.member)]
                rating_tally(rating, change)
                rating.changes.append((match_id, change.before, change.after, change.delta, change.k))
                if len(rating.owners) < min_owners:
                    own = owner_of[change.member]
                    rating.owners.update(owner_of[s.bot_version_id] for s in seats[match_id])
                    rating.owners.discard(own)
            replayed += 1
    return Replay(ratings=book, matches=replayed)


def _differ(live: Numbers, rebuilt: Numbers) -> bool:
    return abs(live[0] - rebuilt[0]) > ELO_TOLERANCE or live[1:] != rebuilt[1:]


def ratings_differences(*, pool: str | None = None) -> tuple[list[RatingDifference], Replay, int]:
    """Every rating whose live numbers differ from the rebuilt ones, the replay, and how many ratings were compared."""
    with _snapshot():
        replay = ratings_replay(pool=pool)
        live_rows = Rating.objects.all() if pool is None else Rating.objects.filter(pool=pool)
        live = {
            (p, v): (elo, games, wins, draws, losses, owners)
            for p, v, elo, games, wins, draws, losses, owners in live_rows.values_list(
                "pool", "bot_version_id", "elo", "games", "wins", "draws", "losses", "opponent_owners"
            )
        }
    differences = []
    keys = sorted(live.keys() | replay.ratings.keys())
    for key in keys:
        mine = live.get(key)
        theirs = replay.ratings[key].numbers() if key in replay.ratings else None
        if mine is None or theirs is None or _differ(mine, theirs):
            differences.append(RatingDifference(pool=key[0], bot_version_id=key[1], live=mine, rebuilt=theirs))
    return differences, replay, len(keys)


@dataclass(frozen=True)
class RebuildResult:
    matches: int
    ratings: int
    differences: list[RatingDifference]


def ratings_rebuild_apply(*, pool: str | None = None) -> RebuildResult:
    """Write the rebuilt ratings and their history (one pool, or all); returns what differed before.

    Ratings and changes are updated in place (ids and creation times are
    kept); changes the replay does not produce are deleted, missing ones
    created.  Run it while no match of the pool is being recorded: the
    pool's rating rows are locked for the duration.
    """
    config = elo_settings()
    with transaction.atomic():
        live_qs = Rating.objects.all() if pool is None else Rating.objects.filter(pool=pool)
        live = {(r.pool, r.bot_version_id): r for r in live_qs.select_for_update().order_by("id")}
        differences, replay, _ = ratings_differences(pool=pool)
        for key, rebuilt in replay.ratings.items():
            rating = live.get(key)
            if rating is None:
                rating = Rating(pool=key[0], bot_version_id=key[1])
                live[key] = rating
            (rating.elo, rating.games, rating.wins, rating.draws, rating.losses, rating.opponent_owners) = (
                rebuilt.numbers()
            )
            rating.save()
        for key in live.keys() - replay.ratings.keys():
            # Counted live but not by the history: nothing of it stands.
            rating = live.pop(key)
            RatingChange.objects.filter(rating=rating).delete()
            try:
                rating.delete()
            except ProtectedError:
                rating.elo, rating.games, rating.wins, rating.draws, rating.losses = config.start, 0, 0, 0, 0
                rating.opponent_owners = 0
                rating.save()
        rating_ids = {key: r.id for key, r in live.items()}
        existing = {
            (c.rating_id, c.match_id): c for c in RatingChange.objects.filter(rating_id__in=rating_ids.values())
        }
        wanted: set[tuple[int, int]] = set()
        to_create, to_update = [], []
        for key, rebuilt in replay.ratings.items():
            for match_id, before, after, delta, k in rebuilt.changes:
                pair = (rating_ids[key], match_id)
                wanted.add(pair)
                change = existing.get(pair)
                if change is None:
                    to_create.append(
                        RatingChange(rating_id=pair[0], match_id=match_id, before=before, after=after, delta=delta, k=k)
                    )
                elif (change.before, change.after, change.delta, change.k) != (before, after, delta, k):
                    change.before, change.after, change.delta, change.k = before, after, delta, k
                    to_update.append(change)
        RatingChange.objects.filter(id__in=[c.id for pair, c in existing.items() if pair not in wanted]).delete()
        RatingChange.objects.bulk_update(to_update, ["before", "after", "delta", "k"], batch_size=1000)
        RatingChange.objects.bulk_create(to_create, batch_size=1000)
    if differences:
        logger.warning("ratings rebuilt: %d rating(s) differed from the live numbers", len(differences))
    return RebuildResult(matches=replay.matches, ratings=len(replay.ratings), differences=differences)
