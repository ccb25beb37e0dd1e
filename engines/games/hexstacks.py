"""Stacks, the hexagon race game, and its variant Diabolical Stacks (``hexstacks``).

Rules for bot authors: docs/rules/hexstacks.md.  Two players race 12 pieces
each across a hexagon of hexes; pieces stack, and a piece under an
opponent's piece is stuck.

The board's geometry (rows, neighbours, move text) is described and built
in :mod:`engines.games._hexstacks_geometry`.

Seat 0 moves toward higher rows, seat 1 toward lower rows.

A move is one action, so a turn of two 1-point actions is two plies by the
same seat.  The engine ends a turn itself when its points are spent, or when
one point is left and no 1-point action exists.

A seat with no action at the start of its turn passes.  Two passes in a row
cannot happen, so no game can stall: a stuck seat still has a piece on the
board (else it would have exited all 12 and won) and every such stack is
topped by the opponent, who can therefore move.  ``max_plies`` bounds every
game regardless.

Performance: the geometry (neighbours, move strings, the parse table) is
built once per board size; a state holds the stacks as tuples (cheap to
clone) and, per seat, the set of hexes whose top piece is that seat's, which
are exactly the hexes it can move from in either variant.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engines.base import JSON, PASS, Engine, IllegalMoveError, Option, Result, State
from engines.games._hexstacks_geometry import ENTER, PIECES, STEP, geometry
from engines.games._hexstacks_load import load_state
from engines.ranks import ranks_from_scores


def _top_run(stack: tuple[int, ...], seat: int) -> int:
    """How many of ``seat``'s pieces lie above the highest opponent piece."""
    k = 0
    for colour in reversed(stack):
        if colour != seat:
            break
        k += 1
    return k


