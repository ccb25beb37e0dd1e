"""Brownian motion with drift between two absorbing bounds: what the SPRT estimate needs.

The LLR of a long SPRT behaves like ``W(t) = mu t + sigma B(t)`` started at
0 and stopped at ``a < 0`` or ``b > 0``.  Outcomes are ordered from worst
to best: failing (exiting at ``a``) sooner is worse than failing later, any
failure is worse than a path still inside the band, which is worse the lower
it sits, and any success (exiting at ``b``) is better still, the sooner the
better.  :func:`outcome_cdf` is the probability, at a given drift, of an
outcome no better than an observed one ``(T, y)``; it decreases as the drift
grows, which is what the median-unbiased estimate inverts.

Two formulas: the exact eigenfunction series of the killed process (it
converges fast unless ``sigma^2 T`` is small against the band), and
Siegmund's image approximation otherwise.
"""

from __future__ import annotations

import math

from tournaments.ratings.stats.numeric import normal_cdf


def _series_term(n: int, gamma: float, width: float, y: float) -> float:
    """``2/A exp(-gamma y)`` times a primitive of ``exp(gamma y) sin(n pi y / A)``, at ``y``."""
    k = math.pi * n / width
    return (2.0 * width * gamma * math.sin(k * y) - 2.0 * math.pi * n * math.cos(k * y)) / (
        width**2 * gamma**2 + (math.pi * n) ** 2
    )


def _cdf_series(a: float, b: float, mu: float, var: float, t: float, y: float) -> float:
    width = b - a
    start = -a  # the start, 0, measured from the lower bound
    level = y - a
    gamma = mu / var
    # Probability of exiting at a at some time (the classical gambler's-ruin formula).
    if gamma * width > 30.0:
        exit_low = math.exp(-2.0 * gamma * start)
    elif abs(gamma * width) < 1e-8:
        exit_low = start / width
    else:
        exit_low = (1.0 - math.exp(2.0 * gamma * (width - start))) / (1.0 - math.exp(2.0 * gamma * width))
    # Plus the paths inside at T below the level, less those of them that still pass later, as one
    # eigenfunction expansion of the killed process.
    lambda_1 = (math.pi / width) ** 2 * var / 2.0 + mu**2 / var / 2.0
    scale = math.exp(-lambda_1 * t - start * gamma + level * gamma)
    total = 0.0
    n = 1
    while True:
        lambda_n = (n * math.pi / width) ** 2 * var / 2.0 + mu**2 / var / 2.0
        decay = math.exp(-(lambda_n - lambda_1) * t)
        term = _series_term(n, gamma, width, level)
        total += decay * term * math.sin(n * math.pi * start / width)
        if abs(scale * decay * term) <= 1e-9 or n > 100_000:
            break
        n += 1
    return exit_low + scale * total


def _tail(z: float, exponent: float) -> float:
    """``exp(exponent) * Phi(z)`` for very negative ``z`` without overflow (asymptotic Mills ratio)."""
    return -math.exp(-(z**2) / 2.0 + exponent) / math.sqrt(2.0 * math.pi) * (1.0 / z - 1.0 / z**3)


def _cdf_siegmund(a: float, b: float, mu: float, var: float, t: float, y: float) -> float:
    spread = math.sqrt(t * var)
    offset = mu * t
    gamma = mu / var
    z = (y - offset) / spread
    z_a = (-y + offset + 2.0 * a) / spread
    z_b = (y - offset - 2.0 * b) / spread
    low = _tail(z_a, 2.0 * gamma * a) if gamma * a >= 5.0 else math.exp(2.0 * gamma * a) * normal_cdf(z_a)
    high = _tail(z_b, 2.0 * gamma * b) if gamma * b >= 5.0 else math.exp(2.0 * gamma * b) * normal_cdf(z_b)
    return normal_cdf(z) + low - high


def outcome_cdf(a: float, b: float, mu: float, var: float, t: float, y: float) -> float:
    """Probability of an outcome no better than ``(t, y)`` at drift ``mu`` and variance ``var`` per unit time.

    ``y`` is the LLR at time ``t``: inside ``[a, b]``, or on a bound when
    the test stopped there (see the module docstring for the order).
    """
    if var <= 0.0 or t <= 0.0:
        raise ValueError("variance and time must be positive")
    gamma = mu / var
    width = b - a
    if var * t / width**2 < 1e-2 or abs(gamma * width) > 15.0:
        value = _cdf_siegmund(a, b, mu, var, t, y)
    else:
        value = _cdf_series(a, b, mu, var, t, y)
    return min(1.0, max(0.0, value))
