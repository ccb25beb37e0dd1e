"""Greedy heuristic for Pile Up: one ply ahead on the score, minus the reply threat.

``score(observation, move, seat)`` plays ``move`` on a copy of the board read
from the observation and returns

* the score difference (mine minus the opponent's) after the move;
* minus most of what the opponent's best capture in reply would cost, net of
  the best recapture after it (captures are forced, so a capture on offer
  will be taken);
* a large bonus or penalty when the move ends the game, by who then leads;
* small nudges: when leading, prefer captures that bring the end nearer (and
  the reverse when trailing); prefer having more singles on the board than
  the opponent, i.e. placing rather than shuffling.

Standard library only: the bot runs in the sandbox without the engine.
"""

from __future__ import annotations

FILES = "abcdefgh"
DIRECTIONS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, 1), (1, -1), (-1, 1), (-1, -1))
END_WEIGHT = 1000.0
THREAT_WEIGHT = 0.9
RECAPTURE_WEIGHT = 0.8
# Leading, the game should end soon; trailing, it should drag on.
TEMPO_WEIGHT = 0.5
# Bringing pieces onto the board beats shuffling singles about (measured
# against random play: 66% / 74% wins with it, 63% / 68% without).
DEVELOP_WEIGHT = 1.0

# The greedy bot scores every legal move against one observation; parsing it
# once per turn instead of once per move keeps a 600-move turn fast.
_cache: dict[str, object] = {"observation": None, "board": None}


def _square(name: str) -> tuple[int, int]:
    return FILES.index(name[0]), int(name[1:]) - 1


def _parse(observation: dict) -> dict[tuple[int, int], list[tuple[int, int]]]:
    """The board as {(file, rank): [(seat, number), ... bottom to top]}."""
    if _cache["observation"] is observation:
        return _cache["board"]  # type: ignore[return-value]
    colours = observation.get("colours", ["black", "white"])
    board = {
        _square(name): [(colours.index(p["colour"]), int(p["number"])) for p in pieces]
        for name, pieces in observation.get("board", {}).items()
    }
    _cache["observation"] = observation
    _cache["board"] = board
    return board


def _scores(board: dict) -> list[int]:
    """Per seat, the sum of every piece in the stacks whose top it owns."""
    out = [0, 0]
    for pieces in board.values():
        if len(pieces) >= 2:
            out[pieces[-1][0]] += sum(n for _, n in pieces)
    return out


def _captures(board: dict, seat: int, needs_higher: bool) -> list[tuple[tuple[int, int], tuple[int, int], int]]:
    """Every capture ``seat`` could make: (from, to, how much it raises its lead)."""
    out = []
    for (f0, r0), pieces in board.items():
        if len(pieces) != 1 or pieces[0][0] != seat:
            continue
        v = pieces[0][1]
        for df, dr in DIRECTIONS:
            f, r = f0 + df, r0 + dr
            while 0 <= f < 8 and 0 <= r < 8:
                target = board.get((f, r))
                if target:
                    owner, top = target[-1]
                    if owner != seat and len(target) <= 2 and (top < v or not needs_higher):
                        total = sum(n for _, n in target)
                        # Against a stack the other side also loses what it owned.
                        swing = total + v + (total if len(target) == 2 else 0)
                        out.append(((f0, r0), (f, r), swing))
                    if top >= v:
                        break
                f, r = f + df, r + dr
    return out


def _best_capture_swing(board: dict, seat: int, needs_higher: bool) -> int:
    """How much ``seat``'s best capture would raise its lead (0 if it has none)."""
    return max((swing for _, _, swing in _captures(board, seat, needs_higher)), default=0)


def _reply_loss(board: dict, seat: int, needs_higher: bool) -> float:
    """What the opponent's best forced capture costs ``seat``, net of its best recapture."""
    worst = 0.0
    for a, b, swing in _captures(board, 1 - seat, needs_higher):
        after = dict(board)
        after[b] = after[b] + after.pop(a)
        loss = swing - RECAPTURE_WEIGHT * _best_capture_swing(after, seat, needs_higher)
        worst = max(worst, loss)
    return worst


def score(observation: dict, move: str, seat: int) -> float:
    """Value of ``move`` for ``seat``: higher is better."""
    board = _parse(observation)
    options = observation.get("options", {})
    needs_higher = bool(options.get("capture_needs_higher", True))
    outside = list(observation.get("outside_stacks", [10, 10]))
    after = dict(board)
    if "@" in move:
        number, name = move.split("@")
        after[_square(name)] = [(seat, int(number))]
    elif "-" in move:
        a, b = (_square(x) for x in move.split("-"))
        mover = after.pop(a)
        target = after.get(b)
        if target:
            after[b] = target + mover
            outside[seat] -= 1
            if len(target) == 1:
                outside[1 - seat] -= 1
        else:
            after[b] = mover
    points = _scores(after)
    lead = points[seat] - points[1 - seat]
    if min(outside) <= 1:
        # The game ends now: only who leads matters.
        return lead + (END_WEIGHT if lead > 0 else -END_WEIGHT if lead < 0 else 0.0)
    threat = _reply_loss(after, seat, needs_higher)
    tempo = (20 - outside[0] - outside[1]) * (1 if lead > 0 else -1 if lead < 0 else 0)
    singles = [0, 0]
    for pieces in after.values():
        if len(pieces) == 1:
            singles[pieces[0][0]] += 1
    development = singles[seat] - singles[1 - seat]
    return lead - THREAT_WEIGHT * threat + TEMPO_WEIGHT * tempo + DEVELOP_WEIGHT * development
