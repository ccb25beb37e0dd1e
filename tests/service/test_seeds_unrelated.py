"""Match seeds are not a function of public data: matches made alike, down to their ids, get unrelated seeds.

Each test makes the same thing twice from the same public data.  The first
time it is made in a savepoint that is rolled back, and the id counters are
put back, so that the second gets the very same ids (tournament, challenge,
version test, every match), the same entries, options, names and order.
Seeds computed from what anyone can see (as they once were: a hash of the
tournament's id and the game's index) would come out the same both times;
secret draws share nothing.  The ladder is made twice with the same random
picks, which once gave the same seeds as well.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from django.core.management.color import no_style
from django.db import connection, transaction

from tests.service.conftest import RANDOM_BOT
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import (
    Challenge,
    ChallengeMatch,
    Ladder,
    Participant,
    Tournament,
    VersionTest,
    VersionTestMatch,
)
from tournaments.competitions.services.challenges import challenge_create
from tournaments.competitions.services.ladders import ladder_save, ladders_top_up
from tournaments.competitions.services.tournaments import tournament_create, tournament_start
from tournaments.competitions.services.version_tests import version_test_create
from tournaments.matches.models import Match, MatchSeat
from tournaments.matches.seeds import SEED_BITS, seed_draw

# Every table a test here writes to and rolls back: its id counter is put back afterwards.
MADE = [Tournament, Participant, Challenge, ChallengeMatch, VersionTest, VersionTestMatch, Ladder, Match, MatchSeat]

# (match id, kind, index, seats' versions) of each match: everything public about it, and its seed.
Made = tuple[list[tuple[int, str, int | None, tuple[int, ...]]], list[int]]


def _restart_ids() -> None:
    """Put the id counters back to where the rolled-back rows found them (SQLite rolls them back itself)."""
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), MADE):
            cursor.execute(sql)


def _made(make: Callable[[], object]) -> Made:
    """Run ``make`` in a savepoint; the public face and the seeds of the matches it made, then roll it back."""
    with transaction.atomic():
        make()
        matches = list(Match.objects.order_by("id"))
        public = [
            (m.id, m.kind, m.index, tuple(m.match_seats.order_by("seat").values_list("bot_version_id", flat=True)))
            for m in matches
        ]
        seeds = [m.seed for m in matches]
        transaction.set_rollback(True)
    _restart_ids()
    return public, seeds


def _twice(make: Callable[[], object]) -> tuple[list[int], list[int]]:
    """The seeds of two makings of the same thing, checked to be alike in everything public."""
    first_public, first_seeds = _made(make)
    second_public, second_seeds = _made(make)
    assert first_public and first_public == second_public, "the two makings differ in public"
    return first_seeds, second_seeds


def _assert_unrelated(first: list[int], second: list[int]) -> None:
    assert not set(first) & set(second), "matches made alike got seeds in common"
    assert all(0 <= seed < 2**63 for seed in first + second), "a seed outside the signed 64-bit column"


def test_two_tournaments_created_alike_get_unrelated_seeds(user: Any, make_bot: Any) -> None:
    bots = [make_bot(owner="new", game="sequence") for _ in range(3)]

    def make() -> None:
        tournament = tournament_create(
            owner=user, game_id="sequence", name="alike", bot_ids=[b.id for b in bots], games_per_pairing=2
        )
        tournament_start(tournament=tournament, user=user)

    first, second = _twice(make)
    assert len(first) == 6 and len(set(first)) == 6
    _assert_unrelated(first, second)


def test_two_challenges_made_alike_get_unrelated_seeds(user: Any, other: Any, make_bot: Any) -> None:
    mine, theirs = make_bot(owner=user, game="sequence"), make_bot(owner=other, game="sequence")
    first, second = _twice(lambda: challenge_create(challenger=user, bot_id=mine.id, opponent_id=theirs.id, games=4))
    assert len(set(first)) == 4
    _assert_unrelated(first, second)


def test_two_version_tests_made_alike_share_seeds_only_within_their_pairs(user: Any, make_bot: Any) -> None:
    bot = make_bot(owner=user, game="sequence", name="tested")
    bot_version_create(bot=bot, user=user, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py")
    first, second = _twice(lambda: version_test_create(user=user, bot_id=bot.id, baseline_number=1, pairs_in_flight=3))
    # One deal a pair (both games, seats swapped), a new one for every pair.
    assert first[0::2] == first[1::2] and len(set(first)) == 3
    _assert_unrelated(first, second)


def test_two_ladder_top_ups_with_the_same_picks_get_unrelated_seeds(make_bot: Any) -> None:
    for _ in range(4):
        make_bot(owner="new", game="sequence")

    def make() -> None:
        ladder_save(ladder=Ladder(game_id="sequence", seats=2, queued_target=3))
        # The same random picks both times: who plays is the same, the seeds must not be.
        ladders_top_up(rng=random.Random(1))

    first, second = _twice(make)
    assert len(set(first)) == 3
    _assert_unrelated(first, second)


def test_seeds_use_all_their_bits() -> None:
    seeds = [seed_draw() for _ in range(2000)]
    assert len(set(seeds)) == len(seeds)
    assert all(0 <= s < 2**SEED_BITS for s in seeds) and SEED_BITS == 63
    # Each bit is set in about half the draws: 800 to 1200 of 2000 is nine standard deviations either side.
    for bit in range(SEED_BITS):
        assert 800 < sum(s >> bit & 1 for s in seeds) < 1200, bit
