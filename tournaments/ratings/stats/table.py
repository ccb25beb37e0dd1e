"""What a rating fit returns: the table, pairwise LOS (one pair or the whole matrix), error bars.

Everything here reads the fit's covariance of the strengths; nothing is
refitted.  The covariance is the draw-aware sandwich of :mod:`.bradley_terry`.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from tournaments.ratings.stats.gsprt import logistic_elo, per_game_sd
from tournaments.ratings.stats.linalg import Matrix
from tournaments.ratings.stats.numeric import normal_cdf, normal_quantile

ELO_PER_NATURAL = 400.0 / math.log(10.0)


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


@dataclass(frozen=True)
class LosMatrix:
    """Likelihood of superiority of every player over every other.

    ``values[r][c]`` is the probability that ``players[r]`` is truly stronger
    than ``players[c]``; ``values[c][r]`` is one minus it, and the diagonal
    is None.
    """

    players: list[Hashable]
    values: list[list[float | None]]

    def to_json(self, digits: int | None = 4) -> dict[str, object]:
        """``{"players": [...], "los": [[...]]}``, rounded to ``digits`` (None: unrounded)."""

        def shown(v: float | None) -> float | None:
            return v if v is None or digits is None else round(v, digits)

        return {"players": list(self.players), "los": [[shown(v) for v in row] for row in self.values]}


@dataclass(frozen=True)
class ErrorBar:
    """A rating (live Elo) with the uncertainty the whole-history fit gives its player."""

    elo: float
    stderr: float
    low: float
    high: float
    games: int

    @classmethod
    def around(cls, elo: float, stderr: float, games: int, level: float = 0.95) -> ErrorBar:
        """The ``level`` interval of a rating with this standard error (a normal approximation)."""
        z = normal_quantile(0.5 + level / 2.0)
        return cls(elo, stderr, elo - z * stderr, elo + z * stderr, games)

    @classmethod
    def of_score(cls, wins: int, draws: int, losses: int, level: float = 0.95) -> ErrorBar | None:
        """A performance: the Elo difference a score implies against one opponent, with its interval.

        The score's standard error is the observed per-game deviation over sqrt(games); the
        logistic curve's slope carries it to Elo.  None without games, or for a score of 0 or 1
        (no finite difference explains it).
        """
        return cls.of_results([losses, draws, wins], level)

    @classmethod
    def of_results(cls, results: Sequence[int], level: float = 0.95) -> ErrorBar | None:
        """:meth:`of_score` from trinomial counts ``(losses, draws, wins)`` or pentanomial ones.

        Pentanomial: pairs of games with the seats swapped in which the player
        scored 0, 1/2, 1, 3/2 or 2.  The two games of a pair are not
        independent, so the spread is measured per pair (as fishtest does);
        the Elo is that of the mean score per game either way.
        """
        if len(results) not in (3, 5):
            raise ValueError("results are trinomial (3 counts) or pentanomial (5 counts)")
        last = len(results) - 1
        samples = sum(results)
        games = samples * last // 2
        score = sum(k * count for k, count in enumerate(results)) / (last * samples) if samples else 0.0
        if not 0.0 < score < 1.0:
            return None
        score_stderr = per_game_sd(results) / math.sqrt(games)
        slope = ELO_PER_NATURAL / (score * (1.0 - score))
        return cls.around(logistic_elo(score), score_stderr * slope, games, level)

    def to_json(self) -> dict[str, float | int]:
        return {"elo": self.elo, "stderr": self.stderr, "low": self.low, "high": self.high, "games": self.games}


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
    # Without a full covariance (large pools): each strength's variance alone, covariances taken as 0.
    _variances: list[float] = field(repr=False, default_factory=list)

    def player(self, player: Hashable) -> PlayerFit:
        """The table row of ``player`` (StopIteration if it is not in the fit)."""
        return next(row for row in self.table if row.player == player)

    def _variance(self, a: Hashable, b: Hashable) -> float:
        i, j = self._index[a], self._index[b]
        if not self._cov:
            return self._variances[i] + self._variances[j]
        return max(self._cov[i][i] + self._cov[j][j] - 2.0 * self._cov[i][j], 0.0)

    def difference_stderr(self, a: Hashable, b: Hashable) -> float:
        """Standard error (Elo) of ``rating(a) - rating(b)``, covariance included."""
        return math.sqrt(self._variance(a, b)) * ELO_PER_NATURAL

    def los(self, a: Hashable, b: Hashable) -> float:
        """Likelihood of superiority: the probability that ``a`` is truly stronger than ``b``."""
        if a == b:
            return 0.5
        return self._los(self.player(a).rating - self.player(b).rating, a, b)

    def _los(self, gap: float, a: Hashable, b: Hashable) -> float:
        sd = self.difference_stderr(a, b)
        if sd == 0.0:
            return 0.5 if gap == 0.0 else float(gap > 0.0)
        return normal_cdf(gap / sd)

    def los_matrix(self, players: Sequence[Hashable] | None = None) -> LosMatrix:
        """LOS of every listed player over every other (default: everyone, in table order)."""
        order = [row.player for row in self.table] if players is None else list(players)
        rating = {row.player: row.rating for row in self.table}
        values: list[list[float | None]] = [[None] * len(order) for _ in order]
        for r, a in enumerate(order):
            for c in range(r + 1, len(order)):
                b = order[c]
                value = self._los(rating[a] - rating[b], a, b)
                values[r][c] = value
                values[c][r] = 1.0 - value
        return LosMatrix(order, values)

    def error_bars(self, ratings: Mapping[Hashable, float], level: float = 0.95) -> dict[Hashable, ErrorBar]:
        """Error bars for other ratings of the same players (live Elo), from this fit's standard errors.

        Each rating keeps its value; its half-width is that of the player's
        ``level`` interval here: how precisely the player's games pin its
        strength down.  Players not in the fit are left out.
        """
        rows = {row.player: row for row in self.table}
        return {
            p: ErrorBar.around(elo, rows[p].stderr, rows[p].games, level) for p, elo in ratings.items() if p in rows
        }

    def to_json(self, *, los_matrix: bool = False) -> dict[str, object]:
        """A JSON-able summary (no covariance matrix): for caching the table.

        With ``los_matrix`` the payload also carries ``los_matrix`` in table
        order (:meth:`LosMatrix.to_json`), so a cached table can serve it.
        """
        out: dict[str, object] = {
            "anchor": self.anchor,
            "first_move_advantage": self.first_move_advantage,
            "first_move_stderr": self.first_move_stderr,
            "components": self.components,
            "iterations": self.iterations,
            "players": [{"player": row.player, **row.to_json()} for row in self.table],
        }
        if los_matrix:
            out["los_matrix"] = self.los_matrix().to_json()
        return out


def with_los_next(table: list[PlayerFit], fit: Fit) -> list[PlayerFit]:
    """The table with each row's LOS over the row below it."""
    return [
        replace(row, los_next=fit._los(row.rating - below.rating, row.player, below.player))
        for row, below in itertools.pairwise(table)
    ] + [replace(row, los_next=None) for row in table[-1:]]
