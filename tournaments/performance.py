"""Performance ratings fitted to a whole tournament at once (docs ratings.md).

Bradley-Terry by maximum likelihood on the Elo scale: P(a beats b) =
1 / (1 + 10 ** (-(Ra - Rb + h * f) / 400)), where f is +1 when a moved first,
-1 when b did and 0 otherwise, and h is the first mover's advantage.  Draws
count as half a win and half a loss.  Pure functions, no Django.

Each player also gets one virtual draw against the field's centre: it keeps
a perfect or zero score finite (the plain MLE would be infinite) and barely
moves anything else.  Intervals use the diagonal of the information matrix,
the usual approximation.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

NATURAL_PER_ELO = math.log(10) / 400
Z95 = 1.959963984540054
PRIOR_GAMES = 1.0


@dataclass(frozen=True)
class PairGame:
    """One pairwise result: ``score_a`` is 1, 0.5 or 0; ``first`` is +1 if a moved first, -1 if b, else 0."""

    a: Hashable
    b: Hashable
    score_a: float
    first: int = 0


@dataclass(frozen=True)
class Performance:
    rating: float
    low: float
    high: float
    stderr: float


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def bradley_terry(
    *,
    players: Sequence[Hashable],
    games: Iterable[PairGame],
    anchor_mean: float,
    first_mover: bool = True,
    max_iterations: int = 200,
    tolerance: float = 1e-6,
) -> tuple[dict[Hashable, Performance], float]:
    """Ratings with 95% intervals, anchored so their mean is ``anchor_mean``; and the first-move advantage (Elo)."""
    index = {p: i for i, p in enumerate(players)}
    # Aggregate: (i, j, f) with i < j -> [games, i's score].
    buckets: dict[tuple[int, int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for game in games:
        i, j, score, first = index[game.a], index[game.b], game.score_a, game.first if first_mover else 0
        if i == j:
            continue
        if i > j:
            i, j, score, first = j, i, 1.0 - score, -first
        cell = buckets[(i, j, first)]
        cell[0] += 1
        cell[1] += score
    rows = [(i, j, f, n, s) for (i, j, f), (n, s) in buckets.items()]
    by_player: list[list[int]] = [[] for _ in players]
    for k, (i, j, _, _, _) in enumerate(rows):
        by_player[i].append(k)
        by_player[j].append(k)
    beta = [0.0] * len(players)
    eta = 0.0
    info = [PRIOR_GAMES * 0.25] * len(players)
    has_first = any(f for _, _, f, _, _ in rows)
    for _ in range(max_iterations):
        previous = list(beta)
        for p in range(len(players)):
            # The virtual draw against the centre (beta 0).
            q = _sigmoid(beta[p])
            grad = PRIOR_GAMES * (0.5 - q)
            curv = PRIOR_GAMES * q * (1 - q)
            for k in by_player[p]:
                i, j, f, n, s = rows[k]
                q = _sigmoid(beta[i] - beta[j] + eta * f)
                if p == i:
                    grad += s - n * q
                else:
                    grad += (n - s) - n * (1 - q)
                curv += n * q * (1 - q)
            beta[p] += grad / curv
            info[p] = curv
        # Only differences matter (the result is re-anchored): drop the common
        # shift, the one direction the likelihood barely pins down, which would
        # otherwise make convergence crawl.
        centre = sum(beta) / len(beta)
        beta = [b - centre for b in beta]
        # Converged when the centred ratings stop moving.  (The steps themselves
        # never get below the tolerance: the virtual draws pull the field back
        # by about as much as the centring shifts it, so a test on them always
        # ran all max_iterations sweeps.)
        largest = max((abs(b - a) for a, b in zip(previous, beta, strict=True)), default=0.0)
        if has_first:
            q = _sigmoid(eta)
            grad, curv = PRIOR_GAMES * (0.5 - q), PRIOR_GAMES * q * (1 - q)
            for i, j, f, n, s in rows:
                if f:
                    q = _sigmoid(beta[i] - beta[j] + eta * f)
                    grad += f * (s - n * q)
                    curv += n * q * (1 - q)
            step = grad / curv
            eta += step
            largest = max(largest, abs(step))
        if largest < tolerance:
            break
    centre = sum(beta) / len(beta) if beta else 0.0
    out = {}
    for p, i in index.items():
        rating = anchor_mean + (beta[i] - centre) / NATURAL_PER_ELO
        stderr = 1.0 / math.sqrt(info[i]) / NATURAL_PER_ELO
        out[p] = Performance(rating=rating, low=rating - Z95 * stderr, high=rating + Z95 * stderr, stderr=stderr)
    return out, eta / NATURAL_PER_ELO


def likelihood_of_superiority(a: Performance, b: Performance) -> float:
    """Probability that a is truly stronger than b, from the two estimates and their errors."""
    spread = math.hypot(a.stderr, b.stderr)
    if spread == 0:
        return 0.5
    return 0.5 * (1 + math.erf((a.rating - b.rating) / spread / math.sqrt(2)))
