"""Sequential probability ratio test for "is the new version better?", as Fishtest runs it.

Games usually come in pairs: the same seed played twice with the seats
swapped, so the first seat's edge and the deal cancel within a pair.  A
pair's score for the new version is 0, 1/2, 1, 3/2 or 2 (the pentanomial);
games that are not paired are counted as losses, draws and wins (the
trinomial).  Either set of counts is the data.

Hypotheses are about the new version's strength against the old one, in one
of two scales (:class:`EloModel`):

* logistic Elo (default): H0 ``elo = elo0`` against H1 ``elo = elo1`` where
  ``elo`` is defined by the expected score per game,
  ``s = 1 / (1 + 10 ** (-elo / 400))``;
* normalized Elo: the same for the score's t-value, ``nelo = (s - 1/2) /
  sd_game * 800 / ln 10``, which does not depend on how drawish the game is.

The log-likelihood ratio is the exact generalized one (:mod:`.gsprt`): no
draw model and no normal approximation.  The test stops when the LLR leaves
Wald's bounds ``[ln(beta / (1 - alpha)), ln((1 - beta) / alpha)]``, each
moved inwards by the expected overshoot estimated from the LLR's own path
(Siegmund's correction, :class:`Overshoot`), or, inconclusive, when a cap
on games is reached.  After a stop the Elo estimate is the median-unbiased
one (:mod:`.sprt_estimate`): the plain mean score of a test that stopped
early is biased away from zero.

No decision is taken before ``min_pairs`` samples (default 10), so a test is
never settled by its very first results, whose regularised frequencies
(empty classes count 1e-3) say little.

Pure Python, no Django.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tournaments.ratings.stats.gsprt import llr_logistic, llr_normalized, logistic_score


class EloModel(enum.StrEnum):
    """The scale of ``elo0`` and ``elo1``."""

    LOGISTIC = "logistic"
    NORMALIZED = "normalized"


class Decision(enum.StrEnum):
    """Where the test stands."""

    H0 = "accept_h0"  # not better by elo1: reject the new version
    H1 = "accept_h1"  # better: accept the new version
    CONTINUE = "continue"
    INCONCLUSIVE = "inconclusive"  # the game cap was reached between the bounds


@dataclass(frozen=True)
class Counts:
    """Game-level W/D/L and pair-level pentanomial counts for the new version."""

    wins: int
    draws: int
    losses: int
    # pentanomial[k]: pairs in which the new version scored k / 2 (0, 0.5, ..., 2).
    pentanomial: tuple[int, int, int, int, int]

    @property
    def pairs(self) -> int:
        return sum(self.pentanomial)

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def trinomial(self) -> tuple[int, int, int]:
        """``(losses, draws, wins)``: lowest score first, like the pentanomial."""
        return self.losses, self.draws, self.wins


def counts(pairs: Iterable[tuple[float, float]]) -> Counts:
    """W/D/L and pentanomial counts from the new version's two scores (1, 0.5, 0) per pair."""
    wins = draws = losses = 0
    penta = [0] * 5
    for pair in pairs:
        if len(pair) != 2:
            raise ValueError("a pair has exactly two games")
        total = 0.0
        for score in pair:
            if score == 1:
                wins += 1
            elif score == 0.5:
                draws += 1
            elif score == 0:
                losses += 1
            else:
                raise ValueError(f"a game score must be 1, 0.5 or 0, not {score!r}")
            total += score
        penta[round(total * 2)] += 1
    return Counts(wins, draws, losses, (penta[0], penta[1], penta[2], penta[3], penta[4]))


def expected_score(elo: float) -> float:
    """Expected game score at a logistic Elo difference."""
    return logistic_score(elo)


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: (accept H0 at or below, accept H1 at or above)."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be in (0, 1)")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr(results: Sequence[float], elo0: float = 0.0, elo1: float = 10.0, model: str = EloModel.LOGISTIC) -> float:
    """The exact GSPRT log-likelihood ratio of H1 over H0 from trinomial or pentanomial counts."""
    if model == EloModel.NORMALIZED:
        return llr_normalized(results, elo0, elo1)
    if model != EloModel.LOGISTIC:
        raise ValueError(f"unknown Elo model {model!r}")
    return llr_logistic(results, elo0, elo1)


