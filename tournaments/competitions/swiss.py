"""Swiss pairings as pure functions: who meets whom in the next round, who sits first, who rests.

The field is given in seed order (index 0 is the top seed) with what each
player has done so far (:class:`SwissPlayer`).  A round is paired the Dutch
way, greedily with backtracking:

1. Players are ranked by score, then seed.  A score group is a run of equal
   scores in that ranking.
2. The highest unpaired player takes, in this order of preference: the
   player half a group below in its own score group (the top half meets the
   bottom half, as in the Dutch system), then the others of its group further
   down, then those above that point, then the lower score groups in ranking
   order (it "floats" down).  Someone it has met already is never taken.
3. When the players left cannot be paired, the last choice is undone and the
   next candidate tried (depth first, so the search is complete).

Seats are balanced first: a pass that refuses any pairing which would give a
player two more first seats than second seats (or the reverse) runs with a
step budget; only if it finds nothing does a pass without that rule run,
which has no budget and so finds a pairing whenever one exists.  With at most
``swiss_rounds_most`` rounds one always exists: before the last round every
player has met fewer than half the field, so by Dirac's theorem the players
not yet met form a graph with a perfect matching.

An odd field gives one bye a round, to the lowest ranked player who has not
had one yet and whose absence leaves a field that can be paired.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field


class SwissPairingError(Exception):
    """No pairing of the round exists under the rules (more rounds than the field allows)."""


@dataclass(frozen=True)
class SwissPlayer:
    """What one player (by seed) brings into a round."""

    score: float = 0.0
    #: Seed indices of the players met already.
    opponents: frozenset[int] = field(default_factory=frozenset)
    #: First seats minus second seats played so far.
    seat_balance: int = 0
    #: Byes received so far.
    byes: int = 0
    #: Withdrawn players are neither paired nor given a bye.
    withdrawn: bool = False


@dataclass(frozen=True)
class SwissRound:
    """A paired round: (first seat, second seat) seed indices per pairing, best boards first, and the bye."""

    pairs: list[tuple[int, int]]
    bye: int | None


def swiss_rounds_default(players: int) -> int:
    """The rounds a field of ``players`` plays when the organiser does not say: ceil(log2 n), at least one.

    That many rounds are enough to leave one player alone on full points in a
    field of knockout-like results; 64 players play 6, 1,000 play 10.
    """
    return max(1, math.ceil(math.log2(max(players, 2))))


def swiss_rounds_most(players: int) -> int:
    """The most rounds a field can play with no pairing repeated for sure: half the field, at least one."""
    return max(1, players // 2)


def swiss_size(*, participants: int, rounds: int, games_per_pairing: int) -> int:
    """The most matches a Swiss plans: a pairing per two players a round (``rounds`` 0: the default)."""
    rounds = rounds or swiss_rounds_default(participants)
    return rounds * (participants // 2) * games_per_pairing


# Steps of the seat-balanced pass before it gives up for the unrestricted one.
_STRICT_STEPS_PER_PLAYER = 50
# Bye candidates the seat-balanced pass tries (the unrestricted pass tries them all).
_STRICT_BYE_TRIES = 8


def swiss_pair(players: Sequence[SwissPlayer], *, round_number: int) -> SwissRound:
    """Pair the next round (``round_number`` counts from 1); SwissPairingError when impossible."""
    ranking = sorted((i for i, p in enumerate(players) if not p.withdrawn), key=lambda i: (-players[i].score, i))
    # Score groups as integers increasing down the ranking, for bisection.
    group: dict[int, int] = {}
    for position, i in enumerate(ranking):
        previous = ranking[position - 1] if position else None
        same = previous is not None and math.isclose(players[previous].score, players[i].score)
        group[i] = group[previous] if same and previous is not None else position

    def balanced(a: int, b: int) -> bool:
        # Two players who both need the same seat would leave one of them two off balance.
        ba, bb = players[a].seat_balance, players[b].seat_balance
        return not (ba > 0 and bb > 0) and not (ba < 0 and bb < 0)

    def met(a: int, b: int) -> bool:
        return b in players[a].opponents or a in players[b].opponents

    candidates_for_bye: list[int | None] = [None]
    if len(ranking) % 2:
        # Lowest ranked first; a player who had a bye never gets another.
        candidates_for_bye = [i for i in reversed(ranking) if players[i].byes == 0]
    passes: list[tuple[Callable[[int, int], bool], int | None, int]] = [
        (
            lambda a, b: not met(a, b) and balanced(a, b),
            _STRICT_STEPS_PER_PLAYER * len(ranking) + 1000,
            _STRICT_BYE_TRIES,
        ),
        (lambda a, b: not met(a, b), None, len(candidates_for_bye)),
    ]
    for allowed, budget, bye_tries in passes:
        for bye in candidates_for_bye[:bye_tries]:
            order = [i for i in ranking if i != bye]
            pairs = _pair_depth_first(order, group=group, allowed=allowed, budget=budget)
            if pairs is not None:
                return SwissRound([_seated(a, b, k, players, round_number) for k, (a, b) in enumerate(pairs)], bye)
    raise SwissPairingError(f"round {round_number}: no pairing without a repeat exists for this field")


def _seated(a: int, b: int, board: int, players: Sequence[SwissPlayer], round_number: int) -> tuple[int, int]:
    """The pair with the player owed a first seat first; at equal balance, alternating by board and round."""
    ba, bb = players[a].seat_balance, players[b].seat_balance
    if ba != bb:
        return (a, b) if ba < bb else (b, a)
    return (a, b) if (board + round_number) % 2 else (b, a)


def _candidates(remaining: list[int], group: dict[int, int]) -> list[int]:
    """The partners of ``remaining[0]`` in order of preference (module docstring, step 2)."""
    end = bisect_right(remaining, group[remaining[0]], key=group.__getitem__)
    half = max(1, end // 2)  # never the player itself, alone in its group
    return remaining[half:end] + remaining[half - 1 : 0 : -1] + remaining[end:]


def _pair_depth_first(
    order: list[int], *, group: dict[int, int], allowed: Callable[[int, int], bool], budget: int | None
) -> list[tuple[int, int]] | None:
    """Pairs covering ``order`` (ranked best first), or None when none exists or ``budget`` steps ran out.

    Iterative, so a field of thousands does not reach Python's recursion limit;
    each frame keeps the players left when it was made, so undoing is popping.
    """
    if not order:
        return []
    if len(order) % 2:
        return None
    stack: list[tuple[list[int], list[int], int]] = [(order, _candidates(order, group), 0)]
    pairs: list[tuple[int, int]] = []
    steps = 0
    while stack:
        remaining, candidates, tried = stack[-1]
        first = remaining[0]
        while tried < len(candidates) and not allowed(first, candidates[tried]):
            tried += 1
        steps += 1
        if tried >= len(candidates) or (budget is not None and steps > budget):
            if budget is not None and steps > budget:
                return None
            stack.pop()
            if pairs:
                pairs.pop()
            continue
        partner = candidates[tried]
        stack[-1] = (remaining, candidates, tried + 1)
        pairs.append((first, partner))
        rest = remaining[1:]
        rest.remove(partner)
        if not rest:
            return pairs
        stack.append((rest, _candidates(rest, group), 0))
    return None
