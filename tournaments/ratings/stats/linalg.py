"""Dense symmetric positive-definite algebra in plain Python.

The rating fit needs to solve with, and invert, an information matrix of one
row per player (about a hundred in a large tournament).  That is small enough
for a Cholesky factorisation in pure Python to take milliseconds, which keeps
the service free of a numerical dependency.  Inner products go through
``sum(map(operator.mul, ...))``, the fastest dot product CPython offers
without extensions.
"""

from __future__ import annotations

import math
from operator import mul

Matrix = list[list[float]]


class NotPositiveDefiniteError(ArithmeticError):
    """The matrix has a pivot that is not positive (singular or indefinite)."""


def cholesky(a: Matrix) -> Matrix:
    """Lower-triangular ``L`` with ``L @ L.T == a``; only the lower triangle of ``a`` is read."""
    n = len(a)
    low: Matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row_i = low[i]
        for j in range(i + 1):
            row_j = low[j]
            s = a[i][j] - sum(map(mul, row_i[:j], row_j[:j]))
            if i == j:
                if not s > 0.0:  # also catches NaN
                    raise NotPositiveDefiniteError(f"pivot {i} is {s!r}")
                row_i[i] = math.sqrt(s)
            else:
                row_i[j] = s / row_j[j]
    return low


def cholesky_solve(low: Matrix, b: list[float]) -> list[float]:
    """Solve ``(L @ L.T) x = b`` given the factor ``L`` from :func:`cholesky`."""
    n = len(low)
    y = [0.0] * n
    for i in range(n):
        row = low[i]
        y[i] = (b[i] - sum(map(mul, row[:i], y[:i]))) / row[i]
    # Back substitution with L.T: column i of L is read as row i of L.T.
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        s = y[i]
        for k in range(i + 1, n):
            s -= low[k][i] * x[k]
        x[i] = s / low[i][i]
    return x


def cholesky_inverse(low: Matrix) -> Matrix:
    """The full inverse of ``L @ L.T`` given its factor ``L``.

    ``inv(L L^T) = inv(L)^T inv(L)``: entry (i, j) is the dot product of
    columns i and j of ``inv(L)``.  Each column is found by forward
    substitution; it is zero above its own index, which the slices use.
    """
    n = len(low)
    # columns[i][k - i] = inv(L)[k][i] for k >= i.
    columns: list[list[float]] = []
    for i in range(n):
        col = [0.0] * (n - i)
        col[0] = 1.0 / low[i][i]
        for k in range(i + 1, n):
            row = low[k]
            # Row k of L times the known part of the column, offset by i.
            col[k - i] = -sum(map(mul, row[i:k], col[: k - i])) / row[k]
        columns.append(col)
    inverse: Matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        ci = columns[i]
        for j in range(i, n):
            # Both columns are non-zero only from index j on.
            value = sum(map(mul, ci[j - i :], columns[j]))
            inverse[i][j] = value
            inverse[j][i] = value
    return inverse


def sandwich(outer: Matrix, middle: Matrix) -> Matrix:
    """``A @ B @ A`` for symmetric ``A`` (``outer``) and ``B`` (``middle``).

    Symmetry lets every product read rows only: column ``j`` of a symmetric
    matrix is its row ``j``, so each entry is one C-speed dot product.
    """
    n = len(outer)
    # left[i][j] = (A B)[i][j] = row i of A . column j of B (= row j of B).
    left = [[sum(map(mul, a_row, b_row)) for b_row in middle] for a_row in outer]
    out: Matrix = [[0.0] * n for _ in range(n)]
    for i in range(n):
        left_i = left[i]
        for j in range(i, n):
            value = sum(map(mul, left_i, outer[j]))
            out[i][j] = value
            out[j][i] = value
    return out
