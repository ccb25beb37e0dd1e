"""Claim, record exactly once, errors and retries, tournament completion, ratings on the live path."""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.db import IntegrityError, transaction
from django.test.utils import override_settings

from tests.service.conftest import outcome_for, ranks_by_version
from tournaments.bots.models import BotVersion
from tournaments.bots.services import bot_version_create
from tournaments.competitions.models import Tournament
from tournaments.competitions.services.tournaments import tournament_cancel, tournament_create, tournament_start
from tournaments.matches.claim import match_claim
from tournaments.matches.models import Match
from tournaments.matches.record import match_record_error, match_record_result, matches_requeue_errored
from tournaments.matches.recovery import matches_expire_leases
from tournaments.ratings.models import Rating, RatingChange
from tournaments.ratings.rebuild import ratings_rebuild_apply
from tournaments.ratings.services import RatedSeat, ratings_apply_matches

from .conftest import RANDOM_BOT


def _tournament(user: Any, bots: list, **kwargs: Any) -> Tournament:
    kwargs.setdefault("game_id", "gamesup")
    tournament = tournament_create(owner=user, name="t", bot_ids=[b.id for b in bots], **kwargs)
    return tournament_start(tournament=tournament, user=user)


@pytest.fixture
def duel(user: Any, make_bot: Any) -> Tournament:
    return _tournament(user, [make_bot(owner="new"), make_bot(owner="new")], games_per_pairing=2)


