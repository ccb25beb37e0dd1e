"""Fixtures for the Swiss tests: the service suite's users and bots, and a Swiss played to its end."""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.rounds import queue_played, tournament_started
from tests.service.conftest import _games, make_bot, other, play, staff, user  # noqa: F401
from tournaments.competitions.models import Tournament


def elo_winner(strength: dict[int, float], rng: random.Random) -> Callable[[int, int], int]:
    """Who of two bot versions wins a game, drawn from their true strengths on the Elo scale."""

    def winner(a: int, b: int) -> int:
        expected = 1.0 / (1.0 + math.pow(10.0, (strength[b] - strength[a]) / 400.0))
        return a if rng.random() < expected else b

    return winner


@pytest.fixture
def swiss_played(user: Any, make_bot: Any, play: Any) -> Callable[..., Tournament]:  # noqa: F811 - the fixtures above
    """A Swiss of ``count`` bots started and played to its end, each game won as ``winner`` says.

    Matches are recorded through the record service, as a worker records them,
    a round at a time: the next round appears only when the recordings plan it.
    """

    def run(*, count: int, rounds: int, winner: Callable[[int, int], int], games_per_pairing: int = 1) -> Tournament:
        bots = [make_bot() for _ in range(count)]
        tournament = tournament_started(
            owner=user, bots=bots, format=Tournament.Format.SWISS, rounds=rounds, games_per_pairing=games_per_pairing
        )

        def ranks(match: Any, seats: list[int]) -> list[int]:
            won = winner(seats[0], seats[1])
            return [1 if version == won else 2 for version in seats]

        queue_played(tournament=tournament, play=play, ranks=ranks)
        tournament.refresh_from_db()
        return tournament

    return run
