"""Knockout brackets as pure functions: the draw, single and double elimination, what is due, who placed where.

Entrants are given in seed order (index 0 is the top seed).  The bracket has
the next power of two of slots (at least 2); the slots past the field are
byes, and the standard seeding order (1 v 16, 8 v 9, 5 v 12, 4 v 13, ...)
puts them against the top seeds, who go through without playing.

A bracket is a list of :class:`Node` (a pairing's place in the bracket), each
fed by two sources: a seed, or the winner or the loser of an earlier node;
every node comes after the nodes that feed it.  Given the winners of the
pairings played so far, :func:`bracket_resolve` says for each node who meets
whom, whether it is due (both sides known, not yet played), decided, or
waiting; a node with one empty side (a bye, or a losers' bracket slot nobody
dropped into) is decided without a game.

Double elimination: a winners' bracket of k = log2(size) rounds; a losers'
bracket of 2(k - 1) rounds, the odd ones between its own survivors, the even
ones (2j) against the losers of winners' round j + 1, dropped in reversed
order every other round so that two bots do not meet again at once; a grand
final between the two brackets' winners, and a bracket reset (a second grand
final) when the losers' bracket winner wins the first, so that the champion
is the one bot with fewer than two defeats.

A pairing is a best-of-N (:func:`pairing_decide`): decided on points after its
N games; when they tie, one decider game at a time, up to ``DECIDERS_MOST``,
then the higher seed (the pairing's first side) goes through.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

#: Decider games a tied pairing plays at most before the higher seed goes through.
DECIDERS_MOST = 3

SEED, WINNER, LOSER = "seed", "winner", "loser"
WAITING, DUE, DECIDED = "waiting", "due", "decided"


@dataclass(frozen=True)
class Source:
    """Where one side of a pairing comes from: a seed (an int) or the winner or loser of a node (its key)."""

    kind: str
    ref: int | str


@dataclass(frozen=True)
class Node:
    """One pairing's place in the bracket.

    ``part`` is ``W`` (winners' bracket, or the only one), ``L`` (losers'
    bracket) or ``F`` (grand final); ``stage`` orders eliminations: the loser
    of a node with stage s is out at stage s (0: the loser is not out, it drops
    to the losers' bracket); ``reset`` marks the second grand final, played
    only when the first one's second side (the losers' bracket winner) won it.
    Both grand finals carry the last stage: the winners' bracket winner losing
    the first is not out, but it is then placed by the reset (it wins it, or
    goes out there at the same stage).
    """

    key: str
    part: str
    round: int
    first: Source
    second: Source
    stage: int
    reset: bool = False


@dataclass(frozen=True)
class NodeState:
    """A node given the results so far: its sides (entrant index, -1 for nobody, None unknown) and its outcome."""

    key: str
    status: str
    first: int | None
    second: int | None
    winner: int | None
    loser: int | None
    played: bool


EMPTY = -1


def bracket_size(entrants: int) -> int:
    """The slots of a bracket for ``entrants``: the next power of two, at least 2."""
    size = 2
    while size < entrants:
        size *= 2
    return size


def seed_order(size: int) -> list[int]:
    """The seeds (0-based) in slot order for a bracket of ``size``: slot pairs (0, 1), (2, 3), ... meet first.

    Built by doubling: each seed s of the half-size order is followed by its
    partner size - 1 - s, so 1 v 8, 4 v 5, 2 v 7, 3 v 6 for eight (1-based).
    """
    order = [0]
    while len(order) < size:
        span = 2 * len(order)
        order = [s for seed in order for s in (seed, span - 1 - seed)]
    return order


def _first_round(size: int) -> list[tuple[Source, Source]]:
    order = seed_order(size)
    return [(Source(SEED, order[2 * i]), Source(SEED, order[2 * i + 1])) for i in range(size // 2)]


def _winners_rounds(size: int, *, out: bool) -> list[Node]:
    """The winners' bracket of ``size`` slots, round 1 to its final.

    ``out``: round r's loser is out at stage r (single elimination); otherwise
    it drops to the losers' bracket (stage 0, double elimination).
    """
    nodes = [Node(f"W1-{i + 1}", "W", 1, a, b, 1 if out else 0) for i, (a, b) in enumerate(_first_round(size))]
    for r in range(2, size.bit_length()):
        nodes += [
            Node(
                f"W{r}-{i + 1}",
                "W",
                r,
                Source(WINNER, f"W{r - 1}-{2 * i + 1}"),
                Source(WINNER, f"W{r - 1}-{2 * i + 2}"),
                r if out else 0,
            )
            for i in range(size >> r)
        ]
    return nodes


def single_elimination(entrants: int) -> list[Node]:
    """The nodes of a single-elimination bracket: round r's loser is out at stage r; the last node is the final."""
    return _winners_rounds(bracket_size(entrants), out=True)