@dataclass(frozen=True)
class Overshoot:
    """Siegmund's dynamic overshoot estimate, from the LLR's path (Sequential Analysis, cor. 8.33).

    Every time the LLR sets a new low, the size of the step below the
    previous low is recorded (likewise for new highs).  The expected
    overshoot of a bound is then ``E[step^2] / (2 E[step])`` over those
    ladder steps: the test stops once the LLR is within that distance of a
    bound, so the final overshoot lands, on average, on the bound itself.
    JSON-able, so a caller can keep it between looks.
    """

    samples: int = 0
    low: float = 0.0  # the lowest LLR so far (the path starts at 0)
    low_sum: float = 0.0  # sum of the steps below the previous lowest (negative)
    low_squares: float = 0.0
    high: float = 0.0
    high_sum: float = 0.0
    high_squares: float = 0.0

    def update(self, value: float, samples: int) -> Overshoot:
        """The state after a look at LLR ``value`` with ``samples`` samples (pairs or games) in all.

        A look with as many samples as the last changes nothing, so looking
        twice is harmless; fewer samples than before (data withdrawn) starts
        the record afresh from this point.
        """
        if samples == self.samples:
            return self
        if samples < self.samples:
            return Overshoot(samples=samples, low=value, high=value)
        low, low_sum, low_squares = self.low, self.low_sum, self.low_squares
        if value < low:
            step = value - low
            low, low_sum, low_squares = value, low_sum + step, low_squares + step * step
        high, high_sum, high_squares = self.high, self.high_sum, self.high_squares
        if value > high:
            step = value - high
            high, high_sum, high_squares = value, high_sum + step, high_squares + step * step
        return Overshoot(samples, low, low_sum, low_squares, high, high_sum, high_squares)

    @property
    def lower_shift(self) -> float:
        """How far the lower bound moves up (0 until the LLR has set a low)."""
        return -self.low_squares / self.low_sum / 2.0 if self.low_sum else 0.0

    @property
    def upper_shift(self) -> float:
        """How far the upper bound moves down."""
        return self.high_squares / self.high_sum / 2.0 if self.high_sum else 0.0

    def to_json(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.__dataclass_fields__}

    @classmethod
    def from_json(cls, data: dict[str, float]) -> Overshoot:
        path = {name: float(data[name]) for name in cls.__dataclass_fields__ if name != "samples"}
        return cls(samples=int(data["samples"]), **path)


def decide(
    value: float,
    lower: float,
    upper: float,
    *,
    pairs: int,
    max_pairs: int | None = None,
    min_pairs: int = 10,
) -> Decision:
    """The decision for an LLR ``value`` after ``pairs`` samples, against the (corrected) bounds."""
    if pairs >= min_pairs:
        if value <= lower:
            return Decision.H0
        if value >= upper:
            return Decision.H1
    if max_pairs is not None and pairs >= max_pairs:
        return Decision.INCONCLUSIVE
    return Decision.CONTINUE


@dataclass(frozen=True)
class Status:
    """One look at the test: the counts, the LLR, the bounds in force and the decision.

    ``lower`` and ``upper`` are Wald's bounds moved inwards by the overshoot
    correction (``wald_lower`` and ``wald_upper`` without it).
    """

    counts: Counts
    llr: float
    lower: float
    upper: float
    decision: Decision
    wald_lower: float = 0.0
    wald_upper: float = 0.0
    overshoot: Overshoot | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "wins": self.counts.wins,
            "draws": self.counts.draws,
            "losses": self.counts.losses,
            "pentanomial": list(self.counts.pentanomial),
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "wald_lower": self.wald_lower,
            "wald_upper": self.wald_upper,
            "decision": self.decision.value,
        }


@dataclass(frozen=True)
class Sprt:
    """A configured test: hypotheses, error rates, the scale, pairing, and a cap on games.

    ``max_games`` counts games (both games of a pair).  ``paired`` selects the
    pentanomial (pairs with the seats swapped) or the trinomial (single games).
    """

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int | None = 20_000
    min_pairs: int = 10
    model: EloModel = EloModel.LOGISTIC
    paired: bool = True

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError("elo1 must be greater than elo0")
        bounds(self.alpha, self.beta)  # validates
        EloModel(self.model)  # validates

    @property
    def max_pairs(self) -> int | None:
        """The cap in samples: pairs when paired, games otherwise."""
        if self.max_games is None:
            return None
        return self.max_games // 2 if self.paired else self.max_games

    def results(self, data: Counts) -> tuple[int, ...]:
        """The counts the test reads: the pentanomial when paired, else the trinomial."""
        return data.pentanomial if self.paired else data.trinomial

    def llr(self, data: Counts) -> float:
        return llr(self.results(data), self.elo0, self.elo1, self.model)

    def status_from_counts(self, data: Counts, overshoot: Overshoot | None = None) -> Status:
        """The status for these counts; with ``overshoot`` (the path so far) the bounds are corrected."""
        lower, upper = bounds(self.alpha, self.beta)
        value = self.llr(data)
        samples = sum(self.results(data))
        low, high = lower, upper
        if overshoot is not None:
            overshoot = overshoot.update(value, samples)
            low, high = lower + overshoot.lower_shift, upper - overshoot.upper_shift
        decision = decide(value, low, high, pairs=samples, max_pairs=self.max_pairs, min_pairs=self.min_pairs)
        return Status(data, value, low, high, decision, lower, upper, overshoot)

    def status(self, pairs: Iterable[tuple[float, float]]) -> Status:
        """Where the test stands after these pairs, in the order they finished, overshoot included.

        The LLR is followed pair by pair (the order matters only to the
        overshoot correction); the first decision reached stops the walk, as
        the test would have stopped there.
        """
        return self.path(pairs)[-1]

    def path(self, pairs: Iterable[tuple[float, float]]) -> list[Status]:
        """The test's status before any pair and after each pair, up to the first decision (see ``status``)."""
        tally = [0, 0, 0]  # losses, draws, wins
        penta = [0] * 5
        steps = [self.status_from_counts(counts([]), Overshoot())]
        for pair in pairs:
            single = counts([pair])
            tally = [t + c for t, c in zip(tally, single.trinomial, strict=True)]
            penta = [t + c for t, c in zip(penta, single.pentanomial, strict=True)]
            data = Counts(tally[2], tally[1], tally[0], (penta[0], penta[1], penta[2], penta[3], penta[4]))
            steps.append(self.status_from_counts(data, steps[-1].overshoot))
            if steps[-1].decision is not Decision.CONTINUE:
                break
        return steps
