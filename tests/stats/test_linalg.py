"""Pure-Python Cholesky solve and inverse against a direct check."""

from __future__ import annotations

import random
from operator import mul

import pytest

from tournaments.ratings.stats.linalg import (
    NotPositiveDefiniteError,
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    sandwich,
)


def _spd(rng: random.Random, n: int) -> list[list[float]]:
    a = [[rng.gauss(0, 1) for _ in range(n)] for _ in range(n)]
    # A A^T + n I is symmetric positive definite.
    return [[sum(map(mul, a[i], a[j])) + (n if i == j else 0.0) for j in range(n)] for i in range(n)]


def test_solve_and_inverse() -> None:
    rng = random.Random(3)
    m = _spd(rng, 17)
    low = cholesky(m)
    b = [rng.gauss(0, 1) for _ in range(17)]
    x = cholesky_solve(low, b)
    assert [sum(map(mul, row, x)) for row in m] == pytest.approx(b, abs=1e-9)
    inv = cholesky_inverse(low)
    for i in range(17):
        for j in range(17):
            value = sum(m[i][k] * inv[k][j] for k in range(17))
            assert value == pytest.approx(1.0 if i == j else 0.0, abs=1e-9)


def test_singular_matrix_is_refused() -> None:
    with pytest.raises(NotPositiveDefiniteError):
        cholesky([[1.0, 1.0], [1.0, 1.0]])


def test_sandwich_product() -> None:
    rng = random.Random(4)
    a, b = _spd(rng, 9), _spd(rng, 9)
    out = sandwich(a, b)
    ab = [[sum(a[i][k] * b[k][j] for k in range(9)) for j in range(9)] for i in range(9)]
    aba = [[sum(ab[i][k] * a[k][j] for k in range(9)) for j in range(9)] for i in range(9)]
    for i in range(9):
        assert out[i] == pytest.approx(aba[i], rel=1e-12)
        assert out[i] == [row[i] for row in out]
