"""Elo arithmetic from docs ratings.md, as pure functions (no Django).

The live path (``services.ratings``), the rebuild and the tests all call
these, so there is one formula in one place.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

# Whatever names a rated member: a bot version id live, anything hashable in tests.
M = TypeVar("M", bound=Hashable)


@dataclass(frozen=True)
class EloSettings:
    start: float = 1500.0
    k_new: float = 40.0
    k: float = 20.0
    # A rating uses k_new while it has played fewer than this many rated games.
    new_games: int = 30

    def k_for(self, games: int) -> float:
        return self.k_new if games < self.new_games else self.k


def expected_score(rating: float, opponent: float) -> float:
    """Expected score of a side rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / 400.0))


def pair_score(rank: int, opponent_rank: int) -> float:
    """Actual score from two ranks: 1 better, 0.5 shared, 0 worse (rank 1 is best)."""
    if rank < opponent_rank:
        return 1.0
    if rank == opponent_rank:
        return 0.5
    return 0.0


def outcome(rank: int, ranks: Sequence[int]) -> str:
    """'win' (sole first), 'draw' (shared first) or 'loss', for W/D/L counts."""
    if rank != 1:
        return "loss"
    return "win" if sum(1 for r in ranks if r == 1) == 1 else "draw"


def elo_deltas(
    *,
    teams: Sequence[Sequence[M]],
    team_ranks: Sequence[int],
    ratings: Mapping[M, float],
    games: Mapping[M, int],
    config: EloSettings,
) -> dict[M, float]:
    """Each member's rating change for one match.

    ``teams[t]`` lists team t's distinct members (a bot version that fills
    several seats of a team appears once); ``team_ranks[t]`` is its rank.
    With two one-member teams this is the usual ``K * (S - E)``; with T teams
    each member of team i moves by ``K_member / (T - 1) * sum_j (S_ij - E_ij)``
    where team ratings are the mean of their members' ratings.
    """
    count = len(teams)
    if count < 2:
        raise ValueError("a rated match needs at least two teams")
    if len(team_ranks) != count:
        raise ValueError("one rank per team")
    members_seen: set[M] = set()
    for members in teams:
        if not members:
            raise ValueError("a team without members")
        if members_seen & set(members):
            raise ValueError("a member sits on two teams: the match is not rated")
        members_seen.update(members)
    team_rating = [sum(ratings[m] for m in members) / len(members) for members in teams]
    deltas: dict[M, float] = {}
    for i, members in enumerate(teams):
        surplus = sum(
            pair_score(team_ranks[i], team_ranks[j]) - expected_score(team_rating[i], team_rating[j])
            for j in range(count)
            if j != i
        )
        for member in members:
            deltas[member] = config.k_for(games[member]) / (count - 1) * surplus
    return deltas


@dataclass(frozen=True)
class MemberChange(Generic[M]):
    """One member's rating change from one match, and the result counted for it."""

    member: M
    before: float
    after: float
    delta: float
    k: float
    result: str  # 'win', 'draw' or 'loss'


def elo_match_changes(
    *,
    teams: Sequence[Sequence[M]],
    team_ranks: Sequence[int],
    ratings: Mapping[M, float],
    games: Mapping[M, int],
    config: EloSettings,
) -> list[MemberChange[M]]:
    """Every member's change for one match, in team order.

    ``services.ratings.ratings_apply_matches`` (live) and
    ``services.rebuild.ratings_replay`` (the rebuild) both call this, so the
    two cannot drift apart.
    """
    deltas = elo_deltas(teams=teams, team_ranks=team_ranks, ratings=ratings, games=games, config=config)
    changes = []
    for t, members in enumerate(teams):
        result = outcome(team_ranks[t], team_ranks)
        for member in members:
            before = ratings[member]
            changes.append(
                MemberChange(
                    member=member,
                    before=before,
                    after=before + deltas[member],
                    delta=deltas[member],
                    k=config.k_for(games[member]),
                    result=result,
                )
            )
    return changes


def rating_tally(rating: Any, change: MemberChange[Any]) -> None:
    """Apply ``change`` to a rating record (elo, games, wins/draws/losses), in place.

    The live path (Rating rows) and the rebuild (its own records) both count
    through here, so the two cannot drift apart.
    """
    rating.elo = change.after
    rating.games += 1
    field = {"win": "wins", "draw": "draws"}.get(change.result, "losses")
    setattr(rating, field, getattr(rating, field) + 1)


def rating_start(*, number: int, earlier: Iterable[tuple[int, float]], config: EloSettings) -> float:
    """A new version's first rating: that of the latest earlier version (``(number, elo)`` pairs), else the start."""
    before = [(n, elo) for n, elo in earlier if n < number]
    return max(before)[1] if before else config.start
