"""Board geometry and precomputed move text for ``pileup``.

Built once at import so that move generation and parsing only index tuples
and look strings up.  Squares are indexed ``file * 8 + rank`` so that index
order is also the alphabetical order of square names.
"""

from __future__ import annotations

SIZE = 8
NUMBERS = tuple(range(1, 11))
COLOURS = ("black", "white")

SQUARE_NAMES: tuple[str, ...] = tuple(f"{'abcdefgh'[i // SIZE]}{i % SIZE + 1}" for i in range(SIZE * SIZE))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}


def hand_order(numbers: list[int] | tuple[int, ...]) -> list[int]:
    """Numbers in the order their placement strings sort: "10@" < "1@" < "2@" ... < "9@"."""
    return sorted(numbers, key=lambda n: f"{n}@")


def _rays() -> tuple[tuple[tuple[int, ...], ...], ...]:
    """For every square, the squares along each of the 8 directions, nearest first."""
    out = []
    for sq in range(SIZE * SIZE):
        f0, r0 = divmod(sq, SIZE)
        rays = []
        for df in (-1, 0, 1):
            for dr in (-1, 0, 1):
                if df == dr == 0:
                    continue
                ray = []
                f, r = f0 + df, r0 + dr
                while 0 <= f < SIZE and 0 <= r < SIZE:
                    ray.append(f * SIZE + r)
                    f, r = f + df, r + dr
                if ray:
                    rays.append(tuple(ray))
        out.append(tuple(rays))
    return tuple(out)


RAYS = _rays()
# PLACE_TEXT[n][sq] and MOVE_TEXT[from][to]: move strings built once, not per ply.
PLACE_TEXT: tuple[tuple[str, ...], ...] = tuple(
    tuple(f"{n}@{name}" for name in SQUARE_NAMES) if n else () for n in range(11)
)
MOVE_TEXT: tuple[tuple[str, ...], ...] = tuple(tuple(f"{a}-{b}" for b in SQUARE_NAMES) for a in SQUARE_NAMES)
# Every well-formed move text -> ("place", number, square) or ("move", from, to).
PARSE: dict[str, tuple[str, int, int]] = {}
for _n in NUMBERS:
    for _sq in range(SIZE * SIZE):
        PARSE[PLACE_TEXT[_n][_sq]] = ("place", _n, _sq)
for _a in range(SIZE * SIZE):
    for _ray in RAYS[_a]:
        for _b in _ray:
            PARSE[MOVE_TEXT[_a][_b]] = ("move", _a, _b)
