"""Fixtures for the knockout tests: the service suite's users and bots, and a knockout played to its end."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest

from tests.rounds import queue_played, tournament_started
from tests.service.conftest import _games, make_bot, other, play, staff, user  # noqa: F401
from tournaments.competitions.models import Tournament


@pytest.fixture
def knockout_played(user: Any, make_bot: Any, play: Any) -> Callable[..., Tournament]:  # noqa: F811 - the fixtures above
    """A knockout of ``count`` bots started and played to its end, each game's ranks as ``ranks`` says.

    Matches are recorded through the record service, as a worker records them:
    the next round (or a decider) appears only when the recordings plan it.
    ``ranks(first_version, second_version)`` gives the two seats' ranks.
    """

    def run(
        *,
        count: int,
        format: str,
        ranks: Callable[[int, int], Sequence[int]],
        games_per_pairing: int = 1,
    ) -> Tournament:
        bots = [make_bot() for _ in range(count)]
        tournament = tournament_started(owner=user, bots=bots, format=format, games_per_pairing=games_per_pairing)
        queue_played(tournament=tournament, play=play, ranks=lambda match, seats: ranks(seats[0], seats[1]))
        tournament.refresh_from_db()
        return tournament

    return run
