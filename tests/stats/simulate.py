"""Seeded synthetic results from known strengths, for the rating and SPRT tests."""

from __future__ import annotations

import math
import random

from tournaments.ratings.stats import Counts, Decision, Game, Overshoot, Sprt, Status


def elo_score(diff: float) -> float:
    """Expected score at an Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def two_player_game(rng: random.Random, diff: float, draw_share: float = 0.0) -> float:
    """One game's score for the first side at Elo difference ``diff`` (first-seat edge included).

    Draws take ``draw_share`` of the room the expected score leaves, so the
    expected score stays exactly ``elo_score(diff)``: P(draw) = 2 * share *
    min(p, 1 - p), P(win) = p - P(draw) / 2.
    """
    p = elo_score(diff)
    draw = 2.0 * draw_share * min(p, 1.0 - p)
    u = rng.random()
    if u < p - draw / 2.0:
        return 1.0
    if u < p + draw / 2.0:
        return 0.5
    return 0.0


def round_robin_pairs(
    rng: random.Random, strengths: dict[str, float], games: int, first_edge: float = 0.0, draw_share: float = 0.0
) -> list[tuple[str, str, float]]:
    """``games`` two-player games between random pairs; the first listed side has the first seat."""
    names = list(strengths)
    out = []
    for _ in range(games):
        a, b = rng.sample(names, 2)
        out.append((a, b, two_player_game(rng, strengths[a] - strengths[b] + first_edge, draw_share)))
    return out


def race_ranking(rng: random.Random, strengths: list[float]) -> tuple[int, ...]:
    """Ranks from a Plackett-Luce ranking (an exponential race with rates exp(theta))."""
    times = [rng.expovariate(math.exp(s * math.log(10) / 400.0)) for s in strengths]
    return tuple(1 + sum(1 for other in times if other < t) for t in times)


def multi_team_games(rng: random.Random, strengths: dict[str, float], games: int, sides: int = 3) -> list[Game]:
    names = list(strengths)
    out = []
    for _ in range(games):
        chosen = rng.sample(names, sides)
        out.append(Game(tuple(chosen), race_ranking(rng, [strengths[c] for c in chosen])))
    return out


def centred(strengths: dict[str, float], anchor: float) -> dict[str, float]:
    """True ratings on the fit's scale: mean ``anchor``."""
    mean = sum(strengths.values()) / len(strengths)
    return {k: anchor + v - mean for k, v in strengths.items()}


def pair_scores(rng: random.Random, elo: float, draw_share: float = 0.3) -> tuple[float, float]:
    """The new version's two scores in a game pair (seats swapped, no seat edge modelled)."""
    return two_player_game(rng, elo, draw_share), two_player_game(rng, elo, draw_share)


def game_law(diff: float, draw_share: float) -> tuple[float, float, float]:
    """(loss, draw, win) probabilities of one game at Elo difference ``diff`` (see ``two_player_game``)."""
    p = elo_score(diff)
    draw = 2.0 * draw_share * min(p, 1.0 - p)
    return 1.0 - p - draw / 2.0, draw, p - draw / 2.0


def pair_law(elo: float, edge: float = 0.0, draw_share: float = 0.0) -> list[float]:
    """Pentanomial probabilities of a seat-swapped pair whose expected score per game is ``elo_score(elo)``.

    The first seat is worth ``edge`` Elo.  The two games are independent
    given the seats; the raw strength gap that gives the requested expected
    score over both seats is found by bisection (with a big edge the seat
    flattens the curve, so the gap must be larger).
    """

    def mean(diff: float) -> float:
        return (elo_score(diff + edge) + elo_score(diff - edge)) / 2.0

    low, high = -4000.0, 4000.0
    target = elo_score(elo)
    for _ in range(200):
        middle = (low + high) / 2.0
        low, high = (middle, high) if mean(middle) < target else (low, middle)
    first, second = game_law(low + edge, draw_share), game_law(low - edge, draw_share)
    law = [0.0] * 5
    for i, p in enumerate(first):
        for j, q in enumerate(second):
            law[i + j] += p * q
    return law


def sampler(law: list[float]) -> list[float]:
    """Cumulative probabilities for :func:`draw_cell`."""
    out, total = [], 0.0
    for p in law:
        total += p
        out.append(total)
    out[-1] = 1.0
    return out


def draw_cell(rng: random.Random, cumulative: list[float]) -> int:
    """One outcome class drawn from a law given by :func:`sampler`."""
    u = rng.random()
    for k, c in enumerate(cumulative):
        if u < c:
            return k
    return len(cumulative) - 1


def run_sprt(rng: random.Random, test: Sprt, cumulative: list[float]) -> tuple[Status, list[int]]:
    """Play pairs drawn from a law (see :func:`sampler`) until ``test`` stops, looking after every pair.

    Returns the final status and the pentanomial counts.
    """
    cells = [0] * 5
    status = test.status_from_counts(Counts(0, 0, 0, (0, 0, 0, 0, 0)), Overshoot())
    while status.decision is Decision.CONTINUE:
        cells[draw_cell(rng, cumulative)] += 1
        status = test.status_from_counts(
            Counts(0, 0, 0, (cells[0], cells[1], cells[2], cells[3], cells[4])), status.overshoot
        )
    return status, cells
