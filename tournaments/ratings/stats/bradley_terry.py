"""Whole-history performance ratings: Bradley-Terry maximum likelihood with errors.

Model
-----
Each player ``i`` has a strength ``theta_i`` in natural-log units.  In a game
between sides ``i`` and ``j`` where ``i`` holds the first seat::

    P(i beats j) = sigmoid(theta_i - theta_j + eta)

``eta`` is the first seat's advantage; it is fitted only when the game has a
first mover (``Engine.has_first_mover``) and some game tells it apart from
the players' strengths.  A draw counts as half a win and half a loss, the
same rule as live Elo.  Ratings are reported on the Elo scale (one natural
unit is ``400 / ln 10``, about 173.7 Elo) and anchored so their mean over all
listed players equals ``anchor``, the mean live Elo of the field.

Games of more than two teams
----------------------------
A ranking of ``k`` sides is split into its ``k (k - 1) / 2`` pairs, each a
Bradley-Terry game (a shared rank is a draw), as live Elo does (ratings.md).
Why pairwise rather than Plackett-Luce: under Plackett-Luce (the
"exponential race" model of a ranking) the probability that ``i`` finishes
ahead of ``j`` is exactly ``sigmoid(theta_i - theta_j)``, so the pairwise
likelihood estimates the same strengths consistently, shares one code path
and one tie rule with two-player games, and needs no model of ties inside a
ranking, which Plackett-Luce lacks.

The pairs of one ranking are not independent, though, so counting each as a
full game would overstate the information and give intervals too narrow.
Each pair of a ``k``-side game is weighted ``3 / (k + 1)`` (1 for two
sides).  With equal strengths that weight makes the weighted pairwise
information equal the true (Godambe, "sandwich") information of the pairwise
estimator: per game a side's pairwise information is ``H = (k-1)/4`` and the
variance of its pairwise score is ``J = (k-1)(k+1)/12``, so the estimator's
information is ``H^2/J = w H`` with ``w = H/J = 3/(k+1)``.  Intervals then
mean what they mean for two-player games: approximate 95% confidence
intervals for the strength relative to the field, valid when strengths are
not far apart and slightly conservative when they are (tests/stats checks
coverage on simulated three-team rankings).

Intervals, draws, anchoring
---------------------------
Counting a draw as half a win fits the strengths well (the expected score is
right whatever the draw rate) but overstates how much a game's score
varies: under the likelihood a game scores 0 or 1 with variance ``q(1-q)``,
while a game drawn with probability ``d`` has variance ``q(1-q) - d/4``.
The covariance is therefore the sandwich (Huber-White, Godambe)
``H^-1 J H^-1``: ``H`` is the information of the half-point likelihood at the
optimum, prior included, and ``J`` the variance of its score, built like
``H`` but with each cell's ``n q(1-q)`` (one cell per pair of players and
first seat) reduced by a quarter of the draws observed in that cell.
Without draws ``J = H`` and this is the usual inverse information.  Using
the observed draw rate rather than the raw residuals keeps ``J`` right for a
player who won everything (raw residuals would be near zero there).  The
prior enters ``J`` as it enters ``H``.

A reported rating is ``anchor + (theta_i - mean(theta))``: its variance is
that of the contrast against the field mean, ``var(theta_i) - 2
cov(theta_i, mean) + var(mean)``, which is invariant to where the likelihood
leaves the common level, so no player has to be pinned.  The anchor itself
is taken as exact.  The likelihood of superiority (LOS) of ``a`` over ``b``
is ``Phi((r_a - r_b) / sd)`` with ``sd^2 = var_a + var_b - 2 cov_ab``, from
the full covariance: two players' estimates are correlated, through shared
opponents (positively) and through the common centre (negatively; with two
players the centred ratings are exact opposites), so adding the two
variances would be wrong in either direction.

Every player also plays ``prior_games`` (default 1) virtual draw against a
virtual opponent at the centre of the field (``theta = 0``; the prior's own
gradient balances there, ``sum sigmoid(theta_i) = n / 2``).  This is a weak
logistic prior, ``sd`` about 2 natural units (350 Elo), and it keeps
everything finite and well defined:

* a player with only wins (or only losses) gets a large but finite rating
  and a wide interval instead of the infinite plain MLE;
* a player with no games sits at the centre with an interval of about
  +-680 Elo, i.e. "unknown";
* when the comparison graph falls apart into groups that never met, each
  group is tied to the others only through the prior, so ratings across
  groups are shrunk together and their differences carry large errors, as
  they should.  ``Fit.components`` says how many such groups there are.

Pure Python, no Django: fitting 100 players on 10,000 games takes a fraction
of a second (bench/ratings_fit.py).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence

from tournaments.ratings.stats.games import Game, GameLike, Row, aggregate, as_game, components
from tournaments.ratings.stats.linalg import Matrix, cholesky, cholesky_inverse, cholesky_solve, sandwich
from tournaments.ratings.stats.numeric import normal_quantile
from tournaments.ratings.stats.table import ELO_PER_NATURAL, Fit, PlayerFit, with_los_next

__all__ = ["ELO_PER_NATURAL", "Fit", "Game", "GameLike", "PlayerFit", "aggregate", "fit"]


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


class _Problem:
    """Log-likelihood, gradient and information of the pairwise model plus prior."""

    def __init__(self, n: int, rows: list[Row], prior: float, with_eta: bool) -> None:
        self.n = n
        self.rows = rows
        self.prior = prior
        self.with_eta = with_eta
        self.size = n + (1 if with_eta else 0)

    def log_likelihood(self, x: list[float]) -> float:
        eta = x[self.n] if self.with_eta else 0.0
        total = 0.0
        for i, j, f, n, s, _ in self.rows:
            d = x[i] - x[j] + f * eta
            total += s * _log_sigmoid(d) + (n - s) * _log_sigmoid(-d)
        # The virtual draws: half a win and half a loss against theta = 0.
        for value in x:
            total += 0.5 * self.prior * (_log_sigmoid(value) + _log_sigmoid(-value))
        return total

    def derivatives(self, x: list[float], *, draws: bool = False) -> tuple[list[float], Matrix]:
        """Gradient and information (negative Hessian), both including the prior.

        With ``draws`` the matrix is instead the variance of the score (the
        sandwich's middle): each cell's ``n q (1 - q)`` less a quarter of its
        drawn weight, never below zero (a cell can hold more draws than its
        fitted score allows).
        """
        size, n_players = self.size, self.n
        eta_at = n_players
        eta = x[eta_at] if self.with_eta else 0.0
        grad = [0.0] * size
        info: Matrix = [[0.0] * size for _ in range(size)]
        for p in range(size):
            q = _sigmoid(x[p])
            grad[p] += self.prior * (0.5 - q)
            info[p][p] += self.prior * q * (1.0 - q)
        for i, j, f, n, s, drawn in self.rows:
            q = _sigmoid(x[i] - x[j] + f * eta)
            r = s - n * q
            v = n * q * (1.0 - q)
            if draws:
                v = max(v - drawn / 4.0, 0.0)
            grad[i] += r
            grad[j] -= r
            info[i][i] += v
            info[j][j] += v
            info[i][j] -= v
            info[j][i] -= v
            if f and self.with_eta:
                grad[eta_at] += f * r
                info[eta_at][eta_at] += v
                info[i][eta_at] += f * v
                info[eta_at][i] += f * v
                info[j][eta_at] -= f * v
                info[eta_at][j] -= f * v
        return grad, info


def _maximise(problem: _Problem, tolerance: float, max_iterations: int) -> tuple[list[float], int, float]:
    """Newton-Raphson with step halving; the objective is strictly concave thanks to the prior."""
    x = [0.0] * problem.size
    value = problem.log_likelihood(x)
    iterations = 0
    for iterations in range(1, max_iterations + 1):  # noqa: B007 - reported afterwards
        grad, info = problem.derivatives(x)
        step = cholesky_solve(cholesky(info), grad)
        scale = 1.0
        while True:
            trial = [a + scale * b for a, b in zip(x, step, strict=True)]
            trial_value = problem.log_likelihood(trial)
            # Accept any improvement; tiny steps near the optimum may not
            # change the value beyond rounding, so accept those too.
            if trial_value >= value - 1e-12 * (1.0 + abs(value)) or scale < 1e-6:
                break
            scale *= 0.5
        x, value = trial, trial_value
        if max(map(abs, step), default=0.0) * scale < tolerance:
            break
    return x, iterations, value


def fit(
    games: Iterable[GameLike],
    *,
    players: Sequence[Hashable] | None = None,
    anchor: float = 1500.0,
    first_mover: bool = True,
    prior_games: float = 1.0,
    order: Sequence[Hashable] | None = None,
    tolerance: float = 1e-9,
    max_iterations: int = 100,
    level: float = 0.95,
) -> Fit:
    """Fit the whole history at once; see the module docstring for the model.

    ``games`` holds :class:`Game` objects or ``(a, b, score_a)`` tuples (``a``
    in the first seat).  ``players`` lists everyone in the table, including
    those without games; by default, everyone who appears in a game, in order
    of appearance.  ``order`` fixes the table's order (for "LOS over the next
    row", e.g. the standings order); by default rows are sorted by rating.
    ``level`` is the confidence of the intervals (``ci_low``, ``ci_high``).
    """
    checked = [as_game(g) for g in games]
    players = _players(checked) if players is None else players
    index = {p: k for k, p in enumerate(players)}
    if len(index) != len(players):
        raise ValueError("players must be distinct")
    n = len(players)
    if n == 0:
        return Fit([], None, None, anchor, 0, 0, 0.0)
    if prior_games <= 0:
        raise ValueError("prior_games must be positive: it is what keeps the fit finite")
    rows, n_games, points = aggregate(checked, index, first_mover)
    with_eta = first_mover and any(row[2] for row in rows)
    problem = _Problem(n, rows, prior_games, with_eta)
    x, iterations, value = _maximise(problem, tolerance, max_iterations)
    cov_all = _covariance(problem, x)
    cov = [row[:n] for row in cov_all[:n]]
    labels = components(n, rows)
    z = normal_quantile(0.5 + level / 2.0)
    fitted = {
        p: PlayerFit(p, r, se, r - z * se, r + z * se, n_games[k], points[k], None, labels[k])
        for (p, k), (r, se) in zip(index.items(), _centred(x[:n], cov, anchor), strict=True)
    }
    result = Fit(
        table=[],
        first_move_advantage=x[n] * ELO_PER_NATURAL if with_eta else None,
        first_move_stderr=math.sqrt(cov_all[n][n]) * ELO_PER_NATURAL if with_eta else None,
        anchor=anchor,
        components=len({labels[index[p]] for p in players if n_games[index[p]]}),
        iterations=iterations,
        log_likelihood=value,
        _index=index,
        _cov=cov,
    )
    result.table = with_los_next(_ordered(fitted, index, order), result)
    return result


def _players(games: list[Game]) -> list[Hashable]:
    """Everyone who appears in a game, in order of appearance."""
    seen: dict[Hashable, None] = {}
    for game in games:
        for side in game.sides:
            seen.setdefault(side, None)
    return list(seen)


def _ordered(
    fitted: dict[Hashable, PlayerFit], index: dict[Hashable, int], order: Sequence[Hashable] | None
) -> list[PlayerFit]:
    """The table's rows: in ``order`` when given (every player once), else by rating."""
    if order is None:
        return sorted(fitted.values(), key=lambda row: (-row.rating, index[row.player]))
    if sorted(map(index.__getitem__, order)) != list(range(len(index))):
        raise ValueError("order must list every player exactly once")
    return [fitted[p] for p in order]


def _covariance(problem: _Problem, x: list[float]) -> Matrix:
    """The sandwich ``H^-1 J H^-1`` (strengths, then the first-seat term); ``H^-1`` when nothing was drawn."""
    _, info = problem.derivatives(x)
    inverse = cholesky_inverse(cholesky(info))
    if not any(row[5] for row in problem.rows):
        return inverse
    _, meat = problem.derivatives(x, draws=True)
    return sandwich(inverse, meat)


def _centred(theta: list[float], cov: Matrix, anchor: float) -> list[tuple[float, float]]:
    """Each player's ``(rating, stderr)`` in Elo, as a contrast against the field mean."""
    n = len(theta)
    # var(t_i - mean) = S_ii - 2 m_i + M, with m_i the row means and M their mean.
    row_means = [sum(row) / n for row in cov]
    grand = sum(row_means) / n
    centre = sum(theta) / n
    return [
        (
            anchor + (theta[k] - centre) * ELO_PER_NATURAL,
            math.sqrt(max(cov[k][k] - 2.0 * row_means[k] + grand, 0.0)) * ELO_PER_NATURAL,
        )
        for k in range(n)
    ]
