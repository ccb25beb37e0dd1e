"""Round-robin plans as pure functions: who plays whom, on which team, in what order.

A plan is a list of games; each game is a tuple giving, for every team in
order, the index of the participant that fills all of that team's seats.
Team 0 holds seat 0, so ``game[0]`` is the participant who starts.
"""

from __future__ import annotations

import itertools
import math


def circle_rounds(count: int) -> list[list[tuple[int, int]]]:
    """The circle method: rounds in which everyone plays at most once.

    Spreading a participant's games over the schedule means early results
    already cover the whole field.
    """
    players: list[int | None] = list(range(count))
    if count % 2:
        players.append(None)  # the bye
    size = len(players)
    rounds = []
    for _ in range(size - 1):
        pairs = []
        for i in range(size // 2):
            a, b = players[i], players[size - 1 - i]
            if a is not None and b is not None:
                pairs.append((min(a, b), max(a, b)))
        rounds.append(pairs)
        # Keep the first player fixed, rotate the rest by one.
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def groups_in_order(count: int, teams: int) -> list[tuple[int, ...]]:
    """Every group of ``teams`` distinct participants, once each."""
    if teams == 2:
        return [pair for round_ in circle_rounds(count) for pair in round_]
    return list(itertools.combinations(range(count), teams))


def round_robin_size(*, participants: int, teams: int, games_per_group: int, legs: int = 1) -> int:
    """How many games :func:`round_robin_plan` gives, without making the plan."""
    if participants < teams:
        return 0
    return math.comb(participants, teams) * games_per_group * legs


def round_robin_plan(*, participants: int, teams: int, games_per_group: int, legs: int = 1) -> list[tuple[int, ...]]:
    """Every game of a round robin, in playing order.

    Within a group the assignment of participants to teams rotates by one
    each game, so a group playing a multiple of ``teams`` games gives every
    member every team (and so every seat) equally often.  Where it cannot
    be exact, the rotation starts at ``sum(group) % teams``; for two teams
    that is the parity rule that balances who starts across pairings.
    A double round robin plays every group's games again after all first legs,
    continuing the rotation so the second leg mirrors the first.
    """
    if teams < 2:
        raise ValueError("a round robin needs at least two teams")
    if participants < teams:
        return []
    groups = groups_in_order(participants, teams)
    plan: list[tuple[int, ...]] = []
    for leg in range(legs):
        for group in groups:
            offset = sum(group) % teams
            for game in range(games_per_group):
                k = leg * games_per_group + game + offset
                plan.append(tuple(group[(t + k) % teams] for t in range(teams)))
    return plan
