"""Greedy heuristic for Stacks, the 13x13 flag game (``flagstacks``).

``score(observation, move, seat)`` judges one move from the observation alone,
one ply deep, with a few plain ideas in order of weight:

1. leaving a lone flag on a target (owning it) is best, a second target wins;
2. captures are good, captured flags especially; capturing on the enemy's
   home while its flags stand there costs the capturer its pieces, so it
   counts as a loss;
3. a stack carrying a flag should head for the nearest free target and, once
   there, shed pieces one at a time;
4. a flagless piece or stack should fetch a flag (home or a lone one);
5. bringing pieces back from the reserve is mildly useful.

Standard library only.
"""

from __future__ import annotations

FILES = "abcdefghijklm"
VALUE = {"r": 1.0, "g": 1.0, "y": 1.2, "f": 4.0}


def _coords(name: str) -> tuple[int, int]:
    """(file index, rank index) of a square name such as ``g13``."""
    return FILES.index(name[0]), int(name[1:]) - 1


def _distance(a: str, b: str) -> int:
    """Manhattan distance: a fair guess at how far a mixed stack must travel."""
    (fa, ra), (fb, rb) = _coords(a), _coords(b)
    return abs(fa - fb) + abs(ra - rb)


def _free_targets(observation: dict) -> list[str]:
    return [t for t, owner in observation["targets"].items() if owner is None]


def _nearest_target(observation: dict, square: str) -> int:
    free = _free_targets(observation)
    return min((_distance(square, t) for t in free), default=0)


def score(observation: dict, move: str, seat: int) -> float:
    """Value of ``move`` for ``seat``; higher is better."""
    if move == "pass":
        return 0.0
    squares = observation["squares"]
    targets = observation["targets"]
    homes = observation["homes"]
    enemy = 1 - seat

    if move.startswith("+"):
        kind, dst = move[1], move[3:]
        moving = [kind]
        src = None
        left: list[str] = []
        value = 1.0
    else:
        body, _, off = move.partition(":")
        src, dst = body.split("-")
        stack = squares[src]["pieces"]
        if off:
            i = len(stack) - 1 - stack[::-1].index(off)
            moving = [off]
            left = stack[:i] + stack[i + 1 :]
        elif src == homes[seat] and stack.count("f") >= 2:
            moving = [p for p in stack if p != "f"] + ["f"]
            left = ["f"]
        else:
            moving, left = list(stack), []
        value = 0.0

    there = squares.get(dst)
    carries_flag = "f" in moving

    # 1. Owning targets.
    if src is not None and src in targets and left == ["f"]:
        owned = observation["targets_owned"][seat]
        return 10_000.0 if owned + 1 >= 2 else 1_000.0
    if src is not None and src in targets and "f" in left:
        value += 15.0 - len(left)  # shedding pieces toward a lone flag on a target
    if src is not None and src in targets and carries_flag:
        value -= 20.0  # walking a flag off a target it was about to own

    # 2. Captures.
    if there is not None and there["owner"] == enemy:
        gain = sum(VALUE[p] for p in there["pieces"])
        if dst == homes[enemy] and "f" in there["pieces"]:
            # The flags stay and our movers go to the reserve: a trade at best.
            gain = sum(VALUE[p] for p in there["pieces"] if p != "f") - sum(VALUE[p] for p in moving)
            if carries_flag:
                gain -= 6.0
        value += 3.0 * gain

    # 3. Flag carriers head for a free target.
    if carries_flag and src is not None:
        before = _nearest_target(observation, src)
        after = _nearest_target(observation, dst)
        value += 2.0 * (before - after)
        if dst in targets and targets[dst] is None:
            value += 10.0
    elif src is not None and "f" in left and src not in targets and left == ["f"]:
        value -= 3.0  # a lone flag off target is stuck and easy prey

    # 4. Fetching a flag: flagless pieces drift toward our flags (off the
    # targets) and join them, so the carrier gets pieces that can advance.
    if not carries_flag:
        if there is not None and there["owner"] == seat and "f" in there["pieces"] and dst not in targets:
            value += 5.0
        if src is not None:
            flags = [sq for sq, v in squares.items() if v["owner"] == seat and "f" in v["pieces"] and sq not in targets]
            if flags:
                before = min(_distance(src, f) for f in flags)
                after = min(_distance(dst, f) for f in flags)
                value += 0.5 * (before - after)

    # Small pull toward the middle rows, where the targets are.
    if src is not None:
        value += 0.1 * (abs(_coords(src)[1] - 6) - abs(_coords(dst)[1] - 6))
    return value
