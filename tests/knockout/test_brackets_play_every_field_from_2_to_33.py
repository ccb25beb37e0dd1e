"""Single and double elimination of 2 to 33 entrants: byes to the top seeds, the documented pairings, placings."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tournaments.competitions.brackets import (
    DECIDED,
    EMPTY,
    bracket_depth,
    bracket_due,
    bracket_nodes,
    bracket_pairings_played,
    bracket_placings,
    bracket_resolve,
    bracket_size,
    seed_order,
)


def test_the_seeding_order_meets_the_top_seed_with_the_last() -> None:
    assert seed_order(2) == [0, 1]
    assert seed_order(4) == [0, 3, 1, 2]
    assert seed_order(16)[:4] == [0, 15, 7, 8]  # 1 v 16, 8 v 9
    assert sorted(seed_order(32)) == list(range(32))


@pytest.mark.parametrize("double", [False, True])
@pytest.mark.parametrize("entrants", range(2, 34))
def test_a_bracket_is_played_to_its_end(entrants: int, double: bool) -> None:
    rng = random.Random(entrants * 2 + double)
    nodes = bracket_nodes(entrants, double=double)
    size = bracket_size(entrants)
    # The byes all sit against the top seeds.
    first_round = [n for n in nodes if n.key.startswith("W1-")]
    byes = sorted(
        min(int(n.first.ref), int(n.second.ref))
        for n in first_round
        if max(int(n.first.ref), int(n.second.ref)) >= entrants
    )
    assert byes == list(range(size - entrants))
    winners: dict[str, int] = {}
    losses: Counter[int] = Counter()
    rounds = 0
    while True:
        states = bracket_resolve(nodes, entrants, winners)
        due = bracket_due(nodes, states)
        if not due:
            break
        rounds += 1
        for node in due:
            a, b = states[node.key].first, states[node.key].second
            assert a is not None and b is not None and EMPTY not in (a, b)
            won = rng.choice([a, b])
            winners[node.key] = won
            losses[b if won == a else a] += 1
    assert rounds <= bracket_depth(nodes)
    assert all(s.status == DECIDED for s in states.values())
    reset = double and states["F2"].played
    assert len(winners) == bracket_pairings_played(entrants, double=double, reset=reset)
    placings = bracket_placings(nodes, states, entrants)
    champion = states[nodes[-1].key].winner
    assert placings[champion] == 1 and placings.count(1) == 1
    assert all(p is not None and 1 <= p <= entrants for p in placings)
    if double:
        # Everyone but the champion lost twice; the champion at most once (in the first grand final).
        assert all(losses[i] == 2 for i in range(entrants) if i != champion)
        assert losses[champion] == (1 if reset else 0)
        assert placings.count(2) == 1
    else:
        assert all(losses[i] == 1 for i in range(entrants) if i != champion)
        # The final's loser is second, the semi-finals' losers share third.
        assert placings.count(2) == 1
        if entrants >= 4:
            assert placings.count(3) == 2
