"""The Game's Up!: a 6x6 game of inverting, moving, stacking and scoring.

Rules: ``/work/shared/rules/gamesup.md`` (settled text) and
``docs/rules/gamesup.md`` (for bot authors).

Representation, chosen for fast random playouts:

* squares are indexed ``rank * 6 + file`` (a1 = 0, b1 = 1, ..., f6 = 35);
* a piece is one int, ``owner << 3 | face``.  Faces are 1..6 and the two
  faces of a piece add up to 7, so inverting a piece is ``code ^ 7``;
* the board is three flat lists: ``_stacks`` (tuples, bottom to top),
  ``_top`` (top piece code, 0 when empty) and ``_height``.  Tuples make a
  clone a handful of shallow list copies.

Move generation walks squares in notation order and destinations in a
precomputed name order, so the legal move list comes out sorted without a sort.
"""

from __future__ import annotations

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


def _stack_value(stack: tuple[int, ...]) -> int:
    """Points a stack is worth to its owner (single pieces score nothing)."""
    if len(stack) < 2:
        return 0
    return sum(code & 7 for code in stack)


class GamesUpState(State):
    """One position of The Game's Up!."""

    __slots__ = (
        "_height",
        "_last",
        "_legal",
        "_no_return",
        "_passes",
        "_result",
        "_rotation",
        "_scores",
        "_stacks",
        "_top",
        "_turn",
        "engine",
        "options",
        "ply",
        "seats",
        "seed",
    )

    def __init__(self, engine: GamesUpEngine, options: dict[str, Any], seed: int) -> None:
        self.engine = engine
        self.options = options
        self.seats = 2
        self.seed = seed
        self.ply = 0
        self._stacks: list[tuple[int, ...]] = [() for _ in range(SIZE * SIZE)]
        self._top = [0] * (SIZE * SIZE)
        self._height = [0] * (SIZE * SIZE)
        self._turn = 0
        self._scores = [0, 0]
        self._last: str | None = None
        # (from, to) of the one move the no-return rule forbids, or None.
        self._no_return: tuple[int, int] | None = None
        self._rotation = 0
        self._passes = 0
        self._result: Result | None = None
        # Legal moves of this position, computed once and reused by apply.
        self._legal: list[str] | None = None

    # -- setup --------------------------------------------------------------

    def _place(self, sq: int, stack: tuple[int, ...]) -> None:
        self._stacks[sq] = stack
        self._top[sq] = stack[-1] if stack else 0
        self._height[sq] = len(stack)

    def _recount_scores(self) -> list[int]:
        scores = [0, 0]
        for stack in self._stacks:
            if len(stack) >= 2:
                scores[stack[-1] >> 3] += _stack_value(stack)
        return scores

    # -- queries ------------------------------------------------------------

    def to_move(self) -> int | None:
        return None if self._result is not None else self._turn

    def is_terminal(self) -> bool:
        return self._result is not None

    def result(self) -> Result | None:
        return self._result

    def legal_moves(self) -> list[str]:
        if self._result is not None:
            return []
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        # A copy, so a caller that edits its list cannot corrupt the cache.
        return list(legal)

    def _generate(self) -> list[str]:
        """Every legal move of the side to move, sorted; ``[PASS]`` if none."""
        me = self._turn
        top = self._top
        height = self._height
        out: list[str] = []
        append = out.append
        nr_from, nr_to = self._no_return or (-1, -1)
        for frm in NAME_ORDER:
            code = top[frm]
            if not code:
                continue
            names = MOVE_NAMES[frm]
            if code >> 3 == me:
                m = (code & 7) ^ 7
                if height[frm] == 1:
                    cap = SINGLE_CAP[m]
                    for to, over in DESTS[frm]:
                        # A single piece leaps only over its owner's piece or stack.
                        if over >= 0:
                            o = top[over]
                            if not o or o >> 3 != me:
                                continue
                        t = top[to]
                        if t and (t >> 3 == me or not cap[t & 7]):
                            continue
                        if frm == nr_from and to == nr_to:
                            continue
                        append(names[to])
                else:
                    for to, over in DESTS[frm]:
                        if over >= 0:
                            continue  # stacks never leap
                        t = top[to]
                        if t and (t >> 3 == me or m <= (t & 7)):
                            continue
                        if frm == nr_from and to == nr_to:
                            continue
                        append(names[to])
            elif height[frm] == 1:
                # The opponent's single piece: onto empty squares only, leaping
                # only over a piece or stack of that piece's own colour.
                for to, over in DESTS[frm]:
                    if top[to]:
                        continue
                    if over >= 0:
                        o = top[over]
                        if not o or o >> 3 == me:
                            continue
                    if frm == nr_from and to == nr_to:
                        continue
                    append(names[to])
        if not out:
            out.append(PASS)
        return out

    # -- moving -------------------------------------------------------------

    def apply(self, move: str) -> None:
        if self._result is not None:
            raise IllegalMoveError(f"the game is over; {move!r} cannot be played")
        legal = self._legal
        if legal is None:
            legal = self._legal = self._generate()
        if not isinstance(move, str) or move not in legal:
            raise IllegalMoveError(self._explain(move, legal))
        # Validated: from here on nothing can fail, so mutating is safe.
        self._legal = None
        self.ply += 1
        if move == PASS:
            self._passes += 1
            self._last = PASS
            self._no_return = None
        else:
            frm, to = PARSE[move]
            self._move(frm, to)
            self._passes = 0
            self._last = move
            self._no_return = (to, frm)
            self._rotation += 1
        self._turn ^= 1
        self._result = self._finish()

    def _move(self, frm: int, to: int) -> None:
        stacks = self._stacks
        scores = self._scores
        moving = stacks[frm]
        target = stacks[to]
        # Take out what the two squares were worth, then add back their new worth.
        if len(moving) >= 2:
            scores[moving[-1] >> 3] -= _stack_value(moving)
        if len(target) >= 2:
            scores[target[-1] >> 3] -= _stack_value(target)
        moved = (*moving[:-1], moving[-1] ^ 7)
        landed = target + moved if target else moved
        stacks[frm] = ()
        stacks[to] = landed
        self._top[frm] = 0
        self._height[frm] = 0
        self._top[to] = landed[-1]
        self._height[to] = len(landed)
        if len(landed) >= 2:
            scores[landed[-1] >> 3] += _stack_value(landed)

    def _finish(self) -> Result | None:
        """The result if the game is over in this position, else None."""
        scores = self._scores
        target = self.options["target"]
        if scores[0] >= target or scores[1] >= target:
            reason = "target score reached"
        elif self._passes >= 2:
            reason = "two passes in a row"
        elif self.ply >= self.options["max_plies"]:
            reason = "ply cap reached"
        else:
            return None
        # Only the mover's score can rise on a move, so whoever reached the
        # target has the higher score: ranking by score is right in every case.
        return Result(ranks=ranks_from_scores(scores), reason=reason, scores=tuple(scores))

    def _explain(self, move: object, legal: list[str]) -> str:
        """Why ``move`` is not legal here, for the error message."""
        side = COLOURS[self._turn]
        if not isinstance(move, str):
            return f"a move must be a string, not {type(move).__name__}"
        if move == PASS:
            return f"{side} cannot pass: passing is allowed only with no other legal move"
        if legal == [PASS]:
            return f"{side} has no legal move and must play 'pass', not {move!r}"
        parsed = PARSE.get(move)
        if parsed is None:
            if move.strip() in PARSE or move.lower() in PARSE:
                return f"malformed move {move!r}: use lower case with no spaces, like 'c2-d3'"
            return (
                f"malformed move {move!r}: expected 'from-to' between squares one or two "
                f"apart in a straight line (like 'c2-d3' or 'a1-a3'), or 'pass'"
            )
        frm, to = parsed
        code = self._top[frm]
        if not code:
            return f"illegal move {move!r}: {SQUARES[frm]} is empty"
        if self._no_return == (frm, to):
            return f"illegal move {move!r}: it undoes the last move {self._last!r} (no return)"
        mine = code >> 3 == self._turn
        if not mine and self._height[frm] > 1:
            return f"illegal move {move!r}: {side} may not move an opponent's stack"
        if OVER[frm][to] >= 0 and self._height[frm] > 1:
            return f"illegal move {move!r}: stacks never leap"
        return f"illegal move {move!r} for {side}; legal moves are {', '.join(legal)}"

    # -- output -------------------------------------------------------------

    def observation(self, seat: int) -> dict[str, JSON]:
        # Perfect information: every seat sees exactly what spectators see.
        return self.public_observation()

    def public_observation(self) -> dict[str, JSON]:
        board = []
        for sq in range(SIZE * SIZE):
            stack = self._stacks[sq]
            board.append(
                {
                    "square": SQUARES[sq],
                    "owner": (stack[-1] >> 3) if stack else None,
                    "pieces": [{"owner": code >> 3, "face": code & 7} for code in stack],
                }
            )
        no_return = self._no_return
        return {
            "board": board,
            "scores": list(self._scores),
            "to_move": self.to_move(),
            "last_move": self._last,
            "no_return": MOVE_NAMES[no_return[0]][no_return[1]] if no_return else None,
            "rotation": self._rotation,
            "ply": self.ply,
            "passes": self._passes,
            "colours": list(COLOURS),
            "options": dict(self.options),
        }

    def to_json(self) -> dict[str, JSON]:
        no_return = self._no_return
        return {
            "game": GamesUpEngine.id,
            "version": GamesUpEngine.version,
            "options": dict(self.options),
            "seats": 2,
            "seed": self.seed,
            "ply": self.ply,
            "turn": self._turn,
            "board": [[[code >> 3, code & 7] for code in stack] for stack in self._stacks],
            "scores": list(self._scores),
            "last_move": self._last,
            "no_return": [SQUARES[no_return[0]], SQUARES[no_return[1]]] if no_return else None,
            "rotation": self._rotation,
            "passes": self._passes,
            "result": self._result.to_json() if self._result is not None else None,
        }

    def clone(self) -> GamesUpState:
        new = GamesUpState.__new__(GamesUpState)
        new.engine = self.engine
        new.options = self.options  # never mutated after validation
        new.seats = 2
        new.seed = self.seed
        new.ply = self.ply
        new._stacks = self._stacks[:]  # stacks are tuples: sharing them is safe
        new._top = self._top[:]
        new._height = self._height[:]
        new._turn = self._turn
        new._scores = self._scores[:]
        new._last = self._last
        new._no_return = self._no_return
        new._rotation = self._rotation
        new._passes = self._passes
        new._result = self._result
        new._legal = self._legal  # never mutated in place, only replaced
        return new


