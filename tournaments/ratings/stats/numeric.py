"""Small numerical helpers shared by the rating statistics: the normal law and a root finder.

The service keeps no numerical dependency (no SciPy): the normal law comes
from the standard library and the one root finder the SPRT estimate needs is
a safeguarded bisection, ample for the handful of solves a request makes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from statistics import NormalDist

_STANDARD = NormalDist()


def normal_cdf(x: float) -> float:
    """The standard normal distribution function ``Phi(x)``."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def normal_quantile(p: float) -> float:
    """The standard normal quantile: ``normal_cdf(normal_quantile(p)) == p``."""
    return _STANDARD.inv_cdf(p)


def bisect_root(f: Callable[[float], float], low: float, high: float, *, tolerance: float = 1e-10) -> float:
    """A root of ``f`` in ``[low, high]``, where ``f(low)`` and ``f(high)`` differ in sign.

    Plain bisection: every function it is used on is monotone and cheap, and
    bisection cannot be thrown off by the flat tails those functions have.
    Raises ValueError when the ends do not bracket a root.
    """
    f_low, f_high = f(low), f(high)
    if f_low == 0.0:
        return low
    if f_high == 0.0:
        return high
    if (f_low > 0.0) == (f_high > 0.0):
        raise ValueError("the interval does not bracket a root")
    for _ in range(200):
        middle = 0.5 * (low + high)
        if high - low <= tolerance * (1.0 + abs(middle)):
            break
        f_middle = f(middle)
        if f_middle == 0.0:
            return middle
        if (f_middle > 0.0) == (f_low > 0.0):
            low, f_low = middle, f_middle
        else:
            high = middle
    return 0.5 * (low + high)
