"""Board geometry for ``hexstacks``: hexes, neighbours, move text and the parse table.

Board (row ``r`` of ``2*size-1`` rows, hex ``c`` from the left): rows grow
by one hex up to the middle row ``size`` and then shrink again; toward a
longer row, hex ``c`` touches hexes ``c`` and ``c+1`` of it; toward a
shorter row, hex ``c`` touches hexes ``c-1`` and ``c`` of it (those that
exist).  Built once per board size and shared by every state.
"""

from __future__ import annotations

from functools import cache

from engines.base import JSON

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
        self._link(first)
        self._write_moves()

    def _link(self, first: list[int]) -> None:
        """Neighbours toward each seat's far edge, and each seat's near and far rows."""
        nrows = len(self.row_lengths)

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

    def _write_moves(self) -> None:
        """Move text per hex, built once so that move generation only picks strings, and its parse table."""
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