class GamesUpEngine(Engine):
    """The Game's Up! for two seats: Blue (seat 0) and Red (seat 1)."""

    id = "gamesup"
    name = "The Game's Up!"
    version = "1"
    seat_counts = (2,)
    options = (
        Option(
            "target",
            int,
            21,
            "score that ends the game and wins it (13 is the short game)",
            minimum=2,
            maximum=144,
            pool=True,
        ),
        Option("max_plies", int, 300, "ply cap: the game ends and is scored after this many plies", 1, 10000),
    )
    rules_doc = "docs/rules/gamesup.md"
    # The third config makes random games hit the ply cap (and draws) often.
    example_configs = ((2, {}), (2, {"target": 13}), (2, {"target": 40, "max_plies": 80}))

    def new_state(self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None) -> State:
        opts = self.validate_options(options, 2 if seats is None else seats)
        state = GamesUpState(self, opts, seed)
        for rank, row in enumerate(START_FACES):
            for file, (owner, face) in enumerate(row):
                state._place(rank * SIZE + file, (owner << 3 | face,))
        state._result = state._finish()
        return state

    def state_from_json(self, data: Mapping[str, JSON]) -> State:
        try:
            return self._load(data)
        except InvalidStateError:
            raise
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise InvalidStateError(f"bad gamesup state: {exc!r}") from exc

    def _load(self, data: Mapping[str, JSON]) -> GamesUpState:
        if not isinstance(data, Mapping):
            raise InvalidStateError("a gamesup state must be a JSON object")
        if data.get("game", self.id) != self.id:
            raise InvalidStateError(f"not a gamesup state: game is {data.get('game')!r}")
        opts = self.validate_options(data.get("options", {}), data.get("seats", 2))
        seed = _int(data.get("seed", 0), "seed")
        state = GamesUpState(self, opts, seed)
        state.ply = _int(data["ply"], "ply", 0)
        if state.ply > opts["max_plies"]:
            raise InvalidStateError(f"ply {state.ply} is past the ply cap {opts['max_plies']}")
        turn = _int(data["turn"], "turn", 0)
        if turn > 1:
            raise InvalidStateError(f"turn must be 0 or 1, got {turn}")
        state._turn = turn
        board = data["board"]
        if not isinstance(board, list) or len(board) != SIZE * SIZE:
            raise InvalidStateError("board must be a list of 36 squares (a1, b1, ..., f6)")
        kinds = [[0, 0, 0], [0, 0, 0]]  # pieces per colour per kind (1/6, 2/5, 3/4)
        for sq, pieces in enumerate(board):
            if not isinstance(pieces, list):
                raise InvalidStateError(f"square {SQUARES[sq]} must hold a list of pieces")
            stack = []
            for piece in pieces:
                if not isinstance(piece, list) or len(piece) != 2:
                    raise InvalidStateError(f"a piece on {SQUARES[sq]} must be [owner, face], got {piece!r}")
                owner, face = piece
                if type(owner) is not int or owner not in (0, 1):
                    raise InvalidStateError(f"bad piece owner on {SQUARES[sq]}: {owner!r}")
                if type(face) is not int or face not in (1, 2, 3, 4, 5, 6):
                    raise InvalidStateError(f"bad piece face on {SQUARES[sq]}: {face!r}")
                kinds[owner][min(face, 7 - face) - 1] += 1
                stack.append(owner << 3 | face)
            state._place(sq, tuple(stack))
        if any(n > 4 for row in kinds for n in row):
            raise InvalidStateError("a colour has more than four pieces of one kind")
        scores = state._recount_scores()
        if "scores" in data and data["scores"] != scores:
            raise InvalidStateError(f"scores {data['scores']!r} do not match the board ({scores})")
        state._scores = scores
        last = data.get("last_move")
        if last is not None and last != PASS and last not in PARSE:
            raise InvalidStateError(f"bad last_move {last!r}")
        state._last = last
        no_return = data.get("no_return")
        if no_return is not None:
            if not isinstance(no_return, list) or len(no_return) != 2:
                raise InvalidStateError("no_return must be [from, to] or null")
            frm, to = (SQUARE_INDEX[s] for s in no_return)
            if to not in OVER[frm]:
                raise InvalidStateError(f"no_return {no_return!r} is not a move")
            state._no_return = (frm, to)
        state._rotation = _int(data.get("rotation", 0), "rotation", 0)
        passes = _int(data.get("passes", 0), "passes", 0)
        if passes > 2:
            raise InvalidStateError(f"passes must be 0, 1 or 2, got {passes}")
        state._passes = passes
        state._result = state._finish()
        stored = data.get("result")
        if stored is not None and (state._result is None or stored != state._result.to_json()):
            raise InvalidStateError("the stored result does not match the position")
        if stored is None and "result" in data and state._result is not None:
            raise InvalidStateError("the position is over but no result is stored")
        return state


def _int(value: object, name: str, minimum: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidStateError(f"{name} must be an integer, got {value!r}")
    if minimum is not None and value < minimum:
        raise InvalidStateError(f"{name} must be at least {minimum}, got {value}")
    return value


ENGINE = GamesUpEngine()
