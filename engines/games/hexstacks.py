"""Stacks, the hexagon race game, and its variant Diabolical Stacks (``hexstacks``).

Rules: /work/shared/rules/hexstacks.md, explained for bot authors in
docs/rules/hexstacks.md.  Two players race 12 pieces each across a hexagon
of hexes; pieces stack, and a piece under an opponent's piece is stuck.

Board geometry (row ``r`` of ``2*size-1`` rows, hex ``c`` from the left):

* rows grow by one hex up to the middle row ``size`` and then shrink again;
* toward a longer row, hex ``c`` touches hexes ``c`` and ``c+1`` of it;
* toward a shorter row, hex ``c`` touches hexes ``c-1`` and ``c`` of it
  (those that exist), so the end hexes of a row touch only one hex there.

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
from functools import cache
from typing import Any

from engines.base import (
    JSON,
    PASS,
    Engine,
    IllegalMoveError,
    InvalidOptionsError,
    InvalidStateError,
    Option,
    Result,
    State,
    ranks_from_scores,
)

PIECES = 12  # per player
MAX_HEIGHT = 2 * PIECES  # the tallest possible stack

# Action kinds in the parse table.
ENTER, STEP, EXIT = 0, 1, 2


class Geometry:
    """Everything about a board of one size that never changes during a game."""

    def __init__(self, size: int) -> None:
        self.size = size
        nrows = 2 * size - 1
        self.row_lengths = [size + min(r, nrows - 1 - r) for r in range(nrows)]
        self.names: list[str] = []
        self.row_of: list[int] = []  # 1-based row
        self.col_of: list[int] = []  # 1-based hex in its row
        first: list[int] = []  # index of each row's first hex
        for r, length in enumerate(self.row_lengths, start=1):
            first.append(len(self.names))
            for c in range(1, length + 1):
                self.names.append(f"r{r}c{c}")
                self.row_of.append(r)
                self.col_of.append(c)
        self.count = len(self.names)
        self.index = {name: i for i, name in enumerate(self.names)}

        def hexes_of(row: int, cols: tuple[int, ...]) -> tuple[int, ...]:
            length = self.row_lengths[row - 1]
            return tuple(first[row - 1] + c - 1 for c in cols if 1 <= c <= length)

        # forward[seat][hex]: the hexes one row nearer the seat's far edge.
        self.forward: list[list[tuple[int, ...]]] = [[], []]
        for h in range(self.count):
            r, c = self.row_of[h], self.col_of[h]
            for seat, nxt in ((0, r + 1), (1, r - 1)):
                if not 1 <= nxt <= nrows:
                    self.forward[seat].append(())
                elif self.row_lengths[nxt - 1] > self.row_lengths[r - 1]:
                    self.forward[seat].append(hexes_of(nxt, (c, c + 1)))
                else:
                    self.forward[seat].append(hexes_of(nxt, (c - 1, c)))
        self.near_row = (1, nrows)
        self.far_row = (nrows, 1)
        self.near: tuple[tuple[int, ...], tuple[int, ...]] = (
            tuple(h for h in range(self.count) if self.row_of[h] == 1),
            tuple(h for h in range(self.count) if self.row_of[h] == nrows),
        )
        self.is_far = [
            [self.row_of[h] == nrows for h in range(self.count)],
            [self.row_of[h] == 1 for h in range(self.count)],
        ]

        # Move text is built once here so that move generation only picks strings.
        self.enter_text = ["+" + name for name in self.names]
        self.exit_text = [[""] + [f"{name}-offx{n}" for n in range(1, MAX_HEIGHT + 1)] for name in self.names]
        # steps[seat][hex]: ((target, texts by count), ...)
        self.steps: list[list[tuple[tuple[int, list[str]], ...]]] = [[], []]
        self.parse: dict[str, tuple[int, int, int, int]] = {}
        for seat in (0, 1):
            for h in self.near[seat]:
                self.parse[self.enter_text[h]] = (ENTER, -1, h, 1)
            for h in range(self.count):
                entries = []
                for t in self.forward[seat][h]:
                    texts = [""] + [f"{self.names[h]}-{self.names[t]}x{n}" for n in range(1, MAX_HEIGHT + 1)]
                    for n in range(1, MAX_HEIGHT + 1):
                        self.parse[texts[n]] = (STEP, h, t, n)
                    entries.append((t, texts))
                self.steps[seat].append(tuple(entries))
                if self.is_far[seat][h]:
                    for n in range(1, MAX_HEIGHT + 1):
                        self.parse[self.exit_text[h][n]] = (EXIT, h, -1, n)

    def summary(self) -> dict[str, JSON]:
        """The geometry as bots see it in every observation."""
        return {
            "size": self.size,
            "rows": len(self.row_lengths),
            "row_lengths": list(self.row_lengths),
            "hexes": self.count,
            "near_row": list(self.near_row),
            "far_row": list(self.far_row),
        }


@cache
def geometry(size: int) -> Geometry:
    """The shared, immutable geometry of the board with ``size`` hexes a side."""
    return Geometry(size)


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
        "engine",
        "exited",
        "geo",
        "last_move",
        "max_plies",
        "options",
        "ply",
        "points",
        "seat",
        "seats",
        "seed",
        "stacks",
        "supply",
        "tops",
    )

    def __init__(self, engine: Engine, options: dict[str, Any], seed: int) -> None:
        self.engine = engine
        self.options = options
        self.seats = 2
        self.seed = seed
        self.ply = 0
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
            "engine": self.engine.id,
            "version": self.engine.version,
            "options": dict(self.options),
            "seed": self.seed,
            "ply": self.ply,
            "seat": self.seat,
            "points": self.points,
            "stacks": {names[h]: list(s) for h, s in enumerate(self.stacks) if s},
            "supply": list(self.supply),
            "exited": list(self.exited),
            "last_move": self.last_move,
        }

    def clone(self) -> HexStacksState:
        other = object.__new__(HexStacksState)
        other.engine = self.engine
        other.options = self.options  # never mutated after validation
        other.seats = 2
        other.seed = self.seed
        other.ply = self.ply
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
        try:
            return self._load(data)
        except InvalidStateError:
            raise
        except (InvalidOptionsError, KeyError, TypeError, ValueError, AttributeError) as exc:
            raise InvalidStateError(f"bad hexstacks state: {exc!r}") from exc

    def _load(self, data: Mapping[str, JSON]) -> HexStacksState:
        if not isinstance(data, Mapping) or data.get("engine") != self.id:
            raise InvalidStateError("not a hexstacks state")
        if data.get("version") != self.version:
            raise InvalidStateError(f"state version {data.get('version')!r}, engine is {self.version}")
        options = self.validate_options(data["options"])
        seed = data["seed"]
        if not _is_int(seed):
            raise InvalidStateError("seed must be an integer")
        state = HexStacksState(self, options, seed)
        geo = state.geo
        ply, seat, points = data["ply"], data["seat"], data["points"]
        if not (_is_int(ply) and 0 <= ply <= options["max_plies"]):
            raise InvalidStateError(f"bad ply {ply!r}")
        if seat not in (0, 1) or not _is_int(seat) or points not in (1, 2) or not _is_int(points):
            raise InvalidStateError("bad seat or points")
        if ply == 0 and (seat, points) != (0, 1):
            raise InvalidStateError("the game starts with seat 0 to move with one point")
        supply, exited = list(data["supply"]), list(data["exited"])
        counts = [0, 0]
        stacks = data["stacks"]
        if not isinstance(stacks, Mapping):
            raise InvalidStateError("stacks must be an object")
        for name, pieces in stacks.items():
            if name not in geo.index:
                raise InvalidStateError(f"no hex {name!r} on a size {geo.size} board")
            if not isinstance(pieces, list) or not pieces or any(p not in (0, 1) or not _is_int(p) for p in pieces):
                raise InvalidStateError(f"bad stack on {name}: {pieces!r}")
            for p in pieces:
                counts[p] += 1
            state._set(geo.index[name], tuple(pieces))
        if len(supply) != 2 or len(exited) != 2 or not all(_is_int(v) and v >= 0 for v in supply + exited):
            raise InvalidStateError("supply and exited must be two counts each")
        for s in (0, 1):
            if supply[s] + exited[s] + counts[s] != PIECES:
                raise InvalidStateError(f"seat {s} does not have {PIECES} pieces in all")
        if exited[0] == PIECES and exited[1] == PIECES:
            raise InvalidStateError("both seats cannot have finished")
        last = data["last_move"]
        if last is not None and not isinstance(last, str):
            raise InvalidStateError("last_move must be a string or null")
        if ply == 0 and (stacks or last is not None or exited != [0, 0]):
            raise InvalidStateError("at ply 0 the board is empty and nothing has been played")
        state.supply, state.exited = supply, exited
        state.ply, state.seat, state.points, state.last_move = ply, seat, points, last
        # One point left mid-turn with nothing to spend it on cannot be reached:
        # the engine would have ended the turn.
        if ply > 0 and points == 1 and not state.is_terminal() and not state._actions(1):
            raise InvalidStateError("one point left but no 1-point action: the turn should have ended")
        return state


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


ENGINE = HexStacksEngine()
