"""Fixtures for the service tests: users, bots built from the reference bots, match helpers."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from django.contrib.auth import get_user_model

from kit import REFERENCE_BOTS
from tests.recording import record_for
from tournaments.bots.models import Bot
from tournaments.bots.services import bot_create
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.games.services import game_sync
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.record import match_record_result

RANDOM_BOT = (REFERENCE_BOTS / "random_bot.py").read_bytes()


@pytest.fixture(autouse=True)
def _games(db: None) -> None:
    game_sync()


@pytest.fixture
def user() -> Any:
    return get_user_model().objects.create_user(username="alice", password="alice-pw")


@pytest.fixture
def other() -> Any:
    return get_user_model().objects.create_user(username="bob", password="bob-pw")


@pytest.fixture
def staff() -> Any:
    return get_user_model().objects.create_user(username="root", password="root-pw", is_staff=True)


@pytest.fixture
def make_bot(user: Any) -> Callable[..., Bot]:
    """Bots of ``user`` by default; ``owner="new"`` gives each its own new owner.

    Games between one owner's bots are never rated, so tests of ratings give
    their bots different owners.
    """
    counter = {"n": 0}

    def make(owner: Any = None, game: str = "gamesup", name: str | None = None, visibility: str = "public") -> Bot:
        counter["n"] += 1
        if owner == "new":
            owner = get_user_model().objects.create_user(username=f"owner{counter['n']}", password="owner-pw")
        return bot_create(
            owner=owner or user,
            game_id=game,
            name=name or f"bot{counter['n']}",
            package=RANDOM_BOT,
            filename="random_bot.py",
            visibility=visibility,
        ).bot

    return make


def duel_started(*, owner: Any, bots: Sequence[Bot], games: int) -> Tournament:
    """A started round robin of two bots, ``games`` games, on clocks a reference bot meets in the sandbox."""
    tournament = tournament_create(
        owner=owner,
        game_id="gamesup",
        name="t",
        bot_ids=[b.id for b in bots],
        games_per_pairing=games,
        move_ms=2000,
        game_ms=20000,
        startup_ms=10000,
    )
    return tournament_start(tournament=tournament, user=owner)


@pytest.fixture
def duel_of_three(user: Any, other: Any, make_bot: Any) -> Tournament:
    """Three games between a bot of ``user`` and one of ``other`` (two owners: rated), started."""
    return duel_started(owner=user, bots=[make_bot(), make_bot(owner=other)], games=3)


outcome_for = record_for


@pytest.fixture
def play() -> Callable[..., bool]:
    """Claim and record a match with the given ranks (as a worker would)."""

    def run(match: Match, ranks: Sequence[int], statuses: Sequence[str] | None = None) -> bool:
        attempt = match_claim(match_id=match.id, worker="test")
        assert attempt is not None
        return match_record_result(match_id=match.id, attempt=attempt, record=record_for(match, ranks, statuses))

    return run


def ranks_by_version(match: Match, winner_version: int | None) -> list[int]:
    """Ranks that make ``winner_version``'s team win (None: a draw)."""
    seats = list(MatchSeat.objects.filter(match=match).order_by("seat"))
    if winner_version is None:
        return [1] * len(seats)
    return [1 if s.bot_version_id == winner_version else 2 for s in seats]
