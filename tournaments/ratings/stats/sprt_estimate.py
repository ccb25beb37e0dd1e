"""The Elo estimate of an SPRT, corrected for the bias of stopping early.

A sequential test stops when the evidence happens to run ahead, so the
plain mean score of a stopped test overstates the difference: a test at a
true +10 Elo that stops with H1 reports about +14 on average.  The estimate
here is median-unbiased: the Elo at which a test would end with an outcome
no better than the observed one half of the time.  Likewise the interval
ends are the Elo values at which that probability is 97.5% and 2.5%, and the
LOS is that probability at Elo 0: how surely an equal version would have
done worse.

The LLR is modelled as Brownian motion (:mod:`.brownian`) whose drift and
variance per sample follow from the observed score variance, stopped at
Wald's bounds; an LLR past a bound is clamped to it, with time rescaled so
the observed slope is kept.  This is the method of Fishtest's ``sprt``
analytics, and like it the figures are good for small differences and only
indicative for large ones.  The estimate is always in logistic Elo.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from tournaments.ratings.stats.brownian import outcome_cdf
from tournaments.ratings.stats.gsprt import NELO_PER_T, empirical, logistic_score, mean_variance
from tournaments.ratings.stats.numeric import bisect_root
from tournaments.ratings.stats.sprt import EloModel, Sprt, bounds

# The scale's end: an interval end found here means only "at least +1000" (or "at most -1000"),
# where the data bound no finite Elo (a test won or lost every pair); callers show it so.
ELO_LIMIT = 1000.0


@dataclass(frozen=True)
class Estimate:
    """The candidate's logistic Elo over the baseline with a confidence interval and LOS."""

    elo: float
    low: float
    high: float
    los: float

    def to_json(self) -> dict[str, float]:
        return {"elo": self.elo, "elo_low": self.low, "elo_high": self.high, "los": self.los}


class _Path:
    """The observed test as a Brownian outcome: bounds, time, end point, and the drift model."""

    def __init__(self, test: Sprt, results: Sequence[float]) -> None:
        n, values, probs = empirical(results)
        mean, var = mean_variance(values, probs)
        self.var = var
        self.lower, self.upper = bounds(test.alpha, test.beta)
        if test.model == EloModel.NORMALIZED:
            # Normalized bounds become scores through the observed sd of one game.
            sd_game = math.sqrt(2.0 * var if len(results) == 5 else var)
            self.s0, self.s1 = (0.5 + nelo / NELO_PER_T * sd_game for nelo in (test.elo0, test.elo1))
        else:
            self.s0, self.s1 = logistic_score(test.elo0), logistic_score(test.elo1)
        slope = self.drift(mean)
        self.time, self.value = n, n * slope
        # A stopped test overshoots its bound: keep the slope, end on the bound.
        if self.value < self.lower:
            self.time, self.value = self.lower / slope, self.lower
        elif self.value > self.upper:
            self.time, self.value = self.upper / slope, self.upper

    def drift(self, score: float) -> float:
        """The LLR's expected change per sample when the true expected score is ``score``."""
        return (score - (self.s0 + self.s1) / 2.0) * (self.s1 - self.s0) / self.var

    def worse(self, elo: float) -> float:
        """Probability that a test at a true ``elo`` ends no better than the observed one."""
        variance = (self.s1 - self.s0) ** 2 / self.var
        mu = self.drift(logistic_score(elo))
        return outcome_cdf(self.lower, self.upper, mu, variance, self.time, self.value)


def _elo_at(path: _Path, test: Sprt, probability: float) -> float:
    """The Elo at which ``path.worse`` equals ``probability`` (it decreases with Elo)."""
    middle = (test.elo0 + test.elo1) / 2.0
    width = test.elo1 - test.elo0
    spread = 30.0
    while True:
        low = max(middle - spread * width, -ELO_LIMIT)
        high = min(middle + spread * width, ELO_LIMIT)
        f_low, f_high = path.worse(low) - probability, path.worse(high) - probability
        if (f_low > 0.0) != (f_high > 0.0) or f_low == 0.0 or f_high == 0.0:
            return bisect_root(lambda elo: path.worse(elo) - probability, low, high, tolerance=1e-12)
        if low <= -ELO_LIMIT and high >= ELO_LIMIT:
            # Beyond what the scale can say: report the end the data point to.
            return high if f_low > 0.0 else low
        spread *= 2.0


def estimate(test: Sprt, results: Sequence[float], level: float = 0.95) -> Estimate | None:
    """Median-unbiased Elo with a ``level`` interval and LOS, from the counts the test reads.

    ``results`` are the trinomial or pentanomial counts (``Sprt.results``).
    None before any sample.
    """
    if not 0.0 < level < 1.0:
        raise ValueError("level is a probability")
    if sum(results) <= 0:
        return None
    path = _Path(test, results)
    tail = (1.0 - level) / 2.0
    return Estimate(
        elo=_elo_at(path, test, 0.5),
        low=_elo_at(path, test, 1.0 - tail),
        high=_elo_at(path, test, tail),
        los=path.worse(0.0),
    )
