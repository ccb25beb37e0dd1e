"""The applier's batch: many pending matches applied in one transaction give the very numbers of one at a time.

The applier reads and locks a pool's ratings once per batch and counts its
matches in memory (tournaments/ratings/services.py, ``ratings_apply_matches``).
Here a history is first applied match by match as it is recorded (the pool
is free), then taken back and applied again as one batch: every rating
(Elo to the last bit, games, results, other owners met) and every change
must come out the same, and equal to the rebuild.  The history has three
owners, draws, owners met again and again (never counted twice), and a
bot's second version whose first match comes after its first version's
matches in the same batch (its start is the first version's Elo at that
point, not the one stored before the batch).
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.service.conftest import RANDOM_BOT, ranks_by_version
from tournaments.bots.services import bot_version_create
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.matches.models import Match
from tournaments.ratings.applier import ratings_apply_all
from tournaments.ratings.models import Rating, RatingChange
from tournaments.ratings.rebuild import ratings_differences

pytestmark = pytest.mark.django_db


def _numbers() -> dict[int, tuple[float, int, int, int, int, int]]:
    return {
        version: (elo, games, wins, draws, losses, owners)
        for version, elo, games, wins, draws, losses, owners in Rating.objects.values_list(
            "bot_version_id", "elo", "games", "wins", "draws", "losses", "opponent_owners"
        )
    }


def _changes() -> list[tuple[int, int, float, float, float, float]]:
    """Every change in the order it was applied: (match, version, before, after, delta, k)."""
    return list(
        RatingChange.objects.order_by("id").values_list(
            "match_id", "rating__bot_version_id", "before", "after", "delta", "k"
        )
    )


def test_a_batch_gives_the_numbers_of_one_match_at_a_time(settings: Any, user: Any, make_bot: Any, play: Any) -> None:
    settings.ARBITER_RATING_MIN_OWNERS = 3  # never reached by three owners: every meeting is looked at
    bots = [make_bot(owner="new", name=f"b{i}") for i in range(3)]
    first = tournament_create(owner=user, game_id="gamesup", name="one", bot_ids=[b.id for b in bots])
    for n, match in enumerate(tournament_start(tournament=first, user=user).matches.order_by("index")):
        assert play(match, [(1, 2), (2, 1), (1, 1)][n % 3])
    v2 = bot_version_create(bot=bots[0], user=bots[0].owner, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py")
    second = tournament_create(owner=user, game_id="gamesup", name="two", bot_ids=[b.id for b in bots])
    for match in tournament_start(tournament=second, user=user).matches.order_by("index"):
        assert play(match, ranks_by_version(match, v2.id))
    one_at_a_time, changes = _numbers(), _changes()
    assert len(changes) == 2 * Match.objects.count() and v2.id in one_at_a_time
    assert ratings_differences()[0] == []
    assert {numbers[5] for numbers in one_at_a_time.values()} == {2}  # two other owners each, met many times

    # Taken back: the matches are pending again, as if every one was recorded while the pool was busy.
    RatingChange.objects.all().delete()
    Rating.objects.all().delete()
    Match.objects.update(rating_pending=True)
    assert ratings_apply_all() == Match.objects.count()

    assert _numbers() == one_at_a_time
    assert [change[1:] for change in _changes()] == [change[1:] for change in changes]
    assert [change[0] for change in _changes()] == [change[0] for change in changes]
    differences, replay, _ = ratings_differences()
    assert differences == [] and replay.matches == Match.objects.count()
