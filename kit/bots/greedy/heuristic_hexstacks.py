"""Greedy heuristic for ``hexstacks`` (Stacks on a hexagon, standard or Diabolical).

``score(observation, move, seat)`` plays the move on a copy of the observed
board and measures how much it improves a race count, per point spent.
Standard library only: the greedy bot runs in the sandbox.

The race count, for each seat, is the sum of its pieces' progress: a piece
on its ``p``-th row from its near edge counts ``p``; an exited piece counts
the number of rows plus ``1 + EXITED_BONUS``.  A piece with an opponent piece
somewhere above it is stuck, so it counts ``TRAPPED`` less.  The evaluation is our count
minus the opponent's; this rewards, with no special cases:

* exits (the most progress per point, several pieces at once better still);
* advancing, the more of our pieces carried at once the better;
* covering opponent pieces, which makes them count as stuck;
* in Diabolical Stacks, dragging opponent pieces back toward their start.

Dividing by the points spent makes a 2-point action compete fairly with a
1-point action, which leaves another point to use.  The winning exit always
comes first.
"""

from __future__ import annotations

PIECES = 12
# Measured against 2.5's neighbours 1 and 5 in greedy-vs-greedy games: 2.5 won.
TRAPPED = 2.5
# An exited piece is safe for good, which a piece on the far row is not.
EXITED_BONUS = 2.0
WIN = 1_000_000.0


def _parse(move: str) -> tuple[str, str | None, str | None, int]:
    """(kind, source, target, count) for a move; kind is pass, enter, step or exit."""
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
    """The row of a hex name such as ``r3c2``."""
    return int(name[1 : name.index("c")])


def evaluate(stacks: dict[str, list[int]], exited: list[int], seat: int, rows: int) -> float:
    """``seat``'s race count minus its opponent's (see the module docstring)."""
    total = 0.0
    for side in (0, 1):
        count = exited[side] * (rows + 1 + EXITED_BONUS)
        for name, pieces in stacks.items():
            row = _row(name)
            progress = row if side == 0 else rows + 1 - row
            covered = False
            # Walk down from the top: once an opponent piece is seen, ours are stuck.
            for colour in reversed(pieces):
                if colour == side:
                    count += progress - (TRAPPED if covered else 0.0)
                else:
                    covered = True
        total += count if side == seat else -count
    return total


def score(observation: dict, move: str, seat: int) -> float:
    """How good ``move`` looks for ``seat``; higher is better."""
    kind, source, target, count = _parse(move)
    if kind == "pass":
        return 0.0
    stacks = {name: list(pieces) for name, pieces in observation.get("stacks", {}).items()}
    exited = list(observation.get("exited", [0, 0]))
    rows = observation["board"]["rows"]
    before = evaluate(stacks, exited, seat, rows)
    cost = 1
    if kind == "exit":
        if exited[seat] + count >= PIECES:
            return WIN
        stacks[source] = stacks[source][:-count]
        exited[seat] += count
    else:
        if stacks.get(target):
            cost = 2  # landing on any stack costs the whole turn
        if kind == "enter":
            moving = [seat]
        else:
            moving = stacks[source][-count:]
            stacks[source] = stacks[source][:-count]
        stacks[target] = stacks.get(target, []) + moving
    after = evaluate({k: v for k, v in stacks.items() if v}, exited, seat, rows)
    return (after - before) / cost
