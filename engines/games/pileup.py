"""Pile Up (Rey Alicea, 2014): place numbered pieces, jump and capture to build stacks.

The rules are settled in ``docs/rules/pileup.md``.  In brief: two players each
hold pieces 1-10; a turn places one piece on an empty square or moves a single
piece in a straight line, jumping over lower pieces and landing on (capturing)
a lower enemy single or enemy-topped 2-stack.  Captures are forced.  Stacks
score the sum of their numbers for the owner of the top piece.

Representation (chosen for playout speed):

* squares are indexed ``file * 8 + rank`` so that index order is also the
  alphabetical order of square names (``a1, a2, ..., a8, b1, ...``), which lets
  placement moves be produced already sorted;
* each square holds a tuple of piece codes bottom to top (empty tuple when
  empty); a piece code is ``seat * 16 + number``;
* move text is parsed through one precomputed dict, so malformed text costs a
  single failed lookup and needs no regular expressions.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from engines.base import (
    JSON,
    PASS,
    Engine,
    IllegalMoveError,
    InvalidStateError,
    Option,
    Result,
    State,
    ranks_from_scores,
)

SIZE = 8
NUMBERS = tuple(range(1, 11))
COLOURS = ("black", "white")
REASON_STACKED = "a player has at most one piece outside stacks"
REASON_PASSES = "both players passed"
REASON_PLY_CAP = "ply limit reached"

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


class PileUpState(State):
    """A Pile Up position.  Seat 0 is Black and moves first."""

    __slots__ = (
        "_cache",
        "_needs_higher",
        "_over",
        "cells",
        "engine",
        "hands",
        "last_move",
        "loose",
        "options",
        "passes",
        "ply",
        "seats",
        "seed",
        "turn",
    )

    def __init__(self, engine: Engine, options: dict[str, Any], seed: int) -> None:
        self.engine = engine
        self.options = options
        self.seats = 2
        self.seed = seed
        self.ply = 0
        self.cells: list[tuple[int, ...]] = [()] * (SIZE * SIZE)
        # Hands are kept in placement-string order so moves come out sorted.
        self.hands: list[list[int]] = [hand_order(NUMBERS), hand_order(NUMBERS)]
        # Pieces per seat not in any stack (hand + singles on the board).
        self.loose = [10, 10]
        self.turn = 0
        self.passes = 0
        self.last_move: str | None = None
        self._needs_higher: bool = options["capture_needs_higher"]
        self._over: str | None = None
        # (captures, slides) for the current position, or None when stale.
        self._cache: tuple[list[str], list[str]] | None = None

    # -- move generation ----------------------------------------------------

    def _generate(self) -> tuple[list[str], list[str]]:
        """(captures, non-capturing moves) of the side to move, each sorted."""
        cache = self._cache
        if cache is not None:
            return cache
        me = self.turn
        cells = self.cells
        needs_higher = self._needs_higher
        captures: list[str] = []
        slides: list[str] = []
        for sq in range(SIZE * SIZE):
            cell = cells[sq]
            if len(cell) != 1 or cell[0] >> 4 != me:
                continue
            v = cell[0] & 15
            names = MOVE_TEXT[sq]
            for ray in RAYS[sq]:
                jumped = False  # passed over at least one piece
                after_piece = False  # the previous square held a piece
                for t in ray:
                    target = cells[t]
                    if not target:
                        if after_piece or not jumped:
                            slides.append(names[t])
                        after_piece = False
                        continue
                    top = target[-1]
                    tv = top & 15
                    if top >> 4 != me and len(target) <= 2 and (tv < v or not needs_higher):
                        captures.append(names[t])
                    if tv >= v:
                        break
                    jumped = after_piece = True
        # Origins are visited in alphabetical order; only targets need sorting.
        captures.sort()
        slides.sort()
        self._cache = (captures, slides)
        return self._cache

    def legal_moves(self) -> list[str]:
        """Every legal move, sorted; captures only when one exists; ``pass`` only alone."""
        if self._over is not None:
            return []
        captures, slides = self._generate()
        if captures:
            return list(captures)
        cells = self.cells
        empties = [sq for sq in range(SIZE * SIZE) if not cells[sq]]
        out: list[str] = []
        for n in self.hands[self.turn]:
            texts = PLACE_TEXT[n]
            out += [texts[sq] for sq in empties]
        out += slides
        return out or [PASS]

    # -- playing ------------------------------------------------------------

    def apply(self, move: str) -> None:
        """Play ``move``; IllegalMoveError (state unchanged) unless it is legal."""
        if self._over is not None:
            raise IllegalMoveError("the game is over")
        if not isinstance(move, str):
            raise IllegalMoveError(f"a move is a string, not {move!r}")
        captures, slides = self._generate()
        me = self.turn
        if move == PASS:
            if captures or slides or self.hands[me]:
                raise IllegalMoveError("pass is only legal when nothing else is")
            self.passes += 1
        else:
            parsed = PARSE.get(move)
            if parsed is None:
                raise IllegalMoveError(f"malformed move {move!r}")
            kind, a, b = parsed
            if kind == "place":
                if captures:
                    raise IllegalMoveError(f"{move}: a capture is available and must be made")
                hand = self.hands[me]
                if a not in hand:
                    raise IllegalMoveError(f"{move}: piece {a} is not in hand")
                if self.cells[b]:
                    raise IllegalMoveError(f"{move}: {SQUARE_NAMES[b]} is occupied")
                hand.remove(a)
                self.cells[b] = (me * 16 + a,)
            elif move in captures:
                target = self.cells[b]
                self.cells[b] = target + self.cells[a]
                self.cells[a] = ()
                self.loose[me] -= 1
                if len(target) == 1:
                    self.loose[1 - me] -= 1
            elif not captures and move in slides:
                self.cells[b] = self.cells[a]
                self.cells[a] = ()
            else:
                raise IllegalMoveError(f"{move} is not legal here")
            self.passes = 0
        self.last_move = move
        self.ply += 1
        self.turn = 1 - me
        self._cache = None
        self._over = self._end_reason()

    def _end_reason(self) -> str | None:
        """Why the game is over now, or None; checked after every turn."""
        if self.loose[0] <= 1 or self.loose[1] <= 1:
            return REASON_STACKED
        if self.passes >= 2:
            return REASON_PASSES
        if self.ply >= self.options["max_plies"]:
            return REASON_PLY_CAP
        return None

    def to_move(self) -> int | None:
        """The seat to move, or None once the game is over."""
        return None if self._over is not None else self.turn

    def is_terminal(self) -> bool:
        """True when the game is over."""
        return self._over is not None

    def scores(self) -> list[int]:
        """Per seat: the sum of every piece number in every stack whose top it owns."""
        out = [0, 0]
        for cell in self.cells:
            if len(cell) >= 2:
                out[cell[-1] >> 4] += sum(code & 15 for code in cell)
        return out

    def result(self) -> Result | None:
        """Ranks by score (equal scores draw), once the game is over."""
        if self._over is None:
            return None
        scores = self.scores()
        return Result(ranks=ranks_from_scores(scores), reason=self._over, scores=tuple(scores))

    # -- views --------------------------------------------------------------

    def public_observation(self) -> dict[str, JSON]:
        """Everything: the game has no secrets."""
        board = {
            SQUARE_NAMES[sq]: [{"colour": COLOURS[code >> 4], "number": code & 15} for code in cell]
            for sq, cell in enumerate(self.cells)
            if cell
        }
        return {
            "board": board,
            "colours": list(COLOURS),
            "hands": [sorted(hand) for hand in self.hands],
            "outside_stacks": list(self.loose),
            "scores": self.scores(),
            "to_move": self.to_move(),
            "last_move": self.last_move,
            "passes_in_a_row": self.passes,
            "ply": self.ply,
            "options": dict(self.options),
        }

    def observation(self, seat: int) -> dict[str, JSON]:
        """Same as the public observation: both seats see everything."""
        return self.public_observation()

    def to_json(self) -> dict[str, JSON]:
        """The full state; the end of the game is recomputed on load, not stored."""
        return {
            "engine": self.engine.id,
            "version": self.engine.version,
            "options": dict(self.options),
            "seats": self.seats,
            "seed": self.seed,
            "ply": self.ply,
            "turn": self.turn,
            "passes": self.passes,
            "last_move": self.last_move,
            "board": {SQUARE_NAMES[sq]: [[c >> 4, c & 15] for c in cell] for sq, cell in enumerate(self.cells) if cell},
            "hands": [sorted(hand) for hand in self.hands],
        }

    def clone(self) -> PileUpState:
        """An independent copy (stack tuples are immutable and shared)."""
        other = PileUpState.__new__(PileUpState)
        other.engine = self.engine
        other.options = self.options
        other.seats = 2
        other.seed = self.seed
        other.ply = self.ply
        other.cells = self.cells[:]
        other.hands = [self.hands[0][:], self.hands[1][:]]
        other.loose = self.loose[:]
        other.turn = self.turn
        other.passes = self.passes
        other.last_move = self.last_move
        other._needs_higher = self._needs_higher
        other._over = self._over
        # The cached lists are never mutated in place, so sharing them is safe.
        other._cache = self._cache
        return other


class PileUpEngine(Engine):
    """Pile Up for two players on an 8x8 board."""

    id = "pileup"
    name = "Pile Up"
    version = "1"
    seat_counts = (2,)
    rules_doc = "docs/rules/pileup.md"
    options = (
        Option(
            "max_plies",
            int,
            200,
            "The game ends and is scored after this many plies.",
            minimum=1,
            maximum=100_000,
        ),
        Option(
            "capture_needs_higher",
            bool,
            True,
            "A capture needs a higher number than the captured top; when false, equal or "
            "higher enemy singles and enemy-topped 2-stacks may be captured too.",
            pool=True,
        ),
    )
    example_configs = (
        (2, {}),
        (2, {"capture_needs_higher": False}),
    )

    def new_state(self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None) -> State:
        """The empty board, both hands full, Black (seat 0) to move."""
        seats = self.default_seats() if seats is None else seats
        opts = self.validate_options(options, seats)
        return PileUpState(self, opts, seed)

    def state_from_json(self, data: Mapping[str, JSON]) -> State:
        """Load :meth:`PileUpState.to_json` output, checking every piece is accounted for."""
        try:
            return self._load(data)
        except InvalidStateError:
            raise
        except Exception as exc:  # any shape error in untrusted data
            raise InvalidStateError(f"bad pileup state: {exc!r}") from exc

    def _load(self, data: Mapping[str, JSON]) -> PileUpState:
        if not isinstance(data, Mapping):
            raise InvalidStateError("state must be an object")
        if data.get("engine") != self.id:
            raise InvalidStateError(f"not a {self.id} state")
        if data.get("version") != self.version:
            raise InvalidStateError(f"state version {data.get('version')!r}, engine is {self.version}")
        seats = data.get("seats")
        opts = self.validate_options(data.get("options"), seats)
        seed = _int(data.get("seed"), "seed")
        state = PileUpState(self, opts, seed)
        state.ply = _int(data.get("ply"), "ply", 0, opts["max_plies"])
        state.turn = _int(data.get("turn"), "turn", 0, 1)
        state.passes = _int(data.get("passes"), "passes", 0, 2)
        last = data.get("last_move")
        if last is not None and not isinstance(last, str):
            raise InvalidStateError("last_move must be a string or null")
        state.last_move = last

        seen: list[list[int]] = [[], []]
        hands = data.get("hands")
        if not isinstance(hands, list) or len(hands) != 2:
            raise InvalidStateError("hands must be a list of two lists")
        for seat, hand in enumerate(hands):
            if not isinstance(hand, list):
                raise InvalidStateError("each hand must be a list")
            nums = [_int(n, "hand number", 1, 10) for n in hand]
            seen[seat] += nums
            state.hands[seat] = hand_order(nums)
        board = data.get("board")
        if not isinstance(board, Mapping):
            raise InvalidStateError("board must be an object")
        loose = [len(state.hands[0]), len(state.hands[1])]
        for name, pieces in board.items():
            if name not in SQUARE_INDEX:
                raise InvalidStateError(f"no square {name!r}")
            if not isinstance(pieces, list) or not 1 <= len(pieces) <= 3:
                raise InvalidStateError(f"{name}: a square holds 1 to 3 pieces")
            codes = []
            for piece in pieces:
                if not isinstance(piece, list) or len(piece) != 2:
                    raise InvalidStateError(f"{name}: a piece is [seat, number]")
                seat = _int(piece[0], "piece seat", 0, 1)
                number = _int(piece[1], "piece number", 1, 10)
                seen[seat].append(number)
                codes.append(seat * 16 + number)
            # A capture always puts a piece on an enemy top, so colours alternate.
            if any(x >> 4 == y >> 4 for x, y in itertools.pairwise(codes)):
                raise InvalidStateError(f"{name}: adjacent pieces of a stack share a colour")
            if len(codes) == 1:
                loose[codes[0] >> 4] += 1
            state.cells[SQUARE_INDEX[name]] = tuple(codes)
        for seat in (0, 1):
            if sorted(seen[seat]) != list(NUMBERS):
                raise InvalidStateError(f"seat {seat} must have each of pieces 1-10 exactly once")
        state.loose = loose
        state._over = state._end_reason()
        return state


def _int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    """``value`` as a checked int (bools refused), else InvalidStateError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStateError(f"{what} must be an integer, got {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InvalidStateError(f"{what} out of range: {value!r}")
    return value


def position(
    board: Mapping[str, str],
    hands: tuple[list[int], list[int]] | list[list[int]],
    *,
    turn: int = 0,
    options: Mapping[str, Any] | None = None,
    ply: int = 0,
) -> PileUpState:
    """A constructed position, for tests, puzzles and bot authors.

    ``board`` maps square names to pieces bottom to top, such as
    ``{"d4": "b7", "e5": "w1 b2"}`` (``b`` Black / seat 0, ``w`` White / seat 1).
    Unlike :meth:`PileUpEngine.state_from_json` the pieces need not be complete
    sets: a position may leave out pieces that do not matter to it.
    """
    state = PileUpState(ENGINE, ENGINE.validate_options(options), seed=0)
    state.ply = ply
    state.turn = turn
    state.hands = [hand_order(hands[0]), hand_order(hands[1])]
    state.loose = [len(hands[0]), len(hands[1])]
    for name, text in board.items():
        codes = tuple(("bw".index(tok[0])) * 16 + int(tok[1:]) for tok in text.split())
        state.cells[SQUARE_INDEX[name]] = codes
        if len(codes) == 1:
            state.loose[codes[0] >> 4] += 1
    state._over = state._end_reason()
    return state


ENGINE = PileUpEngine()
