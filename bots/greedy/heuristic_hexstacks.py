"""Greedy heuristic for ``hexstacks`` (Stacks on a hexagon, standard or Diabolical).

``score(observation, move, seat)`` values one action from the observation
alone. Standard library only: the greedy bot runs in the sandbox.

What it likes, roughly in order:

* exits, more pieces at once better, and the winning exit above all;
* covering opponent pieces (they are stuck under ours in both variants);
* advancing our own pieces, especially onto our far row, ready to exit;
* in Diabolical Stacks, dragging opponent pieces back toward their start.

What it dislikes: uncovering opponent pieces it was holding down, and
spending a whole turn (2 points) on a move that a 1-point move could beat.
"""

from __future__ import annotations

PIECES = 12

EXIT_BASE = 100.0
EXIT_PER_PIECE = 10.0
WIN = 10_000.0
COVER = 4.0
UNCOVER = 5.0
ADVANCE = 2.0
READY_TO_EXIT = 3.0
DRAG_BACK = 1.5
TWO_POINTS = 2.0
ENTER = 3.0


def _parse(move: str) -> tuple[str, str | None, str | None, int]:
    """(kind, source, target, count) for a move string; kind is enter/step/exit/pass."""
    if move == "pass":
        return "pass", None, None, 0
    if move.startswith("+"):
        return "enter", None, move[1:], 1
    source, rest = move.split("-", 1)
    target, count = rest.rsplit("x", 1)
    if target == "off":
        return "exit", source, None, int(count)
    return "step", source, target, int(count)


def _row(name: str) -> int:
    return int(name[1 : name.index("c")])


def score(observation: dict, move: str, seat: int) -> float:
    """How good ``move`` looks for ``seat``; higher is better."""
    kind, source, target, count = _parse(move)
    if kind == "pass":
        return 0.0
    stacks = observation.get("stacks", {})
    board = observation.get("board", {})
    far_row = board.get("far_row", [0, 0])[seat]
    opponent = 1 - seat
    value = 0.0

    if kind == "exit":
        exited = observation.get("exited", [0, 0])[seat]
        if exited + count >= PIECES:
            return WIN
        value += EXIT_BASE + EXIT_PER_PIECE * count
        rest = stacks.get(source, [])[:-count]
        if rest and rest[-1] == opponent:
            value -= UNCOVER
        return value

    dest = stacks.get(target, [])
    if dest:
        # Landing on a stack costs the whole turn; worth it mainly to cover.
        value -= TWO_POINTS
        if dest[-1] == opponent:
            value += COVER + 0.5 * dest.count(opponent)
        else:
            value -= 1.0  # piling onto our own pieces gains little

    if kind == "enter":
        return value + ENTER

    stack = stacks.get(source, [])
    moving = stack[-count:] if count <= len(stack) else stack
    own = moving.count(seat)
    theirs = len(moving) - own
    value += ADVANCE * own
    if _row(target) == far_row:
        value += READY_TO_EXIT * own
    # Opponent pieces we carry go one row back toward their own start.
    value += DRAG_BACK * theirs
    rest = stack[: len(stack) - len(moving)]
    if rest and rest[-1] == opponent:
        value -= UNCOVER
    return float(value)
