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

from collections.abc import Mapping
from typing import Any

from engines.base import JSON, PASS, Engine, IllegalMoveError, Option, Result, State
from engines.games._pileup_load import load_state
from engines.games._pileup_tables import (
    COLOURS,
    MOVE_TEXT,
    NUMBERS,
    PARSE,
    PLACE_TEXT,
    RAYS,
    SIZE,
    SQUARE_INDEX,
    SQUARE_NAMES,
    hand_order,
)
from engines.ranks import ranks_from_scores

REASON_STACKED = "a player has at most one piece outside stacks"
REASON_PASSES = "both players passed"
REASON_PLY_CAP = "ply limit reached"


class PileUpState(State):
    """A Pile Up position.  Seat 0 is Black and moves first."""

    __slots__ = (
        "_cache",
        "_needs_higher",
        "_over",
        "cells",
        "hands",
        "last_move",
        "loose",
        "passes",
        "turn",
    )

    def __init__(self, engine: Engine, options: dict[str, Any], seed: int) -> None:
        self._setup(engine, options, seed)
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
            **self._header(),
            "turn": self.turn,
            "passes": self.passes,
            "last_move": self.last_move,
            "board": {SQUARE_NAMES[sq]: [[c >> 4, c & 15] for c in cell] for sq, cell in enumerate(self.cells) if cell},
            "hands": [sorted(hand) for hand in self.hands],
        }

    def clone(self) -> PileUpState:
        """An independent copy (stack tuples are immutable and shared)."""
        other = self._copy_common()
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
        return self._load_checked(lambda d: load_state(self, d, PileUpState), data)


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

__all__ = [
    "ENGINE",
    "REASON_PASSES",
    "REASON_PLY_CAP",
    "REASON_STACKED",
    "SQUARE_INDEX",
    "SQUARE_NAMES",
    "PileUpEngine",
    "PileUpState",
    "hand_order",
    "position",
]
