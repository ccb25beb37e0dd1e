"""Board geometry and precomputed move tables for ``gamesup`` (The Game's Up!).

Built once at import so that move generation only indexes lists and dicts.
Squares are indexed ``rank * 6 + file`` (a1 = 0, b1 = 1, ..., f6 = 35); a
piece is one int, ``owner << 3 | face``.
"""

from __future__ import annotations

SIZE = 6
FILES = "abcdef"
COLOURS = ("blue", "red")
SQUARES = [FILES[i % SIZE] + str(i // SIZE + 1) for i in range(SIZE * SIZE)]
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARES)}
# Squares in the order their names sort ("a1" < "a2" < ... < "b1"), so that
# generating moves in this order yields an already sorted list.
NAME_ORDER = sorted(range(SIZE * SIZE), key=lambda i: SQUARES[i])

_DIRECTIONS = [(df, dr) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr]


def _build_tables() -> tuple[list[list[tuple[int, int]]], list[dict[int, str]], dict[str, tuple[int, int]]]:
    """Destinations per square, move names, and the parse table for move text.

    ``dests[sq]`` lists ``(to, over)`` sorted by the name of ``to``; ``over`` is
    -1 for a one-square step, else the square leapt over.
    """
    dests: list[list[tuple[int, int]]] = []
    names: list[dict[int, str]] = []
    parse: dict[str, tuple[int, int]] = {}
    for sq in range(SIZE * SIZE):
        f, r = sq % SIZE, sq // SIZE
        found = []
        for df, dr in _DIRECTIONS:
            f1, r1, f2, r2 = f + df, r + dr, f + 2 * df, r + 2 * dr
            if 0 <= f1 < SIZE and 0 <= r1 < SIZE:
                found.append((r1 * SIZE + f1, -1))
                if 0 <= f2 < SIZE and 0 <= r2 < SIZE:
                    found.append((r2 * SIZE + f2, r1 * SIZE + f1))
        found.sort(key=lambda pair: SQUARES[pair[0]])
        dests.append(found)
        row = {to: f"{SQUARES[sq]}-{SQUARES[to]}" for to, _ in found}
        names.append(row)
        for to, text in row.items():
            parse[text] = (sq, to)
    return dests, names, parse


DESTS, MOVE_NAMES, PARSE = _build_tables()
# OVER[frm][to]: the square leapt over, -1 for a step.
OVER = [{to: over for to, over in DESTS[sq]} for sq in range(SIZE * SIZE)]


def _single_captures(m: int, t: int) -> bool:
    """A single piece showing ``m`` (after inversion) may capture a top ``t``."""
    return m == t or m + t == 7 or t == m - 1


# SINGLE_CAP[m][t] precomputed: the rule is checked in the innermost loop.
SINGLE_CAP = [[m > 0 and t > 0 and _single_captures(m, t) for t in range(7)] for m in range(7)]

START_FACES: tuple[list[tuple[int, int]], ...] = (
    # Blue's back rank a1..f1 and the rank in front, a2..f2.
    [(0, f) for f in (1, 2, 3, 4, 5, 6)],
    [(0, f) for f in (6, 5, 4, 3, 2, 1)],
    [],
    [],
    # Red, named from Blue's side: a5..f5 then a6..f6.
    [(1, f) for f in (1, 2, 3, 4, 5, 6)],
    [(1, f) for f in (6, 5, 4, 3, 2, 1)],
)


def stack_value(stack: tuple[int, ...]) -> int:
    """Points a stack is worth to its owner (single pieces score nothing)."""
    if len(stack) < 2:
        return 0
    return sum(code & 7 for code in stack)
