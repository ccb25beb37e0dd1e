"""Marking and unmarking completed sequences for the ``sequence`` engine (kept apart to keep the engine short).

A marked sequence is ``(team, window)``: five square indices in a line.
``locked[sq]`` counts the marked sequences holding ``sq``; a nonzero count
protects the chip from a one-eyed jack unless the game is ``advanced``.
"""

from __future__ import annotations

from engines.games._sequence_board import REACH


def mark(board: list[int], locked: list[int], sequences: list[tuple[int, tuple[int, ...]]], sq: int, team: int) -> int:
    """Mark every new sequence through ``sq`` for ``team``, in the rules' order; return how many.

    ``REACH[sq]`` lists the lines through ``sq`` in the rules' order of
    directions; within a line the windows are taken from the furthest back.
    A window is marked when it shares at most one square with each of the
    team's marked sequences (including those marked by this same chip).
    """
    bit = 1 << team
    marked = 0
    own: list[frozenset[int]] | None = None
    for back, ahead, segment in REACH[sq]:
        # Only windows holding sq matter: count our run at most four squares either side.
        nb = 0
        for s in back:
            if not board[s] & bit:
                break
            nb += 1
        na = 0
        for s in ahead:
            if not board[s] & bit:
                break
            na += 1
        if nb + na < 4:
            continue
        pos = len(back)
        if own is None:
            own = [frozenset(squares) for t, squares in sequences if t == team]
        for start in range(pos - nb, pos + na - 3):
            window = segment[start : start + 5]
            if all(len(other.intersection(window)) <= 1 for other in own):
                sequences.append((team, window))
                own.append(frozenset(window))
                for s in window:
                    locked[s] += 1
                marked += 1
    return marked


def unmark(
    locked: list[int], sequences: list[tuple[int, tuple[int, ...]]], sq: int
) -> list[tuple[int, tuple[int, ...]]]:
    """Advanced rule: the marked sequences left once every one holding the removed chip at ``sq`` is dropped."""
    keep = []
    for team, window in sequences:
        if sq in window:
            for s in window:
                locked[s] -= 1
        else:
            keep.append((team, window))
    return keep
