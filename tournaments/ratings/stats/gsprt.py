"""The generalized log-likelihood ratio of the SPRT, computed exactly (no normal approximation).

The data are counts of outcome classes, lowest score first:

* trinomial ``(losses, draws, wins)`` for single games (values 0, 1/2, 1);
* pentanomial, for pairs of games with the seats swapped: pairs in which the
  candidate scored 0, 1/2, 1, 3/2 or 2 points (values 0, 1/4, ..., 1, the
  pair's score per game).

No model of draws or of the link between a pair's two games is assumed:
the outcome classes follow an unknown multinomial law, and a hypothesis fixes
only one number of it.

* Logistic Elo: the expected score per game, ``s = 1 / (1 + 10^(-elo/400))``.
* Normalized Elo: the t-value ``(mean - 1/2) / sd`` of a sample (one game,
  or one pair), scaled so that ``nelo = t_game * 800 / ln 10``.

For each hypothesis the law closest to the observed frequencies (maximum
likelihood) among those satisfying it is found, and the LLR is ``N`` times
the mean of ``log(p1 / p0)`` over the sample.  For a fixed expected score
the maximiser has the form ``p_i = f_i / (1 + x (a_i - s))`` with ``x``
the root of ``sum f_i (a_i - s) / (1 + x (a_i - s)) = 0`` (a Lagrange
condition: "the secular equation"); for a fixed t-value the same form holds
with a shifted ``a_i`` that depends on the solution's own mean and variance,
so it is solved by fixed-point iteration.  This is Michel Van den Bergh's
GSPRT as Fishtest runs it; empty classes get a count of 1e-3 first, as there.

Pure Python, no Django.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

# Count given to an empty outcome class so every law keeps full support.
EMPTY_CELL = 1e-3
# Normalized Elo per unit of t-value of a single game: 800 / ln 10.
NELO_PER_T = 800.0 / math.log(10.0)


def logistic_score(elo: float) -> float:
    """Expected score per game at a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def logistic_elo(score: float) -> float:
    """The logistic Elo difference whose expected score is ``score`` (in (0, 1))."""
    return -400.0 * math.log10(1.0 / score - 1.0)


def empirical(results: Sequence[float]) -> tuple[float, list[float], list[float]]:
    """``(N, values, frequencies)`` of trinomial or pentanomial counts, empty classes regularised.

    ``N`` is the regularised total, so a law fitted to these frequencies
    describes exactly ``N`` samples.
    """
    if len(results) not in (3, 5):
        raise ValueError("results are trinomial (3 counts) or pentanomial (5 counts)")
    if any(c < 0 for c in results):
        raise ValueError("counts cannot be negative")
    cells = [float(c) if c > 0 else EMPTY_CELL for c in results]
    total = sum(cells)
    last = len(cells) - 1
    return total, [k / last for k in range(len(cells))], [c / total for c in cells]


def mean_variance(values: Sequence[float], probs: Sequence[float]) -> tuple[float, float]:
    """Mean and variance of a discrete law."""
    mean = sum(p * a for a, p in zip(values, probs, strict=True))
    return mean, sum(p * (a - mean) ** 2 for a, p in zip(values, probs, strict=True))


def secular_root(shifts: Sequence[float], probs: Sequence[float]) -> float:
    """The ``x`` with ``sum p_i c_i / (1 + x c_i) = 0`` and every ``1 + x c_i > 0``.

    The left side decreases in ``x`` over that interval, from plus to minus
    infinity at its two poles, so the root is unique.  Newton's method; when
    its step would leave the bracket (the root sits near a pole, where a rare
    outcome class with its count of 1e-3 pulls it), the step solves instead
    the one-pole model ``A / (1 + x c_k) + B`` fitted to the value and slope,
    ``c_k`` being the pole on the root's side; bisection is the last resort.
    The LLR is stationary in ``x`` at the root, so 1e-13 is ample precision.
    """
    top, bottom = max(shifts), min(shifts)
    if not (top > 0.0 > bottom):
        raise ValueError("the outcome values must lie on both sides of the hypothesis")
    low, high = -1.0 / top, -1.0 / bottom
    x = 0.0
    for _ in range(200):
        value = slope = 0.0
        for c, p in zip(shifts, probs, strict=True):
            ratio = c / (1.0 + x * c)
            value += p * ratio
            slope -= p * ratio * ratio
        if value == 0.0:
            return x
        # A positive value puts the root to the right, toward the pole of the lowest shift.
        if value > 0.0:
            low, pole = x, bottom
        else:
            high, pole = x, top
        step = x - value / slope
        if not low < step < high:
            near = 1.0 + x * pole
            a = -slope * near * near / pole
            b = value - a / near
            if b != 0.0 and -a / b > 0.0:
                step = (-a / b - 1.0) / pole
            if not low < step < high:
                step = 0.5 * (low + high)
        if abs(step - x) <= 1e-13 * max(1.0, abs(x)):
            return step
        x = step
    return x


