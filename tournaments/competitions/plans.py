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


def gauntlet_size(*, field: int, games_per_pairing: int) -> int:
    """How many games :func:`gauntlet_plan` gives."""
    return field * games_per_pairing


def gauntlet_plan(*, field: int, games_per_pairing: int) -> list[tuple[int, int]]:
    """A gauntlet's games in playing order: participant 0 (the challenger) against 1 to ``field``, two teams.

    Games come in pairs, the challenger first and then its opponent, so a
    pair cancels the first seat's edge (the service gives both one seed,
    so they also play one deal).  Every opponent gets its first pair before
    anyone its second, so early results already cover the whole field.  The
    pairs fill the plan's first ``2 * field * (games_per_pairing // 2)``
    places, a pair at each even index; an odd ``games_per_pairing`` ends
    with one unpaired game per opponent, the challenger starting against
    every other one.
    """
    plan: list[tuple[int, int]] = []
    for _ in range(games_per_pairing // 2):
        for opponent in range(1, field + 1):
            plan += [(0, opponent), (opponent, 0)]
    if games_per_pairing % 2:
        plan += [(0, opponent) if opponent % 2 else (opponent, 0) for opponent in range(1, field + 1)]
    return plan


def gauntlet_paired(*, field: int, games_per_pairing: int) -> int:
    """How many of a gauntlet's games, from the plan's start, are played in pairs."""
    return 2 * field * (games_per_pairing // 2)
