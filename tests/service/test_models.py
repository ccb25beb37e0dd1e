"""Database integrity: unique and check constraints, protected history."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from tournaments.bots.models import Bot, BotVersion
from tournaments.games.models import Game
from tournaments.matches.models import Match, MatchSeat
from tournaments.ratings.models import Rating, RatingChange


def test_bot_name_unique_per_owner_and_game(user: Any, other: Any) -> None:
    game = Game.objects.get(id="gamesup")
    Bot.objects.create(owner=user, game=game, name="x")
    Bot.objects.create(owner=other, game=game, name="x")
    Bot.objects.create(owner=user, game=Game.objects.get(id="pileup"), name="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        Bot.objects.create(owner=user, game=game, name="x")


def test_version_numbers_unique_and_positive(make_bot: Any) -> None:
    bot = make_bot()
    with pytest.raises(IntegrityError), transaction.atomic():
        BotVersion.objects.create(bot=bot, number=1, package=b"x", filename="a.py", checksum="0", size=1)
    with pytest.raises(IntegrityError), transaction.atomic():
        BotVersion.objects.create(bot=bot, number=0, package=b"x", filename="a.py", checksum="0", size=1)


@pytest.fixture
def match() -> Match:
    return Match.objects.create(game_id="gamesup", engine_version="1", seats=2, seed=1, rating_pool="gamesup")


def test_match_checks(match: Match) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(id=match.id).update(status="bogus")
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(id=match.id).update(status="running")  # running without a claim
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.create(game_id="gamesup", engine_version="1", seats=1, seed=1, rating_pool="gamesup")


def test_seats_unique_and_ranks_positive(match: Match, make_bot: Any) -> None:
    version = BotVersion.objects.get(bot=make_bot())
    MatchSeat.objects.create(match=match, seat=0, team=0, bot_version=version)
    with pytest.raises(IntegrityError), transaction.atomic():
        MatchSeat.objects.create(match=match, seat=0, team=1, bot_version=version)
    with pytest.raises(IntegrityError), transaction.atomic():
        MatchSeat.objects.create(match=match, seat=1, team=1, bot_version=version, rank=0)


def test_rating_checks_and_exactly_once(match: Match, make_bot: Any) -> None:
    version = BotVersion.objects.get(bot=make_bot())
    rating = Rating.objects.create(bot_version=version, pool="gamesup")
    with pytest.raises(IntegrityError), transaction.atomic():
        Rating.objects.create(bot_version=version, pool="gamesup")
    for bad in ({"elo": 1e9}, {"elo": float("nan")}, {"games": 1}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Rating.objects.filter(id=rating.id).update(**bad)
    RatingChange.objects.create(rating=rating, match=match, before=1500, after=1520, delta=20, k=40)
    with pytest.raises(IntegrityError), transaction.atomic():
        RatingChange.objects.create(rating=rating, match=match, before=1500, after=1520, delta=20, k=40)


def test_history_is_protected(match: Match, make_bot: Any) -> None:
    bot = make_bot()
    version = BotVersion.objects.get(bot=bot)
    MatchSeat.objects.create(match=match, seat=0, team=0, bot_version=version)
    with pytest.raises(ProtectedError):
        version.delete()
    with pytest.raises(ProtectedError):
        bot.delete()
