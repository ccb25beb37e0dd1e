"""Fixtures for the version-test tests: the service fixtures, a bot with two versions, match helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.service.conftest import RANDOM_BOT, _games, make_bot, other, play, staff, user  # noqa: F401
from tournaments.bots.models import Bot
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import VersionTest
from tournaments.matches.models import Match, MatchSeat


@pytest.fixture
def two_versions(make_bot: Any, user: Any) -> Bot:  # noqa: F811 (fixtures imported above)
    """The user's public gamesup bot with versions 1 and 2 (both the random bot, different bytes)."""
    bot = make_bot(name="tested")
    bot_version_create(bot=bot, user=user, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py")
    return bot


def queued(test: VersionTest) -> list[Match]:
    """The test's queued matches, oldest first."""
    return list(Match.objects.filter(version_test_link__test=test, status=Match.Status.QUEUED).order_by("id"))


def candidate_ranks(match: Match, test: VersionTest, score: float) -> list[int]:
    """Seat ranks that give the candidate ``score`` (1, 0.5 or 0) in this match."""
    ranks = []
    for seat in MatchSeat.objects.filter(match=match).order_by("seat"):
        mine = seat.bot_version_id == test.candidate_id
        if score == 0.5:
            ranks.append(1)
        else:
            ranks.append(1 if mine == (score == 1) else 2)
    return ranks


@pytest.fixture
def play_score(play: Callable[..., bool]) -> Callable[[Match, VersionTest, float], bool]:  # noqa: F811
    """Record a match as the worker would, with the candidate scoring ``score``."""

    def run(match: Match, test: VersionTest, score: float) -> bool:
        return play(match, candidate_ranks(match, test, score))

    return run
