"""Fixtures for the schedule and ladder tests: the service suite's users and bots."""

from __future__ import annotations

import pytest

from tests.service.conftest import make_bot, other, play, staff, user  # noqa: F401
from tournaments.games.services import game_sync


@pytest.fixture
def games(db: None) -> None:
    """The engines registered as games."""
    game_sync()