def test_claim_is_a_conditional_update(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    assert match_claim(match_id=match.id, worker="w1") == 1
    assert match_claim(match_id=match.id, worker="w2") is None  # someone else has it
    match.refresh_from_db()
    assert (match.status, match.attempt, match.worker) == ("running", 1, "w1")
    assert match.claimed_at is not None


def test_result_is_recorded_exactly_once(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    attempt = match_claim(match_id=match.id, worker="w")
    outcome = outcome_for(match, [1, 2])
    assert match_record_result(match_id=match.id, attempt=attempt, record=outcome) is True
    # The same message delivered again: dropped, nothing counted twice.
    assert match_record_result(match_id=match.id, attempt=attempt, record=outcome) is False
    assert RatingChange.objects.filter(match=match).count() == 2
    assert sorted(Rating.objects.values_list("games", flat=True)) == [1, 1]
    match.refresh_from_db()
    assert match.status == "finished" and match.finished_at is not None
    assert list(match.match_seats.order_by("seat").values_list("rank", "status")) == [(1, "ok"), (2, "ok")]


def test_rating_change_unique_per_match_is_the_backstop(duel: Tournament, play: Any) -> None:
    match = duel.matches.order_by("index").first()
    play(match, [1, 2])
    seats = [
        RatedSeat(
            seat=s.seat, team=s.team, rank=s.rank, bot_version_id=s.bot_version_id, owner_id=s.bot_version.bot.owner_id
        )
        for s in match.match_seats.select_related("bot_version__bot")
    ]
    with pytest.raises(IntegrityError), transaction.atomic():
        ratings_apply_matches(pool=match.rating_pool, matches=[(match.id, seats)])


def test_a_stale_attempt_cannot_record(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    first = match_claim(match_id=match.id, worker="w1")
    assert match_record_error(match_id=match.id, attempt=first, reason="sandbox gone") == "queued"
    second = match_claim(match_id=match.id, worker="w2")
    assert second == first + 1
    assert match_record_result(match_id=match.id, attempt=first, record=outcome_for(match, [1, 2])) is False
    assert match_record_result(match_id=match.id, attempt=second, record=outcome_for(match, [2, 1])) is True
    assert RatingChange.objects.filter(match=match).count() == 2


@override_settings(ARBITER_MATCH_MAX_ATTEMPTS=2)
def test_infrastructure_errors_retry_then_error_without_rating(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    a1 = match_claim(match_id=match.id, worker="w")
    assert match_record_error(match_id=match.id, attempt=a1, reason="no slot") == "queued"
    a2 = match_claim(match_id=match.id, worker="w")
    assert match_record_error(match_id=match.id, attempt=a2, reason="no slot again") == "errored"
    match.refresh_from_db()
    assert (match.status, match.error_reason) == ("errored", "no slot again")
    assert not RatingChange.objects.exists() and not Rating.objects.exists()
    # Not a forfeit: the seats carry no rank or status.
    assert set(match.match_seats.values_list("rank", "status")) == {(None, "")}
    assert matches_requeue_errored(tournament_id=duel.id) == 1
    match.refresh_from_db()
    assert match.status == "queued"


def test_no_retry_errors_at_once(duel: Tournament) -> None:
    match = duel.matches.order_by("index").first()
    attempt = match_claim(match_id=match.id, worker="w")
    assert match_record_error(match_id=match.id, attempt=attempt, reason="bad package", retry=False) == "errored"


def test_tournament_finishes_with_its_last_match(duel: Tournament, play: Any) -> None:
    matches = list(duel.matches.order_by("index"))
    play(matches[0], [1, 2])
    duel.refresh_from_db()
    assert duel.status == "running"
    attempt = match_claim(match_id=matches[1].id, worker="w")
    match_record_error(match_id=matches[1].id, attempt=attempt, reason="x", retry=False)
    duel.refresh_from_db()
    assert duel.status == "finished" and duel.finished is not None


def test_cancel_cancels_queued_and_running_matches(duel: Tournament, user: Any, play: Any) -> None:
    matches = list(duel.matches.order_by("index"))
    attempt = match_claim(match_id=matches[0].id, worker="w")
    tournament_cancel(tournament=duel, user=user)
    assert {m.status for m in Match.objects.filter(tournament=duel)} == {"cancelled"}
    # The running match's worker is stopped; a result it still sends is refused and rates nobody.
    assert not match_record_result(match_id=matches[0].id, attempt=attempt, record=outcome_for(matches[0], [1, 2]))
    assert not RatingChange.objects.exists()
    duel.refresh_from_db()
    assert duel.status == "cancelled"


def test_stale_running_matches_are_requeued(duel: Tournament) -> None:
    from datetime import timedelta

    from tournaments.dbclock import db_clock

    match = duel.matches.order_by("index").first()
    match_claim(match_id=match.id, worker="w")
    assert matches_expire_leases() == 0
    with override_settings(ARBITER_LEASE_S=30, ARBITER_SWEEP_EVERY_S=5):
        # Sweeping every few seconds (a longer gap would be the sweeper's own outage, forgiven for a lease).
        for seconds in (10, 20, 27):
            assert matches_expire_leases(now=db_clock() + timedelta(seconds=seconds)) == 0
        assert matches_expire_leases(now=db_clock() + timedelta(seconds=35)) == 1
    match.refresh_from_db()
    assert match.status == "queued"


def test_live_elo_two_seats_by_hand(duel: Tournament, play: Any) -> None:
    m1, m2 = list(duel.matches.order_by("index"))
    a, b = [s.bot_version_id for s in m1.match_seats.order_by("seat")]
    play(m1, ranks_by_version(m1, a))
    play(m2, ranks_by_version(m2, a))
    ra = Rating.objects.get(bot_version_id=a)
    rb = Rating.objects.get(bot_version_id=b)
    # Game 1: +-20.  Game 2: a at 1520 vs b at 1480, K 40.
    e = 1 / (1 + 10 ** ((1480 - 1520) / 400))
    assert math.isclose(ra.elo, 1520 + 40 * (1 - e))
    assert math.isclose(rb.elo, 1480 - 40 * (1 - e))
    assert (ra.games, ra.wins, ra.draws, ra.losses) == (2, 2, 0, 0)
    assert (rb.games, rb.wins, rb.draws, rb.losses) == (2, 0, 0, 2)


def test_live_elo_teams_count_a_version_once(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(owner="new", game="sequence"), make_bot(owner="new", game="sequence")]
    tournament = _tournament(user, bots, game_id="sequence", seats=4, options={"teams": 2}, games_per_pairing=1)
    match = tournament.matches.get()
    winner = match.match_seats.get(seat=0).bot_version_id
    play(match, ranks_by_version(match, winner))
    # Two seats each, but one member per team: +-20 and one game.
    assert sorted(Rating.objects.values_list("elo", "games")) == [(1480.0, 1), (1520.0, 1)]


def test_version_on_two_teams_is_unrated(user: Any, make_bot: Any, play: Any) -> None:
    from tournaments.games.models import Game
    from tournaments.matches.models import MatchSeat

    bot = make_bot()
    version = BotVersion.objects.get(bot=bot)
    match = Match.objects.create(
        game=Game.objects.get(id="gamesup"), engine_version="1", seats=2, seed=1, rating_pool="gamesup"
    )
    MatchSeat.objects.bulk_create([MatchSeat(match=match, seat=s, team=s, bot_version=version) for s in range(2)])
    assert play(match, [1, 2]) is True
    assert not RatingChange.objects.exists()


def test_forfeit_counts_as_its_ranks(duel: Tournament, play: Any) -> None:
    match = duel.matches.order_by("index").first()
    play(match, [2, 1], statuses=["timeout", "ok"])
    loser = match.match_seats.get(seat=0).bot_version_id
    assert Rating.objects.get(bot_version_id=loser).elo == 1480.0


def test_new_version_starts_from_previous_rating(duel: Tournament, user: Any, play: Any) -> None:
    match = duel.matches.order_by("index").first()
    seat0 = match.match_seats.get(seat=0).bot_version
    play(match, [1, 2])
    v2 = bot_version_create(
        bot=seat0.bot, user=seat0.bot.owner, package=RANDOM_BOT + b"\n# v2\n", filename="random_bot.py"
    )
    other = match.match_seats.get(seat=1).bot_version.bot
    rematch = _tournament(user, [seat0.bot, other], games_per_pairing=1)
    game = rematch.matches.get()
    play(game, ranks_by_version(game, v2.id))
    rating = Rating.objects.get(bot_version=v2)
    assert rating.games == 1
    assert rating.changes.get().before == 1520.0  # carried over from v1
    assert rating.changes.get().k == 40.0  # games count restarted


def test_rebuild_gives_the_live_numbers(user: Any, make_bot: Any, play: Any) -> None:
    bots = [make_bot(owner="new") for _ in range(4)]
    tournament = _tournament(user, bots, games_per_pairing=2)
    for i, match in enumerate(tournament.matches.order_by("index")):
        ranks = [[1, 2], [2, 1], [1, 1]][i % 3]
        play(match, ranks)
    live = sorted(Rating.objects.values_list("bot_version_id", "elo", "games", "wins", "draws", "losses"))
    assert ratings_rebuild_apply(pool=tournament.rating_pool).matches == 12
    rebuilt = sorted(Rating.objects.values_list("bot_version_id", "elo", "games", "wins", "draws", "losses"))
    assert [r[0] for r in rebuilt] == [r[0] for r in live]
    for x, y in zip(live, rebuilt, strict=True):
        assert math.isclose(x[1], y[1]) and x[2:] == y[2:]
