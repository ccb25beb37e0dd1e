"""Board geometry and precomputed move tables for ``flagstacks`` (Stacks, 13x13).

Everything here is built once at import so that move generation only walks
tuples and looks strings up; nothing is formatted per ply.

Squares are indexed ``rank_index * 13 + file_index`` (a1 = 0, b1 = 1, ...,
m13 = 168).  A stack is stored as a string of kind letters, bottom to top
(``"fgr"``: a flag under a green under a red); its owner is kept separately.

A move's *action* is a small tuple decoded once here, so applying a listed
move never parses text:

* ``(WHOLE, from, to, "")``    move the lone piece or the whole stack;
* ``(OFF, from, to, kind)``    move one piece of ``kind`` off a stack;
* ``(ENTER, -1, to, kind)``    bring a piece of ``kind`` back from the reserve;
* ``(PASS_ACT, -1, -1, "")``   pass.
"""

from __future__ import annotations

SIZE = 13
FILES = "abcdefghijklm"
SQUARES = SIZE * SIZE

SQUARE_NAMES: tuple[str, ...] = tuple(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(SQUARES))
SQUARE_INDEX: dict[str, int] = {name: i for i, name in enumerate(SQUARE_NAMES)}

# Kind letters as they appear in stacks, notation and observations.
RED, GREEN, YELLOW, FLAG = "r", "g", "y", "f"
MOVERS = (RED, GREEN, YELLOW)  # kinds that move (and go to reserves)
KIND_INDEX = {RED: 0, GREEN: 1, YELLOW: 2}
PER_KIND = 4  # pieces of each moving kind per player
FLAGS = 2  # flags per player

# Directions as (file step, rank step).  Red moves along the rank, green
# along the file, yellow diagonally; flags never move on their own.
DIRECTIONS: tuple[tuple[int, int], ...] = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
KIND_DIRS: dict[str, tuple[int, ...]] = {RED: (0, 1), GREEN: (2, 3), YELLOW: (4, 5, 6, 7)}

START_ROW = "rgyygrfrgyygr"  # files a..m; "f" marks the flags' home (g)
HOME: tuple[int, int] = (6, 12 * SIZE + 6)  # g1 and g13
TARGETS: tuple[int, ...] = (6 * SIZE + 1, 6 * SIZE + 6, 6 * SIZE + 11)  # b7, g7, l7
TARGET_SET = frozenset(TARGETS)

WHOLE, OFF, ENTER, PASS_ACT = 0, 1, 2, 3
PASS_ACTION = (PASS_ACT, -1, -1, "")

Entry = tuple[int, str, tuple[int, int, int, str]]


def _step(sq: int, d: int, n: int) -> int | None:
    """The square ``n`` steps from ``sq`` in direction ``d``, or None off the board."""
    df, dr = DIRECTIONS[d]
    f, r = sq % SIZE + df * n, sq // SIZE + dr * n
    if 0 <= f < SIZE and 0 <= r < SIZE:
        return r * SIZE + f
    return None


def _whole_rays() -> tuple[tuple[tuple[Entry, ...], ...], ...]:
    """RAYS[sq][d]: up to four (square, text, action) steps, nearest first.

    Four is the most any stack can travel: a player has four pieces of a kind.
    """
    out = []
    for sq in range(SQUARES):
        per_dir = []
        for d in range(len(DIRECTIONS)):
            ray = []
            for n in range(1, PER_KIND + 1):
                t = _step(sq, d, n)
                if t is None:
                    break
                ray.append((t, f"{SQUARE_NAMES[sq]}-{SQUARE_NAMES[t]}", (WHOLE, sq, t, "")))
            per_dir.append(tuple(ray))
        out.append(tuple(per_dir))
    return tuple(out)


def _off_steps() -> tuple[dict[str, tuple[Entry, ...]], ...]:
    """OFF_STEPS[sq][kind]: the one-square moves of one ``kind`` piece taken off a stack."""
    out = []
    for sq in range(SQUARES):
        per_kind = {}
        for kind in MOVERS:
            steps = []
            for d in KIND_DIRS[kind]:
                t = _step(sq, d, 1)
                if t is not None:
                    steps.append((t, f"{SQUARE_NAMES[sq]}-{SQUARE_NAMES[t]}:{kind}", (OFF, sq, t, kind)))
            per_kind[kind] = tuple(steps)
        out.append(per_kind)
    return tuple(out)


def _entries() -> tuple[dict[str, tuple[Entry, ...]], ...]:
    """ENTRIES[seat][kind]: the start-row squares where a captured ``kind`` may come back."""
    out = []
    for seat in (0, 1):
        rank = 0 if seat == 0 else SIZE - 1
        per_kind = {}
        for kind in MOVERS:
            squares = [rank * SIZE + f for f in range(SIZE) if START_ROW[f] == kind]
            per_kind[kind] = tuple((t, f"+{kind}@{SQUARE_NAMES[t]}", (ENTER, -1, t, kind)) for t in squares)
        out.append(per_kind)
    return tuple(out)


RAYS = _whole_rays()
OFF_STEPS = _off_steps()
ENTRIES = _entries()

# Profile of a stack string: what it may do, cached per distinct string.
# (whole: ((direction, range), ...), off-kinds: (kind, ...), carries a flag)
Profile = tuple[tuple[tuple[int, int], ...], tuple[str, ...], bool]
_PROFILES: dict[str, Profile] = {}
_PROFILE_CACHE_LIMIT = 50_000  # bounds memory in long-lived workers


def profile(stack: str) -> Profile:
    """Directions with ranges, kinds that may step off, and whether a flag rides along."""
    found = _PROFILES.get(stack)
    if found is not None:
        return found
    whole: list[tuple[int, int]] = []
    for kind in MOVERS:
        n = stack.count(kind)
        if n:
            whole.extend((d, n) for d in KIND_DIRS[kind])
    # One piece off is a distinct move only from a real stack; a lone piece
    # moves by the plain form alone, so each move has exactly one notation.
    offs = tuple(k for k in MOVERS if k in stack) if len(stack) > 1 else ()
    result: Profile = (tuple(whole), offs, FLAG in stack)
    if len(_PROFILES) < _PROFILE_CACHE_LIMIT:
        _PROFILES[stack] = result
    return result


def start_squares() -> dict[int, tuple[int, str]]:
    """The start position as {square: (owner, stack)}."""
    out: dict[int, tuple[int, str]] = {}
    for seat in (0, 1):
        rank = 0 if seat == 0 else SIZE - 1
        for f, kind in enumerate(START_ROW):
            out[rank * SIZE + f] = (seat, FLAG * FLAGS if kind == FLAG else kind)
    return out
