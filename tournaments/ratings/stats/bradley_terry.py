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

Intervals, anchoring and degenerate data
----------------------------------------
The standard errors come from the observed information (the negative Hessian
of the log-likelihood, prior included) at the optimum, inverted in full.  A
reported rating is ``anchor + (theta_i - mean(theta))``: its variance is that
of the contrast against the field mean, ``var(theta_i) - 2 cov(theta_i,
mean) + var(mean)``, which is invariant to where the likelihood leaves the
common level, so no player has to be pinned.  The anchor itself is taken as
exact.  The likelihood of superiority (LOS) of ``a`` over ``b`` is
``Phi((r_a - r_b) / sd)`` with ``sd^2 = var_a + var_b - 2 cov_ab``, from the
full covariance: two players' estimates are correlated, through shared
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

With many draws the "half a win" likelihood overstates each game's variance,
so intervals are somewhat conservative; with none they are the usual Wald
intervals.

Pure Python, no Django: fitting 100 players on 10,000 games takes a fraction
of a second (bench/ratings_fit.py).
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field

from tournaments.ratings.stats.linalg import Matrix, cholesky, cholesky_inverse, cholesky_solve

ELO_PER_NATURAL = 400.0 / math.log(10.0)
Z95 = 1.959963984540054  # two-sided 95% normal quantile


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


@dataclass(frozen=True)
class PlayerFit:
    """One player's row of the performance table (ratings and errors in Elo)."""

    player: Hashable
    rating: float
    stderr: float
    ci_low: float
    ci_high: float
    games: int
    points: float
    # LOS over the next player of the table; None for the last row.
    los_next: float | None = None
    component: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "rating": self.rating,
            "stderr": self.stderr,
            "ci_low": self.ci_low,
            "ci_high": self.ci_high,
            "games": self.games,
            "points": self.points,
            "los_next": self.los_next,
            "component": self.component,
        }


@dataclass
class Fit:
    """The fitted table, the first-seat term and what is needed for any pairwise LOS."""

    table: list[PlayerFit]
    first_move_advantage: float | None
    first_move_stderr: float | None
    anchor: float
    components: int
    iterations: int
    log_likelihood: float
    _index: dict[Hashable, int] = field(repr=False, default_factory=dict)
    # Covariance of the strengths in natural units (players only).
    _cov: Matrix = field(repr=False, default_factory=list)

    def player(self, player: Hashable) -> PlayerFit:
        return next(row for row in self.table if row.player == player)

    def difference_stderr(self, a: Hashable, b: Hashable) -> float:
        """Standard error (Elo) of ``rating(a) - rating(b)``, covariance included."""
        i, j = self._index[a], self._index[b]
        var = self._cov[i][i] + self._cov[j][j] - 2.0 * self._cov[i][j]
        return math.sqrt(max(var, 0.0)) * ELO_PER_NATURAL

    def los(self, a: Hashable, b: Hashable) -> float:
        """Likelihood of superiority: the probability that ``a`` is truly stronger than ``b``."""
        if a == b:
            return 0.5
        diff = self.player(a).rating - self.player(b).rating
        return _normal_cdf(diff / self.difference_stderr(a, b))

    def to_json(self) -> dict[str, object]:
        """A JSON-able summary (no covariance matrix): for caching the table."""
        return {
            "anchor": self.anchor,
            "first_move_advantage": self.first_move_advantage,
            "first_move_stderr": self.first_move_stderr,
            "components": self.components,
            "iterations": self.iterations,
            "players": [{"player": row.player, **row.to_json()} for row in self.table],
        }


