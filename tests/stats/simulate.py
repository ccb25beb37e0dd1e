"""Seeded synthetic results from known strengths, for the rating and SPRT tests."""

from __future__ import annotations

import math
import random

from tournaments.ratings.stats import Game


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
