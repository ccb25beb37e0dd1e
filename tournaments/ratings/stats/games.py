"""Games as the rating fit reads them: sides and ranks, reduced to weighted pair cells.

A ranking of ``k`` sides is split into its ``k (k - 1) / 2`` pairs, each a
two-sided result (a shared rank is a draw), weighted ``3 / (k + 1)`` (1 for
two sides) because the pairs of one ranking are not independent
(:mod:`.bradley_terry` explains the weight).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable
from dataclasses import dataclass

# One cell: (i, j, f, weight, points of i, drawn weight), i < j; see aggregate().
Row = tuple[int, int, int, float, float, float]


@dataclass(frozen=True)
class Game:
    """One finished game: the sides in seat order and their ranks (1 best, ties share).

    ``sides[0]`` holds the first seat.  A side is one participant (in a
    tournament one bot version plays every seat of its team).
    """

    sides: tuple[Hashable, ...]
    ranks: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.sides) != len(self.ranks):
            raise ValueError("a game needs one rank per side")

    @classmethod
    def pair(cls, a: Hashable, b: Hashable, score_a: float) -> Game:
        """A two-player game: ``a`` in the first seat scored 1, 0.5 or 0 against ``b``."""
        if score_a not in (0, 0.5, 1):
            raise ValueError(f"score must be 1, 0.5 or 0, not {score_a!r}")
        ranks = (1, 1) if score_a == 0.5 else (1, 2) if score_a == 1 else (2, 1)
        return cls((a, b), ranks)


GameLike = Game | tuple[Hashable, Hashable, float]


def as_game(item: GameLike) -> Game:
    """A :class:`Game` from a game or an ``(a, b, score_a)`` tuple."""
    return item if isinstance(item, Game) else Game.pair(*item)


def aggregate(
    games: Iterable[GameLike], index: dict[Hashable, int], first_mover: bool
) -> tuple[list[Row], list[int], list[float]]:
    """Reduce games to weighted pair counts.

    Returns ``(rows, games, points)``: rows ``(i, j, f, weight, points_i,
    drawn)`` with ``i < j``, ``f`` = +1 when ``i`` held the first seat, -1
    when ``j`` did, 0 when neither or the game has no first mover, and
    ``drawn`` the weight of the cell's pairs that shared a rank; per player
    the number of real games and the game points (1 for a win, split among
    those sharing first place, as in the standings).
    """
    buckets: dict[tuple[int, int, int], list[float]] = {}
    n_games = [0] * len(index)
    points = [0.0] * len(index)
    for item in games:
        game = as_game(item)
        k = len(game.sides)
        if k < 2:
            continue
        ids = [index[side] for side in game.sides]
        best = min(game.ranks)
        firsts = game.ranks.count(best)
        for t, i in enumerate(ids):
            n_games[i] += 1
            if game.ranks[t] == best:
                points[i] += 1.0 / firsts
        weight = 3.0 / (k + 1)
        for t in range(k):
            for u in range(t + 1, k):
                i, j = ids[t], ids[u]
                if i == j:  # one participant on two sides: says nothing
                    continue
                rt, ru = game.ranks[t], game.ranks[u]
                score = 1.0 if rt < ru else 0.5 if rt == ru else 0.0
                f = 1 if (first_mover and t == 0) else 0
                if i > j:
                    i, j, score, f = j, i, 1.0 - score, -f
                cell = buckets.get((i, j, f))
                if cell is None:
                    cell = buckets[(i, j, f)] = [0.0, 0.0, 0.0]
                cell[0] += weight
                cell[1] += weight * score
                if score == 0.5:
                    cell[2] += weight
    rows = [(i, j, f, n, s, d) for (i, j, f), (n, s, d) in buckets.items()]
    return rows, n_games, points


def components(n: int, rows: list[Row]) -> list[int]:
    """Connected component label per player of the comparison graph (union-find)."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for i, j, *_ in rows:
        ri, rj = root(i), root(j)
        if ri != rj:
            parent[max(ri, rj)] = min(ri, rj)
    labels: dict[int, int] = {}
    return [labels.setdefault(root(p), len(labels)) for p in range(n)]
