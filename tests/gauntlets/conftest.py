"""Fixtures for the gauntlet tests: the service fixtures, and a way to give the challenger a chosen score."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from tests.service.conftest import _games, make_bot, other, play, staff, user  # noqa: F401
from tournaments.competitions.models import Tournament
from tournaments.matches.models import Match, MatchSeat


def challenger_ranks(match: Match, challenger: int, score: float) -> list[int]:
    """Seat ranks (seat order) that give the version ``challenger`` ``score`` (1, 0.5 or 0) in ``match``."""
    ranks = []
    for seat in MatchSeat.objects.filter(match=match).order_by("seat"):
        if score == 0.5:
            ranks.append(1)
        else:
            ranks.append(1 if (seat.bot_version_id == challenger) == (score == 1) else 2)
    return ranks


@pytest.fixture
def score_games(play: Callable[..., bool]) -> Callable[[Tournament, list[float]], None]:  # noqa: F811
    """Record the gauntlet's matches in plan order, the challenger scoring the given 1, 0.5 or 0 in each."""

    def run(tournament: Tournament, scores: list[float]) -> None:
        matches = list(Match.objects.filter(tournament=tournament).order_by("index"))
        assert len(matches) == len(scores)
        assert tournament.challenger_id is not None
        for match, score in zip(matches, scores, strict=True):
            assert play(match, challenger_ranks(match, tournament.challenger_id, score))

    return run


def seats_of(tournament: Tournament) -> list[tuple[int, tuple[int, ...], int]]:
    """Each match of the tournament in plan order: (index, versions by seat, seed)."""
    out = []
    for match in Match.objects.filter(tournament=tournament).order_by("index"):
        versions = tuple(
            MatchSeat.objects.filter(match=match).order_by("seat").values_list("bot_version_id", flat=True)
        )
        out.append((match.index or 0, versions, match.seed))
    return out