def double_elimination(entrants: int) -> list[Node]:
    """The nodes of a double-elimination bracket: winners' rounds, losers' rounds, grand final and reset."""
    size = bracket_size(entrants)
    k = size.bit_length() - 1
    nodes = _winners_rounds(size, out=False)
    last_losers = Source(LOSER, "W1-1")  # two slots: the winners' final's loser is the losers' bracket winner
    if k >= 2:
        nodes += [
            Node(f"L1-{i + 1}", "L", 1, Source(LOSER, f"W1-{2 * i + 1}"), Source(LOSER, f"W1-{2 * i + 2}"), 1)
            for i in range(size // 4)
        ]
        for j in range(1, k):
            count = size >> (j + 1)
            dropped = [f"W{j + 1}-{i + 1}" for i in range(count)]
            if j % 2 == 1:
                dropped.reverse()
            nodes += [
                Node(
                    f"L{2 * j}-{i + 1}",
                    "L",
                    2 * j,
                    Source(WINNER, f"L{2 * j - 1}-{i + 1}"),
                    Source(LOSER, dropped[i]),
                    2 * j,
                )
                for i in range(count)
            ]
            if j < k - 1:
                nodes += [
                    Node(
                        f"L{2 * j + 1}-{i + 1}",
                        "L",
                        2 * j + 1,
                        Source(WINNER, f"L{2 * j}-{2 * i + 1}"),
                        Source(WINNER, f"L{2 * j}-{2 * i + 2}"),
                        2 * j + 1,
                    )
                    for i in range(count // 2)
                ]
        last_losers = Source(WINNER, f"L{2 * k - 2}-1")
    final = 2 * k - 1
    nodes.append(Node("F1", "F", 1, Source(WINNER, f"W{k}-1"), last_losers, final))
    nodes.append(Node("F2", "F", 2, Source(WINNER, "F1"), Source(LOSER, "F1"), final, reset=True))
    return nodes


def bracket_nodes(entrants: int, *, double: bool) -> list[Node]:
    """The bracket of either kind."""
    return double_elimination(entrants) if double else single_elimination(entrants)


def bracket_resolve(
    nodes: Sequence[Node], entrants: int, winners: Mapping[str, int], withdrawn: AbstractSet[int] = frozenset()
) -> dict[str, NodeState]:
    """Each node's state given ``winners`` (node key -> entrant index) of the pairings played so far.

    A winner given for a node that is not due (not both sides known) is
    ignored, so the result depends only on results that count.  A pairing not
    yet won with a ``withdrawn`` entrant in it goes to the other side (to the
    first if both are withdrawn) without more games; one already won stays won.
    """
    states: dict[str, NodeState] = {}

    def side(source: Source) -> int | None:
        if source.kind == SEED:
            seed = int(source.ref)
            return seed if seed < entrants else EMPTY
        fed = states[str(source.ref)]
        return fed.winner if source.kind == WINNER else fed.loser

    for node in nodes:
        a, b = side(node.first), side(node.second)
        if a is None or b is None:
            states[node.key] = NodeState(node.key, WAITING, a, b, None, None, False)
        elif node.reset and states[str(node.first.ref)].winner == states[str(node.first.ref)].first:
            # The winners' bracket winner took the first grand final: no reset.
            states[node.key] = NodeState(node.key, DECIDED, a, b, a, EMPTY, False)
        elif a == EMPTY or b == EMPTY:
            winner = b if a == EMPTY else a
            states[node.key] = NodeState(node.key, DECIDED, a, b, winner, EMPTY, False)
        elif node.key in winners and winners[node.key] in (a, b):
            w = winners[node.key]
            states[node.key] = NodeState(node.key, DECIDED, a, b, w, b if w == a else a, True)
        elif a in withdrawn or b in withdrawn:
            w = b if a in withdrawn and b not in withdrawn else a
            states[node.key] = NodeState(node.key, DECIDED, a, b, w, b if w == a else a, False)
        else:
            states[node.key] = NodeState(node.key, DUE, a, b, None, None, True)
    return states


def bracket_due(nodes: Sequence[Node], states: Mapping[str, NodeState]) -> list[Node]:
    """The nodes whose pairing can be played now, in bracket order."""
    return [n for n in nodes if states[n.key].status == DUE]


def bracket_depth(nodes: Sequence[Node]) -> int:
    """The most rounds of play the bracket can need: its longest chain of nodes, each waiting for the one before."""
    depth: dict[str, int] = {}
    for node in nodes:
        fed = [depth[str(s.ref)] for s in (node.first, node.second) if s.kind != SEED]
        depth[node.key] = 1 + max(fed, default=0)
    return max(depth.values(), default=0)


def bracket_placings(nodes: Sequence[Node], states: Mapping[str, NodeState], entrants: int) -> list[int | None]:
    """Each entrant's final place (1 the champion; ties share the best place of their group), None while open.

    An entrant is placed by the stage at which it went out: those out at the
    same stage share a place, below everyone out later.  Nothing is placed
    before the whole bracket is decided.
    """
    if entrants < 1 or any(s.status != DECIDED for s in states.values()):
        return [None] * entrants
    out: dict[int, int] = {}
    for node in nodes:
        state = states[node.key]
        if node.stage and state.loser is not None and state.loser != EMPTY:
            out[state.loser] = node.stage
    champion = states[nodes[-1].key].winner
    top = max((n.stage for n in nodes), default=0) + 1
    stage = [top if i == champion else out.get(i, 0) for i in range(entrants)]
    return [1 + sum(1 for t in stage if t > mine) for mine in stage]


@dataclass(frozen=True)
class PairingDecision:
    """A pairing's outcome from its games: the winning side (0 first, 1 second), or whether it needs a decider."""

    winner: int | None
    decider: bool


def pairing_decide(points: Sequence[tuple[float, float]], *, games_per_pairing: int) -> PairingDecision:
    """Decide a best-of-N from the points of every game it has played (all ended; deciders last).

    More points after the N games (or after a decider) wins.  Level: another
    decider while fewer than ``DECIDERS_MOST`` were played, otherwise the first
    side, the higher seed.  A game that ended without a result (errored,
    cancelled) counts as played, no points to either side.
    """
    if len(points) < games_per_pairing:
        return PairingDecision(None, False)
    first = sum(p[0] for p in points)
    second = sum(p[1] for p in points)
    if first != second:
        return PairingDecision(0 if first > second else 1, False)
    if len(points) - games_per_pairing < DECIDERS_MOST:
        return PairingDecision(None, True)
    return PairingDecision(0, False)


def bracket_pairings_played(entrants: int, *, double: bool, reset: bool) -> int:
    """The pairings a bracket of ``entrants`` plays: n - 1 single; 2n - 2 double, 2n - 1 with the reset."""
    if entrants < 2:
        return 0
    return 2 * entrants - 2 + (1 if reset else 0) if double else entrants - 1


def knockout_size(*, participants: int, double: bool, games_per_pairing: int) -> int:
    """The most matches a knockout plays: every pairing it can play (a reset included) with every decider."""
    pairings = bracket_pairings_played(participants, double=double, reset=double)
    return pairings * (games_per_pairing + DECIDERS_MOST)
