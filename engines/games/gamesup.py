"""The Game's Up!: a 6x6 game of inverting, moving, stacking and scoring.

Rules: ``docs/rules/gamesup.md`` (for bot authors).

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

from engines.base import JSON, PASS, Engine, IllegalMoveError, Option, Result, State
from engines.games._gamesup_load import load_state
from engines.games._gamesup_tables import (
    COLOURS,
    DESTS,
    MOVE_NAMES,
    NAME_ORDER,
    OVER,
    PARSE,
    SINGLE_CAP,
    SIZE,
    SQUARE_INDEX,
    SQUARES,
    START_FACES,
    stack_value,
)
from engines.ranks import ranks_from_scores


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
    )
    _header_keys = ("game", "version", "options", "seats", "seed", "ply")

    def __init__(self, engine: GamesUpEngine, options: dict[str, Any], seed: int) -> None:
        self._setup(engine, options, seed)
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
                scores[stack[-1] >> 3] += stack_value(stack)
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
            scores[moving[-1] >> 3] -= stack_value(moving)
        if len(target) >= 2:
            scores[target[-1] >> 3] -= stack_value(target)
        moved = (*moving[:-1], moving[-1] ^ 7)
        landed = target + moved if target else moved
        stacks[frm] = ()
        stacks[to] = landed
        self._top[frm] = 0
        self._height[frm] = 0
        self._top[to] = landed[-1]
        self._height[to] = len(landed)
        if len(landed) >= 2:
            scores[landed[-1] >> 3] += stack_value(landed)

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
            **self._header(),
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
        new = self._copy_common()
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
        return self._load_checked(lambda d: load_state(self, d, GamesUpState), data)


ENGINE = GamesUpEngine()

__all__ = ["ENGINE", "SQUARES", "SQUARE_INDEX", "GamesUpEngine", "GamesUpState"]
