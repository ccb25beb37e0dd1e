"""The whole-history fit of a rating pool, for error bars on live-Elo leaderboards.

A pool can hold thousands of bot versions, where :func:`.bradley_terry.fit`
(dense Newton steps and a full covariance, cubic in the number of players)
is out of reach.  :func:`pool_fit` keeps the same model, prior and
draw-aware variance but scales linearly with the data:

* up to ``exact_limit`` players it simply is :func:`.bradley_terry.fit`;
* beyond, the strengths come from cyclic coordinate ascent (one Newton step
  per player in turn, then one for the first-seat term, until no strength
  moves by ``tolerance``), which reaches the same maximum;
* and each strength's variance is the sandwich's for that strength alone,
  ``J_ii / H_ii^2``: the opponents' strengths and the first-seat term taken
  as known.  In a large, well-mixed pool that is what decides a version's
  error bar; it understates it for a version whose opponents are themselves
  barely known (tests/stats compares it with the full covariance).
  Covariances are taken as zero, so an LOS between two versions that met
  often is conservative (closer to 1/2 than the full covariance would say).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

from tournaments.ratings.stats.bradley_terry import fit
from tournaments.ratings.stats.games import GameLike, Row, aggregate, as_game, components
from tournaments.ratings.stats.numeric import normal_quantile
from tournaments.ratings.stats.table import ELO_PER_NATURAL, Fit, PlayerFit, with_los_next

# Largest pool fitted with the full covariance: about 0.05 s for 100 players, cubic beyond.
EXACT_LIMIT = 150
# A coordinate step never moves a strength by more than this (natural units): a 1-D Newton
# step of a concave logistic objective can overshoot from far away.
MAX_STEP = 2.0


def pool_fit(
    games: Iterable[GameLike],
    *,
    players: Sequence[Hashable],
    anchor: float,
    first_mover: bool,
    prior_games: float = 1.0,
    level: float = 0.95,
    exact_limit: int = EXACT_LIMIT,
    tolerance: float = 1e-6,
    max_sweeps: int = 2000,
) -> Fit:
    """Fit a pool's rated games; the table is sorted by rating (see the module docstring).

    ``players`` lists every version of the pool (those without games get the
    prior's wide interval).  ``anchor`` is the pool's mean live Elo.
    """
    if len(players) <= exact_limit:
        return fit(games, players=players, anchor=anchor, first_mover=first_mover, prior_games=prior_games, level=level)
    index = {p: k for k, p in enumerate(players)}
    if len(index) != len(players):
        raise ValueError("players must be distinct")
    rows, n_games, points = aggregate((as_game(g) for g in games), index, first_mover)
    n = len(players)
    with_eta = first_mover and any(row[2] for row in rows)
    theta, eta, sweeps = _ascend(n, rows, prior_games, with_eta, tolerance, max_sweeps)
    info, meat, eta_info, eta_meat = _diagonals(n, rows, prior_games, theta, eta)
    variances = [j / (h * h) for h, j in zip(info, meat, strict=True)]
    labels = components(n, rows)
    z = normal_quantile(0.5 + level / 2.0)
    centre = sum(theta) / n
    table = []
    for p, k in index.items():
        rating = anchor + (theta[k] - centre) * ELO_PER_NATURAL
        se = math.sqrt(variances[k]) * ELO_PER_NATURAL
        table.append(PlayerFit(p, rating, se, rating - z * se, rating + z * se, n_games[k], points[k], None, labels[k]))
    result = Fit(
        table=[],
        first_move_advantage=eta * ELO_PER_NATURAL if with_eta else None,
        first_move_stderr=math.sqrt(eta_meat) / eta_info * ELO_PER_NATURAL if with_eta and eta_info > 0 else None,
        anchor=anchor,
        components=len({labels[k] for k in range(n) if n_games[k]}),
        iterations=sweeps,
        log_likelihood=float("nan"),  # not needed for a leaderboard; fit() reports it
        _index=index,
        _variances=variances,
    )
    ordered = sorted(table, key=lambda row: (-row.rating, index[row.player]))
    result.table = with_los_next(ordered, result)
    return result


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else 1.0 - 1.0 / (1.0 + math.exp(x))


def _ascend(
    n: int, rows: list[Row], prior: float, with_eta: bool, tolerance: float, max_sweeps: int
) -> tuple[list[float], float, int]:
    """Strengths and first-seat term maximising the penalised likelihood, one coordinate at a time."""
    # Each player's cells as (other, sign, first-seat sign, weight, points scored by this player).
    cells: list[list[tuple[int, int, float, float]]] = [[] for _ in range(n)]
    for i, j, f, w, s, _ in rows:
        cells[i].append((j, f, w, s))
        cells[j].append((i, -f, w, w - s))
    theta = [0.0] * n
    eta = 0.0
    sweeps = 0
    for sweeps in range(1, max_sweeps + 1):  # noqa: B007 - reported afterwards
        moved = 0.0
        for p in range(n):
            q = _sigmoid(theta[p])
            grad, curv = prior * (0.5 - q), prior * q * (1.0 - q)
            for other, f, w, s in cells[p]:
                q = _sigmoid(theta[p] - theta[other] + f * eta)
                grad += s - w * q
                curv += w * q * (1.0 - q)
            step = max(-MAX_STEP, min(MAX_STEP, grad / curv))
            theta[p] += step
            moved = max(moved, abs(step))
        # The common level of all strengths is pinned by the weak prior alone, which one
        # player at a time barely moves: a Newton step on a shift of everyone at once.
        grad = curv = 0.0
        for t in theta:
            q = _sigmoid(t)
            grad += prior * (0.5 - q)
            curv += prior * q * (1.0 - q)
        shift = max(-MAX_STEP, min(MAX_STEP, grad / curv))
        theta = [t + shift for t in theta]
        moved = max(moved, abs(shift))
        if with_eta:
            grad = curv = 0.0
            for i, j, f, w, s, _ in rows:
                if f:
                    q = _sigmoid(theta[i] - theta[j] + f * eta)
                    grad += f * (s - w * q)
                    curv += w * q * (1.0 - q)
            step = max(-MAX_STEP, min(MAX_STEP, grad / curv)) if curv > 0 else 0.0
            eta += step
            moved = max(moved, abs(step))
        if moved < tolerance:
            break
    return theta, eta, sweeps


def _diagonals(
    n: int, rows: list[Row], prior: float, theta: list[float], eta: float
) -> tuple[list[float], list[float], float, float]:
    """``H_ii`` and the draw-aware ``J_ii`` per player, then the same two for the first-seat term."""
    info = [prior * _sigmoid(t) * (1.0 - _sigmoid(t)) for t in theta]
    meat = list(info)
    eta_info = eta_meat = 0.0
    for i, j, f, w, _, drawn in rows:
        q = _sigmoid(theta[i] - theta[j] + f * eta)
        v = w * q * (1.0 - q)
        low = max(v - drawn / 4.0, 0.0)
        info[i] += v
        info[j] += v
        meat[i] += low
        meat[j] += low
        if f:
            eta_info += v
            eta_meat += low
    return info, meat, eta_info, eta_meat
