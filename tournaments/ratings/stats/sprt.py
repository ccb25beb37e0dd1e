"""Sequential probability ratio test for "is the new version better?" on paired games.

Games come in pairs: the same seed played twice with the seats swapped, so
the first seat's edge and the deal cancel within a pair.  A pair's score for
the new version is 0, 0.5, 1, 1.5 or 2 (the pentanomial model); the five
counts are the data.

Hypotheses are about the new version's logistic Elo against the old one:
H0 ``elo = elo0`` (default 0) against H1 ``elo = elo1`` (default 10), with
the expected score of a game ``s(elo) = 1 / (1 + 10 ** (-elo / 400))``.

The log-likelihood ratio is the generalized SPRT approximation (Michel Van
den Bergh's, as used by Fishtest): treat the per-pair mean score ``x`` (the
pair score over 2, in [0, 1]) as normal with the sample variance ``var`` of
the observed pentanomial, and compare means ``s0 = s(elo0)`` and
``s1 = s(elo1)``::

    LLR = N * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)

for ``N`` pairs.  No draw model (no BayesElo draw parameter) is needed: the
draws and the correlation between the two games of a pair enter only
through ``var``.  The test stops when LLR leaves ``[ln(beta / (1 - alpha)),
ln((1 - beta) / alpha)]`` (Wald's bounds), or when a cap on the number of
games is reached, which is reported as inconclusive.

Degenerate data: an empty cell is replaced by a tiny count (1e-3, as
Fishtest does) so the variance is never zero, and no decision is taken
before ``min_pairs`` pairs (default 10), because a handful of identical
pairs would otherwise give a variance near zero and an immediate verdict.

Pure Python, no Django.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Iterable
from dataclasses import dataclass

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
EMPTY_CELL = 1e-3


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
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds on the LLR: (accept H0 at or below, accept H1 at or above)."""
    if not (0 < alpha < 1 and 0 < beta < 1):
        raise ValueError("alpha and beta must be in (0, 1)")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def llr(pentanomial: Iterable[float], elo0: float = 0.0, elo1: float = 10.0) -> float:
    """The GSPRT log-likelihood ratio of H1 over H0 from pentanomial counts (see the module docstring)."""
    cells = list(pentanomial)
    if len(cells) != 5:
        raise ValueError("pentanomial counts have five cells")
    n = sum(cells)
    if n <= 0:
        return 0.0
    # Regularised copy for the mean and variance; N stays the real count.
    reg = [max(float(c), EMPTY_CELL) for c in cells]
    total = sum(reg)
    xs = [score / 2.0 for score in PAIR_SCORES]
    mean = sum(c * x for c, x in zip(reg, xs, strict=True)) / total
    var = sum(c * (x - mean) ** 2 for c, x in zip(reg, xs, strict=True)) / total
    s0, s1 = expected_score(elo0), expected_score(elo1)
    return n * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)


def decide(
    value: float,
    lower: float,
    upper: float,
    *,
    pairs: int,
    max_pairs: int | None = None,
    min_pairs: int = 10,
) -> Decision:
    """The decision for an LLR ``value`` after ``pairs`` pairs."""
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
    """One look at the test: the counts, the LLR, the bounds and the decision."""

    counts: Counts
    llr: float
    lower: float
    upper: float
    decision: Decision

    def to_json(self) -> dict[str, object]:
        return {
            "wins": self.counts.wins,
            "draws": self.counts.draws,
            "losses": self.counts.losses,
            "pentanomial": list(self.counts.pentanomial),
            "llr": self.llr,
            "lower": self.lower,
            "upper": self.upper,
            "decision": self.decision.value,
        }


@dataclass(frozen=True)
class Sprt:
    """A configured test: hypotheses, error rates and a cap on games (``max_games``, both games of a pair count)."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int | None = 20_000
    min_pairs: int = 10

    def __post_init__(self) -> None:
        if not self.elo1 > self.elo0:
            raise ValueError("elo1 must be greater than elo0")
        bounds(self.alpha, self.beta)  # validates

    @property
    def max_pairs(self) -> int | None:
        return None if self.max_games is None else self.max_games // 2

    def status_from_counts(self, data: Counts) -> Status:
        lower, upper = bounds(self.alpha, self.beta)
        value = llr(data.pentanomial, self.elo0, self.elo1)
        decision = decide(value, lower, upper, pairs=data.pairs, max_pairs=self.max_pairs, min_pairs=self.min_pairs)
        return Status(data, value, lower, upper, decision)

    def status(self, pairs: Iterable[tuple[float, float]]) -> Status:
        """Where the test stands after these pairs (the new version's two game scores each)."""
        return self.status_from_counts(counts(pairs))