class HexStacksState(State):
    """A position of hexstacks; see the module docstring for the representation."""

    __slots__ = (
        "_legal",
        "diabolical",
        "exited",
        "geo",
        "last_move",
        "max_plies",
        "points",
        "seat",
        "stacks",
        "supply",
        "tops",
    )
    # Written without seats (always two) since the first stored state.
    _header_keys = ("engine", "version", "options", "seed", "ply")

    def __init__(self, engine: Engine, options: dict[str, Any], seed: int) -> None:
        self._setup(engine, options, seed)
        self.geo = geometry(options["size"])
        self.diabolical: bool = options["diabolical"]
        self.max_plies: int = options["max_plies"]
        self.stacks: list[tuple[int, ...]] = [()] * self.geo.count
        self.tops: list[set[int]] = [set(), set()]
        self.supply = [PIECES, PIECES]
        self.exited = [0, 0]
        self.seat = 0  # whose turn it is (kept after the game ends, for to_json)
        self.points = 1  # the first turn of the game has one point
        self.last_move: str | None = None
        self._legal: list[str] | None = None

    # -- rules ----------------------------------------------------------------

    def _winner(self) -> int | None:
        for s in (0, 1):
            if self.exited[s] == PIECES:
                return s
        return None

    def is_terminal(self) -> bool:
        return self.ply >= self.max_plies or PIECES in self.exited

    def to_move(self) -> int | None:
        return None if self.is_terminal() else self.seat

    def _actions(self, points: int) -> list[str]:
        """Every action of the seat to move that costs at most ``points``, unsorted."""
        seat = self.seat
        geo = self.geo
        stacks = self.stacks
        out: list[str] = []
        add = out.append
        if self.supply[seat]:
            enter_text = geo.enter_text
            for h in geo.near[seat]:
                if points == 2 or not stacks[h]:
                    add(enter_text[h])
        steps = geo.steps[seat]
        is_far = geo.is_far[seat]
        diabolical = self.diabolical
        for h in self.tops[seat]:
            stack = stacks[h]
            # Most stacks are one piece high, or have an opponent piece second.
            run = 1 if len(stack) == 1 or stack[-2] != seat else _top_run(stack, seat)
            if is_far[h]:
                out.extend(geo.exit_text[h][1 : run + 1])
            # Diabolical steps may carry the whole stack, whatever its colours.
            reach = len(stack) if diabolical else run
            for target, texts in steps[h]:
                if points == 2 or not stacks[target]:
                    out.extend(texts[1 : reach + 1])
        return out

    def legal_moves(self) -> list[str]:
        if self._legal is None:
            if self.is_terminal():
                self._legal = []
            else:
                moves = self._actions(self.points)
                # The engine ends a turn with one point left and nothing to
                # spend it on, so an empty list here means the turn has just
                # begun: the seat passes.
                self._legal = sorted(moves) if moves else [PASS]
        return list(self._legal)

    def apply(self, move: str) -> None:
        legal = self._legal if self._legal is not None else self.legal_moves()
        if not isinstance(move, str) or move not in legal:
            raise IllegalMoveError(f"{move!r} is not a legal move here (seat {self.seat}, {self.points} point(s) left)")
        seat = self.seat
        self.ply += 1
        self.last_move = move
        self._legal = None
        if move == PASS:
            self._end_turn()
            return
        kind, src, dst, n = self.geo.parse[move]
        stacks = self.stacks
        if kind == ENTER:
            cost = 2 if stacks[dst] else 1
            self.supply[seat] -= 1
            self._set(dst, stacks[dst] + (seat,))
        elif kind == STEP:
            cost = 2 if stacks[dst] else 1
            moving = stacks[src][-n:]
            self._set(src, stacks[src][:-n])
            self._set(dst, stacks[dst] + moving)
        else:
            cost = 1
            self._set(src, stacks[src][:-n])
            self.exited[seat] += n
        self.points -= cost
        if self.points == 0:
            self._end_turn()
        elif not self.is_terminal():
            # One point left: the turn goes on only if a 1-point action exists.
            cheap = self._actions(1)
            if cheap:
                self._legal = sorted(cheap)
            else:
                self._end_turn()

    def _set(self, h: int, stack: tuple[int, ...]) -> None:
        """Replace the stack on ``h``, keeping the per-seat top sets in step."""
        old = self.stacks[h]
        if old:
            self.tops[old[-1]].discard(h)
        if stack:
            self.tops[stack[-1]].add(h)
        self.stacks[h] = stack

    def _end_turn(self) -> None:
        self.seat = 1 - self.seat
        self.points = 2

    def result(self) -> Result | None:
        if not self.is_terminal():
            return None
        scores = tuple(self.exited)
        if self._winner() is not None:
            reason = f"seat {self._winner()} exited all {PIECES} pieces"
        else:
            reason = "ply cap reached: more pieces exited wins"
        return Result(ranks=ranks_from_scores(scores), reason=reason, scores=scores)

    # -- views ----------------------------------------------------------------

    def public_observation(self) -> dict[str, JSON]:
        names = self.geo.names
        return {
            "board": self.geo.summary(),
            "stacks": {names[h]: list(s) for h, s in enumerate(self.stacks) if s},
            "supply": list(self.supply),
            "exited": list(self.exited),
            "to_move": self.to_move(),
            "points": self.points if not self.is_terminal() else 0,
            "last_move": self.last_move,
            "ply": self.ply,
            "options": dict(self.options),
        }

    def observation(self, seat: int) -> dict[str, JSON]:
        # Perfect information: every seat sees exactly what spectators see.
        return self.public_observation()

    def to_json(self) -> dict[str, JSON]:
        names = self.geo.names
        return {
            **self._header(),
            "seat": self.seat,
            "points": self.points,
            "stacks": {names[h]: list(s) for h, s in enumerate(self.stacks) if s},
            "supply": list(self.supply),
            "exited": list(self.exited),
            "last_move": self.last_move,
        }

    def clone(self) -> HexStacksState:
        other = self._copy_common()
        other.geo = self.geo
        other.diabolical = self.diabolical
        other.max_plies = self.max_plies
        other.stacks = list(self.stacks)  # the tuples themselves are immutable
        other.tops = [set(self.tops[0]), set(self.tops[1])]
        other.supply = list(self.supply)
        other.exited = list(self.exited)
        other.seat = self.seat
        other.points = self.points
        other.last_move = self.last_move
        other._legal = self._legal  # replaced, never mutated, so sharing is safe
        return other


class HexStacksEngine(Engine):
    """Stacks on a hexagon, standard or Diabolical."""

    id = "hexstacks"
    name = "Stacks (hexagon race) / Diabolical Stacks"
    version = "1"
    seat_counts = (2,)
    options = (
        Option("size", int, 4, "hexes on each side of the hexagon", minimum=3, maximum=6),
        Option(
            "diabolical",
            bool,
            False,
            "Diabolical Stacks: move any part of a stack you top, whatever its colours",
            pool=True,
        ),
        Option("max_plies", int, 400, "the game ends after this many moves (actions)", minimum=1, maximum=100_000),
    )
    rules_doc = "docs/rules/hexstacks.md"
    example_configs = (
        (2, {}),
        (2, {"diabolical": True}),
        (2, {"size": 3}),
        (2, {"size": 6, "diabolical": True}),
        (2, {"size": 3, "diabolical": True, "max_plies": 60}),
    )

    def new_state(
        self, options: Mapping[str, Any] | None = None, seed: int = 0, seats: int | None = None
    ) -> HexStacksState:
        """The empty board, both supplies full, seat 0 to move with one point."""
        full = self.validate_options(options, seats)
        return HexStacksState(self, full, seed)

    def state_from_json(self, data: Mapping[str, JSON]) -> HexStacksState:
        """Load :meth:`HexStacksState.to_json` output, checking it is a reachable-looking position."""
        return self._load_checked(lambda d: load_state(self, d, HexStacksState), data)


ENGINE = HexStacksEngine()

__all__ = ["ENGINE", "PIECES", "HexStacksEngine", "HexStacksState", "geometry"]