def _normal_cdf(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _sigmoid(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x >= 0 else x - math.log1p(math.exp(x))


def _as_game(item: GameLike) -> Game:
    return item if isinstance(item, Game) else Game.pair(*item)


def aggregate(
    games: Iterable[GameLike], index: dict[Hashable, int], first_mover: bool
) -> tuple[list[tuple[int, int, int, float, float]], list[int], list[float]]:
    """Reduce games to weighted pair counts.

    Returns ``(rows, games, points)``: rows ``(i, j, f, weight, points_i)``
    with ``i < j`` and ``f`` = +1 when ``i`` held the first seat, -1 when
    ``j`` did, 0 when neither or the game has no first mover; per player the
    number of real games and the game points (1 for a win, split among those
    sharing first place, as in the standings).
    """
    buckets: dict[tuple[int, int, int], list[float]] = {}
    n_games = [0] * len(index)
    points = [0.0] * len(index)
    for item in games:
        game = _as_game(item)
        k = len(game.sides)
        if k < 2:
            continue
        ids = [index[side] for side in game.sides]
        firsts = sum(1 for r in game.ranks if r == min(game.ranks))
        for t, i in enumerate(ids):
            n_games[i] += 1
            if game.ranks[t] == min(game.ranks):
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
                    buckets[(i, j, f)] = [weight, weight * score]
                else:
                    cell[0] += weight
                    cell[1] += weight * score
    rows = [(i, j, f, n, s) for (i, j, f), (n, s) in buckets.items()]
    return rows, n_games, points


def _components(n: int, rows: list[tuple[int, int, int, float, float]]) -> list[int]:
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


class _Problem:
    """Log-likelihood, gradient and information of the pairwise model plus prior."""

    def __init__(self, n: int, rows: list[tuple[int, int, int, float, float]], prior: float, with_eta: bool) -> None:
        self.n = n
        self.rows = rows
        self.prior = prior
        self.with_eta = with_eta
        self.size = n + (1 if with_eta else 0)

    def log_likelihood(self, x: list[float]) -> float:
        eta = x[self.n] if self.with_eta else 0.0
        total = 0.0
        for i, j, f, n, s in self.rows:
            d = x[i] - x[j] + f * eta
            total += s * _log_sigmoid(d) + (n - s) * _log_sigmoid(-d)
        # The virtual draws: half a win and half a loss against theta = 0.
        for value in x:
            total += 0.5 * self.prior * (_log_sigmoid(value) + _log_sigmoid(-value))
        return total

    def derivatives(self, x: list[float]) -> tuple[list[float], Matrix]:
        """Gradient and information (negative Hessian), both including the prior."""
        size, n_players = self.size, self.n
        eta_at = n_players
        eta = x[eta_at] if self.with_eta else 0.0
        grad = [0.0] * size
        info: Matrix = [[0.0] * size for _ in range(size)]
        for p in range(size):
            q = _sigmoid(x[p])
            grad[p] += self.prior * (0.5 - q)
            info[p][p] += self.prior * q * (1.0 - q)
        for i, j, f, n, s in self.rows:
            q = _sigmoid(x[i] - x[j] + f * eta)
            r = s - n * q
            v = n * q * (1.0 - q)
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
) -> Fit:
    """Fit the whole history at once; see the module docstring for the model.

    ``games`` holds :class:`Game` objects or ``(a, b, score_a)`` tuples (``a``
    in the first seat).  ``players`` lists everyone in the table, including
    those without games; by default, everyone who appears in a game, in order
    of appearance.  ``order`` fixes the table's order (for "LOS over the next
    row", e.g. the standings order); by default rows are sorted by rating.
    """
    games = [_as_game(g) for g in games]
    if players is None:
        seen: dict[Hashable, None] = {}
        for game in games:
            for side in game.sides:
                seen.setdefault(side, None)
        players = list(seen)
    index = {p: k for k, p in enumerate(players)}
    if len(index) != len(players):
        raise ValueError("players must be distinct")
    n = len(players)
    if n == 0:
        return Fit([], None, None, anchor, 0, 0, 0.0)
    rows, n_games, points = aggregate(games, index, first_mover)
    with_eta = first_mover and any(f for _, _, f, _, _ in rows)
    if prior_games <= 0:
        raise ValueError("prior_games must be positive: it is what keeps the fit finite")
    problem = _Problem(n, rows, prior_games, with_eta)
    x, iterations, value = _maximise(problem, tolerance, max_iterations)
    _, info = problem.derivatives(x)
    cov_all = cholesky_inverse(cholesky(info))
    cov = [row[:n] for row in cov_all[:n]]

    # Contrast against the field mean: var(t_i - mean) = S_ii - 2 m_i + M.
    row_means = [sum(row) / n for row in cov]
    grand = sum(row_means) / n
    centre = sum(x[:n]) / n
    labels = _components(n, rows)
    fitted = []
    for p, k in index.items():
        rating = anchor + (x[k] - centre) * ELO_PER_NATURAL
        stderr = math.sqrt(max(cov[k][k] - 2.0 * row_means[k] + grand, 0.0)) * ELO_PER_NATURAL
        fitted.append(
            PlayerFit(
                player=p,
                rating=rating,
                stderr=stderr,
                ci_low=rating - Z95 * stderr,
                ci_high=rating + Z95 * stderr,
                games=n_games[k],
                points=points[k],
                component=labels[k],
            )
        )
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
    by_player = {row.player: row for row in fitted}
    if order is None:
        ordered = sorted(fitted, key=lambda row: (-row.rating, index[row.player]))
    else:
        if sorted(map(index.__getitem__, order)) != list(range(n)):
            raise ValueError("order must list every player exactly once")
        ordered = [by_player[p] for p in order]
    result.table = ordered  # set before los(), which looks rows up
    result.table = [
        _with_los(row, result.los(row.player, ordered[k + 1].player) if k + 1 < len(ordered) else None)
        for k, row in enumerate(ordered)
    ]
    return result


def _with_los(row: PlayerFit, los: float | None) -> PlayerFit:
    return PlayerFit(
        player=row.player,
        rating=row.rating,
        stderr=row.stderr,
        ci_low=row.ci_low,
        ci_high=row.ci_high,
        games=row.games,
        points=row.points,
        los_next=los,
        component=row.component,
    )
