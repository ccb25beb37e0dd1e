"""Static tables for the ``sequence`` engine: board layout, squares, lines, move text.

Everything here is computed once at import, so the engine's hot paths only
index into tuples and dicts.  Squares are integers ``rank_index * 10 + file``
(``a1`` is 0, ``j1`` is 9, ``a10`` is 90).
"""

from __future__ import annotations

SIZE = 10

# Square contents as bit masks: empty, a chip of team t is 1 << t, a corner counts for all.
EMPTY = 0
CORNER = 0b111

# The board as the rules print it: rank 10 first, files a to j; ``XX`` is a corner.
LAYOUT_ROWS = (
    "XX 2S 3S 4S 5S 6S 7S 8S 9S XX",
    "6C 5C 4C 3C 2C AH KH QH TH TS",
    "7C AS 2D 3D 4D 5D 6D 7D 9H QS",
    "8C KS 6C 5C 4C 3C 2C 8D 8H KS",
    "9C QS 7C 6H 5H 4H AH 9D 7H AS",
    "TC TS 8C 7H 2H 3H KH TD 6H 2D",
    "QC 9S 9C 8H 9H TH QH QD 5H 3D",
    "KC 8S TC QC KC AC AD KD 4H 4D",
    "AC 7S 6S 5S 4S 3S 2S 2H 3H 5D",
    "XX AD KD QD TD 9D 8D 7D 6D XX",
)
CORNER_CODE = "XX"

RANKS = "A23456789TJQK"
SUITS = "SHDC"
TWO_EYED = ("JC", "JD")
ONE_EYED = ("JH", "JS")
JACKS = frozenset(TWO_EYED + ONE_EYED)
# One standard deck; the game uses two of them.
DECK = tuple(rank + suit for rank in RANKS for suit in SUITS)
FULL_DECK = DECK + DECK

FILES = "abcdefghij"
SQUARE_NAMES = tuple(f"{FILES[i % SIZE]}{i // SIZE + 1}" for i in range(SIZE * SIZE))
SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}

# Card code on each square (index order), built from the printed rows.
LAYOUT: tuple[str, ...] = tuple(LAYOUT_ROWS[SIZE - 1 - (i // SIZE)].split()[i % SIZE] for i in range(SIZE * SIZE))
CORNERS = tuple(i for i, code in enumerate(LAYOUT) if code == CORNER_CODE)
NON_CORNERS = tuple(i for i in range(SIZE * SIZE) if LAYOUT[i] != CORNER_CODE)

# The two squares of every non-jack card.
CARD_SQUARES: dict[str, tuple[int, ...]] = {}
for _sq, _code in enumerate(LAYOUT):
    if _code != CORNER_CODE:
        CARD_SQUARES[_code] = (*CARD_SQUARES.get(_code, ()), _sq)

# Squares ordered by their names as strings ("a1" < "a10" < "a2"), so moves can
# be generated already sorted instead of sorting every ply.
NAME_ORDER = tuple(sorted(range(SIZE * SIZE), key=lambda sq: SQUARE_NAMES[sq]))
NON_CORNERS_BY_NAME = tuple(sq for sq in NAME_ORDER if LAYOUT[sq] != CORNER_CODE)
CARD_SQUARES_BY_NAME = {card: tuple(sorted(sqs, key=lambda sq: SQUARE_NAMES[sq])) for card, sqs in CARD_SQUARES.items()}

# Move text per card and square, precomputed: placing uses "@", removing "-".
PLACE_TEXT = {card: tuple(f"{card}@{name}" for name in SQUARE_NAMES) for card in DECK if card not in ONE_EYED}
REMOVE_TEXT = {card: tuple(f"{card}-{name}" for name in SQUARE_NAMES) for card in ONE_EYED}
DEAD_TEXT = {card: f"dead:{card}" for card in DECK if card not in JACKS}

# Directions in the order the rules take candidate windows: horizontal stepping
# right, vertical stepping up, diagonal right-and-up, diagonal right-and-down.
DIRECTIONS = ((1, 0), (0, 1), (1, 1), (1, -1))


def _line_through(sq: int, df: int, dr: int) -> tuple[tuple[int, ...], int]:
    """The whole board line through ``sq`` in direction (df, dr), in step order, and sq's place in it."""
    f, r = sq % SIZE, sq // SIZE
    while 0 <= f - df < SIZE and 0 <= r - dr < SIZE:
        f, r = f - df, r - dr
    line = []
    while 0 <= f < SIZE and 0 <= r < SIZE:
        line.append(r * SIZE + f)
        f, r = f + df, r + dr
    return tuple(line), line.index(sq)


# LINES[sq] holds one (line, position) pair per direction, in DIRECTIONS order.
LINES: tuple[tuple[tuple[tuple[int, ...], int], ...], ...] = tuple(
    tuple(_line_through(sq, df, dr) for df, dr in DIRECTIONS) for sq in range(SIZE * SIZE)
)


def _reach(line: tuple[int, ...], pos: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Up to four squares behind and ahead of ``line[pos]`` (nearest first) and the segment they span."""
    start, end = max(0, pos - 4), min(len(line), pos + 5)
    return tuple(reversed(line[start:pos])), line[pos + 1 : end], line[start:end]


# REACH[sq]: per direction (DIRECTIONS order) the squares behind and ahead of sq
# that a window of five through sq can use, and their segment in step order.
# Directions whose whole line is shorter than five are left out.
REACH: tuple[tuple[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]], ...], ...] = tuple(
    tuple(_reach(line, pos) for line, pos in LINES[sq] if len(line) >= 5) for sq in range(SIZE * SIZE)
)


def deal_size(seats: int) -> int:
    """Cards dealt to each player for ``seats`` players."""
    return {2: 7, 3: 6, 4: 6, 6: 5, 8: 4, 9: 4, 10: 3, 12: 3}[seats]