def mle_expected(values: Sequence[float], probs: Sequence[float], score: float) -> list[float]:
    """The law closest to ``probs`` (maximum likelihood) whose expectation is ``score``."""
    shifts = [a - score for a in values]
    x = secular_root(shifts, probs)
    return [p / (1.0 + x * c) for c, p in zip(shifts, probs, strict=True)]


def mle_t_value(values: Sequence[float], probs: Sequence[float], ref: float, t: float) -> list[float]:
    """The law closest to ``probs`` whose t-value ``(mean - ref) / sd`` is ``t``.

    Fixed point: given the current solution's mean and sd, the constraint
    is linearised into the secular form; repeat until the law stops moving.
    """
    law = [1.0 / len(values)] * len(values)
    for _ in range(100):
        mean, var = mean_variance(values, law)
        sd = math.sqrt(var)
        shifts = [a - ref - t * sd * (1.0 + ((mean - a) / sd) ** 2) / 2.0 for a in values]
        x = secular_root(shifts, probs)
        new = [p / (1.0 + x * c) for c, p in zip(shifts, probs, strict=True)]
        moved = max(abs(u - v) for u, v in zip(new, law, strict=True))
        law = new
        if moved < 1e-14:
            break
    return law


def _llr(probs: Sequence[float], law0: Sequence[float], law1: Sequence[float]) -> float:
    """Mean log-likelihood ratio per sample of ``law1`` over ``law0`` under the observed ``probs``."""
    return sum(p * math.log(q1 / q0) for p, q0, q1 in zip(probs, law0, law1, strict=True))


def llr_logistic(results: Sequence[float], elo0: float, elo1: float) -> float:
    """Exact GSPRT log-likelihood ratio of ``elo = elo1`` over ``elo = elo0`` (logistic Elo)."""
    if sum(results) <= 0:
        return 0.0
    n, values, probs = empirical(results)
    law0 = mle_expected(values, probs, logistic_score(elo0))
    law1 = mle_expected(values, probs, logistic_score(elo1))
    return n * _llr(probs, law0, law1)


def sample_t(nelo: float, outcomes: int) -> float:
    """The t-value of one sample (a game, or a pair of two) at a normalized Elo."""
    t_game = nelo / NELO_PER_T
    # A pair sums two games: its mean gains sqrt(2) standard deviations over one game's.
    return t_game * math.sqrt(2.0) if outcomes == 5 else t_game


def llr_normalized(results: Sequence[float], nelo0: float, nelo1: float) -> float:
    """Exact GSPRT log-likelihood ratio of ``nelo = nelo1`` over ``nelo = nelo0`` (normalized Elo)."""
    if sum(results) <= 0:
        return 0.0
    n, values, probs = empirical(results)
    outcomes = len(results)
    law0 = mle_t_value(values, probs, 0.5, sample_t(nelo0, outcomes))
    law1 = mle_t_value(values, probs, 0.5, sample_t(nelo1, outcomes))
    return n * _llr(probs, law0, law1)


def per_game_sd(results: Sequence[float]) -> float:
    """The observed standard deviation of one game's score (from pairs: sqrt(2) times the pair mean's)."""
    _, values, probs = empirical(results)
    _, var = mean_variance(values, probs)
    return math.sqrt(2.0 * var if len(results) == 5 else var)
